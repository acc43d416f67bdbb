package inspect

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/clitokens"
)

// Command is `a2a inspect [URL]`: it starts the inspector, prints its URL
// (or opens it with --open) and serves until interrupted.
func Command() *cobra.Command {
	var (
		addr string
		open bool
	)
	cmd := &cobra.Command{
		Use:   "inspect [URL]",
		Short: "Inspect an agent in the browser: card, chat, tasks, push, wire",
		Long: `inspect starts a local web inspector for any A2A agent and prints its URL.
In the page: the agent's public and extended card with spec checks and
signature verification; a chat over any interface of the card (binding and
protocol version 1.0 or 0.3 chosen), multi-turn and streaming; forms for
typed skills; tasks (list, get, cancel, re-subscribe); push configs that
post to a receiver the inspector runs on loopback; and every request,
response and stream event as it went over the wire, with credentials masked,
to copy as curl or as an a2a command. Credentials follow the card's security
schemes (bearer, API key in header, query or cookie, basic, OAuth access
token, mTLS client certificate) plus custom headers; they stay in memory.

The inspector listens on 127.0.0.1 only; the URL carries a random session
token that every request must carry, requests naming another Host are
refused (DNS rebinding), no CORS header is sent, and nothing is written to
disk. Stop it with Ctrl-C. docs/inspect.md describes every view.`,
		Example: `  a2a inspect http://localhost:8080
  a2a inspect http://localhost:8080 --open
  a2a inspect --addr 127.0.0.1:7777
  go run ./examples/echo --allow-private-webhooks & a2a inspect http://127.0.0.1:8080`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			agent := ""
			if len(args) == 1 {
				agent = args[0]
				if !strings.HasPrefix(agent, "http://") && !strings.HasPrefix(agent, "https://") {
					return fmt.Errorf("inspect: %q is not an agent URL: give the http:// or https:// URL its card is served under", agent)
				}
			}
			s, err := New(Options{Addr: addr, AgentURL: agent, Tokens: clitokens.In(clitokens.Dir(os.Getenv))})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "a2a inspect: %s\n", s.URL())
			fmt.Fprintf(out, "push receiver: %s (loopback; agents must be allowed to post there)\n", s.ReceiverURL())
			if open {
				if err := openBrowser(s.URL()); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "a2a inspect: --open: %v; open the URL above yourself\n", err)
				}
			}
			return s.Serve(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "loopback `HOST:PORT` to serve the page on (port 0: a free one)")
	cmd.Flags().BoolVar(&open, "open", false, "open the page in the default browser")
	return cmd
}

// openBrowser opens url with the platform's opener.
func openBrowser(url string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }()
	return nil
}
