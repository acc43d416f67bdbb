package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/webhook"
)

func (a *app) webhookCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "webhook",
		Short:   "Receive push notifications locally",
		Long:    `webhook runs a local receiver for push notifications, to try them on a laptop.`,
		Example: `  a2a webhook listen 127.0.0.1:9000 --token s3cret`,
		Args: func(cmd *cobra.Command, args []string) error {
			return usagef("webhook needs a command: listen")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(a.webhookListenCommand())
	return cmd
}

func (a *app) webhookListenCommand() *cobra.Command {
	var lf listenFlags
	cmd := &cobra.Command{
		Use:   "listen ADDR",
		Short: "Print every push notification posted to ADDR",
		Long: `listen serves HTTP on ADDR (host:port; port 0 picks a free one) and prints
every push notification an agent posts to it, on any path: the task, the
event (state change, artifact chunk, message) and whether its token checked
out. The first line says where it listens.

With --token, deliveries must carry that token (X-A2A-Notification-Token or
A2A-Notification-Token); others are answered 401 and reported. Agents refuse
webhooks on loopback or private addresses unless configured to allow them
(examples/echo: --allow-private-webhooks).

It runs until interrupted, until --count deliveries arrived, or until
--timeout.`,
		Example: `  a2a webhook listen 127.0.0.1:9000 --token s3cret
  a2a webhook listen 127.0.0.1:0 --count 3 -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("webhook listen takes ADDR (host:port), got %d argument(s)", len(args))
			}
			if lf.count < 0 {
				return usagef("--count %d: must not be negative", lf.count)
			}
			return a.listen(cmd.Context(), args[0], lf)
		},
	}
	cmd.Flags().StringVar(&lf.token, "token", "", "accept only deliveries carrying this token")
	cmd.Flags().IntVar(&lf.count, "count", 0, "exit after `N` accepted deliveries (0: run until interrupted)")
	return cmd
}

// listenFlags are webhook listen's flags.
type listenFlags struct {
	token string
	count int
}

// listen serves the receiver on addr until the command's context ends or
// the receiver has taken lf.count deliveries.
func (a *app) listen(parent context.Context, addr string, lf listenFlags) error {
	ctx, cancel := a.commandContext(parent, true)
	defer cancel()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("webhook listen %s: %w", addr, err)
	}
	r := &receiver{app: a, token: lf.token, count: lf.count, done: make(chan struct{})}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.env.stderr, "listening on http://%s/\n", ln.Addr())
	errs := make(chan error, 1)
	go func() { errs <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case <-r.done:
	case err := <-errs:
		return err
	}
	shutdown, stop := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop()
	_ = srv.Shutdown(shutdown)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && lf.count > 0 {
		return fmt.Errorf("--timeout: %d of %d deliveries arrived", r.received, lf.count)
	}
	return nil
}

// receiver prints push deliveries.
type receiver struct {
	app   *app
	token string
	count int

	mu       sync.Mutex
	received int
	done     chan struct{}
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "push notifications are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, webhook.MaxDeliveryBytes))
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.token != "" && !webhook.TokenMatches(req.Header, r.token) {
		fmt.Fprintf(r.app.env.stderr, "refused a delivery to %s from %s: missing or wrong token\n", req.URL.Path, req.RemoteAddr)
		http.Error(w, "missing or wrong notification token", http.StatusUnauthorized)
		return
	}
	ev, err := webhook.ReadDelivery(body)
	if err != nil {
		fmt.Fprintf(r.app.env.stderr, "a delivery to %s is not an A2A event: %v\n", req.URL.Path, err)
		http.Error(w, "not a StreamResponse", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
	r.print(req.URL.Path, ev)
	r.received++
	if r.count > 0 && r.received == r.count {
		close(r.done)
	}
}

// print writes one delivery of ev to path: in the text form a block of
// Label: value lines, closed by a blank line.
func (r *receiver) print(path string, ev *a2av1.StreamResponse) {
	_ = r.app.emit(r.app.env.stdout, ev, func(w io.Writer) {
		labeled(w, "Delivery", path)
		labeled(w, "Task ID", ev.TaskID())
		if r.token != "" {
			labeled(w, "Token", "verified")
		}
		labeled(w, "Event", indentMore(summarizeEvent(ev), "  "))
		fmt.Fprintln(w)
	})
}

// summarizeEvent is one line (or a few) about an event.
func summarizeEvent(ev *a2av1.StreamResponse) string {
	switch e := ev.GetPayload().(type) {
	case *a2av1.StreamResponse_Task:
		return "task " + e.Task.GetStatus().GetState().Short()
	case *a2av1.StreamResponse_Message:
		return "message " + describeMessage(e.Message)
	case *a2av1.StreamResponse_StatusUpdate:
		s := "status " + e.StatusUpdate.GetStatus().GetState().Short()
		if t := describeMessage(e.StatusUpdate.GetStatus().GetMessage()); t != "" {
			s += "  " + t
		}
		return s
	case *a2av1.StreamResponse_ArtifactUpdate:
		u := e.ArtifactUpdate
		s := "artifact " + artifactName(u.GetArtifact())
		if u.GetAppend() {
			s += " (append)"
		}
		if u.GetLastChunk() {
			s += " (last chunk)"
		}
		return s + ": " + describeParts(u.GetArtifact().GetParts())
	}
	return "empty event"
}
