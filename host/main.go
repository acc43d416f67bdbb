package host

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// Defaults of the task-retention flags of Main.
const (
	DefaultTerminalTaskTTL  = 24 * time.Hour
	DefaultMaxTerminalTasks = 10_000
)

// Main is the whole command-line life of an agent program: it reads its
// flags, starts the agent of cfg, prints the card URL and one line per
// binding, serves until ctx is done, shuts down, and returns the process's
// exit code (0 after -help, 2 for bad flags, 1 for any other failure). name
// is the program name in usage text. The flags:
//
//   - -tls-cert, -tls-key: serve every address over TLS; -client-ca: verify
//     client certificates against those CAs (mtls schemes);
//   - -listen FROM=TO (repeatable): listen on TO instead of the address FROM
//     of cfg (from agent.yaml), e.g. 0.0.0.0:8080 in a container; the card
//     still advertises what it was generated with;
//   - -terminal-task-ttl, -max-terminal-tasks: how long and how many
//     finished tasks the in-memory task store keeps (store.WithTerminalTaskTTL,
//     store.WithMaxTerminalTasks; 0 = no bound). They do not apply when
//     cfg.ServerOptions sets a store (server.WithStore).
//
// Everything else comes from cfg. Scaffolded projects call Main from their
// generated runMain, so that the serving logic is the library's, not a copy
// in every project.
func Main(ctx context.Context, name string, cfg Config, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	tlsCert := flags.String("tls-cert", "", "PEM certificate (chain) to serve TLS with")
	tlsKey := flags.String("tls-key", "", "PEM private key of -tls-cert")
	clientCA := flags.String("client-ca", "", "PEM CA certificates client certificates are verified against (mtls)")
	listen := listenFlag{}
	flags.Var(&listen, "listen", "listen on TO instead of the agent.yaml address FROM (`FROM=TO`, repeatable)")
	ttl := flags.Duration("terminal-task-ttl", DefaultTerminalTaskTTL, "how long a finished task stays readable (0: until the process ends)")
	maxTerminal := flags.Int("max-terminal-tasks", DefaultMaxTerminalTasks, "how many finished tasks are kept, oldest removed first (0: no limit)")
	flags.Usage = func() { usage(flags, name, cfg) }
	if err := flags.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s takes no arguments, got %q; see %s -help\n", name, flags.Args(), name)
		return 2
	}
	bindings, err := listen.apply(cfg.Bindings)
	if err != nil {
		fmt.Fprintf(stderr, "%s: -listen: %v\n", name, err)
		return 2
	}
	if *ttl < 0 || *maxTerminal < 0 {
		fmt.Fprintf(stderr, "%s: -terminal-task-ttl and -max-terminal-tasks must not be negative (0 means no bound)\n", name)
		return 2
	}
	cfg.Bindings = bindings
	mem := store.NewMemory(store.WithTerminalTaskTTL(*ttl), store.WithMaxTerminalTasks(*maxTerminal))
	// First, so that a store the program sets in cfg.ServerOptions wins.
	cfg.ServerOptions = append([]server.Option{server.WithStore(mem)}, cfg.ServerOptions...)
	if *tlsCert != "" || *tlsKey != "" || *clientCA != "" {
		tlsConfig, err := auth.ServerTLSConfig(*tlsCert, *tlsKey, *clientCA)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		cfg.TLS = tlsConfig
	}
	agent, err := Start(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, b := range cfg.Bindings {
		if u := agent.CardURL(b); u != "" {
			fmt.Fprintf(stdout, "%-9s %s\n", "card", u)
			break
		}
	}
	for _, b := range cfg.Bindings {
		fmt.Fprintf(stdout, "%-9s %s\n", b.Protocol, agent.URL(b))
	}
	if err := agent.Wait(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// usage prints the help of Main, with the program's own addresses in the
// examples.
func usage(flags *flag.FlagSet, name string, cfg Config) {
	out := flags.Output()
	fmt.Fprintf(out, "Usage: %s [flags]\n\nServes the A2A agent on the addresses of its agent.yaml:\n", name)
	for _, b := range cfg.Bindings {
		fmt.Fprintf(out, "  %-9s %s%s\n", b.Protocol, b.Address, b.Path)
	}
	fmt.Fprintln(out, "\nFlags:")
	flags.PrintDefaults()
	from := "127.0.0.1:8080"
	if len(cfg.Bindings) > 0 {
		from = cfg.Bindings[0].Address
	}
	fmt.Fprintf(out, `
Examples:
  # serve as configured
  %[1]s
  # listen on all interfaces (in a container, say); the card keeps its URLs
  %[1]s -listen %[2]s=0.0.0.0:8080
  # serve HTTPS and gRPC over TLS
  %[1]s -tls-cert cert.pem -tls-key key.pem
  # keep finished tasks for an hour, at most 1000 of them
  %[1]s -terminal-task-ttl 1h -max-terminal-tasks 1000
`, name, from)
}

// listenFlag is the -listen flag: listen-address replacements, FROM → TO.
type listenFlag map[string]string

func (l listenFlag) String() string {
	var parts []string
	for _, from := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, from+"="+l[from])
	}
	return strings.Join(parts, ",")
}

func (l listenFlag) Set(v string) error {
	from, to, ok := strings.Cut(v, "=")
	if !ok || from == "" || to == "" {
		return fmt.Errorf("%q is not FROM=TO (for example 127.0.0.1:8080=0.0.0.0:8080)", v)
	}
	if _, dup := l[from]; dup {
		return fmt.Errorf("%s is replaced twice", from)
	}
	l[from] = to
	return nil
}

// apply returns a copy of bindings with the addresses replaced; every FROM
// must be the address of a binding.
func (l listenFlag) apply(bindings []Binding) ([]Binding, error) {
	out := slices.Clone(bindings)
	used := map[string]bool{}
	for i := range out {
		if to, ok := l[out[i].Address]; ok {
			used[out[i].Address] = true
			out[i].Address = to
		}
	}
	for _, from := range slices.Sorted(maps.Keys(l)) {
		if !used[from] {
			var have []string
			for _, b := range bindings {
				if !slices.Contains(have, b.Address) {
					have = append(have, b.Address)
				}
			}
			return nil, fmt.Errorf("no binding listens on %s; the agent's addresses are %s", from, strings.Join(have, ", "))
		}
	}
	return out, nil
}
