package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/a2agen/a2agen/server/storeurl"
	"github.com/a2agen/a2agen/telemetry"
)

// mainRun is Main once its settings are applied: it opens the store and
// the telemetry, starts the agent, serves it until ctx ends or a signal
// comes, and shuts everything down in order.
type mainRun struct {
	name           string
	settings       *settings
	sigs           chan os.Signal
	stdout, stderr io.Writer
}

func (m *mainRun) errorf(format string, args ...any) {
	fmt.Fprintf(m.stderr, "%s: %s\n", m.name, fmt.Sprintf(format, args...))
}

// run returns the process's exit code.
func (m *mainRun) run(ctx context.Context, cfg Config) int {
	if cfg.Store != nil {
		code, _ := m.runAgent(ctx, cfg, "provided by the program")
		return code
	}
	st, err := storeurl.Open(ctx, m.settings.store, cfg.Limits.storeOptions(cfg.Logger))
	if err != nil {
		m.errorf("%v%s", err, envNote(m.settings.fromEnv, "store"))
		return 1
	}
	storeLine := storeurl.Describe(m.settings.store)
	cfg.Store = st
	code, atOnce := m.runAgent(ctx, cfg, storeLine)
	if atOnce {
		return code // a second signal: nothing more is waited for
	}
	if err := st.Close(); err != nil {
		m.errorf("closing store %s: %v", storeLine, err)
		return max(code, 1)
	}
	return code
}

// runAgent sets up telemetry (unless the program did), starts the agent,
// prints where it serves and serves it until it has shut down. atOnce
// reports an exit forced by a second signal.
func (m *mainRun) runAgent(ctx context.Context, cfg Config, storeLine string) (code int, atOnce bool) {
	if cfg.Telemetry == nil {
		tel, err := telemetry.FromEnvironment(ctx, cardName(cfg.CardJSON), telemetry.WithLogger(loggerOf(cfg)), telemetry.WithRequestLog(m.settings.requestLog))
		if err != nil {
			m.errorf("telemetry: %v", err)
			return 1, false
		}
		defer m.flush(tel) // the last spans and metrics, once the agent has stopped
		cfg.Telemetry = tel
	}
	agent, err := Start(cfg)
	if err != nil {
		fmt.Fprintln(m.stderr, err)
		return 1, false
	}
	m.printEndpoints(agent, cfg, storeLine)
	return m.serve(ctx, agent)
}

func (m *mainRun) flush(tel *telemetry.Setup) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		m.errorf("telemetry: %v", err)
	}
}

// printEndpoints writes the card URL, one line per binding and the store.
func (m *mainRun) printEndpoints(agent *Agent, cfg Config, storeLine string) {
	for _, b := range cfg.Bindings {
		if u := agent.CardURL(b); u != "" {
			fmt.Fprintf(m.stdout, "%-9s %s\n", "card", u)
			break
		}
	}
	for _, b := range cfg.Bindings {
		fmt.Fprintf(m.stdout, "%-9s %s\n", b.Protocol, agent.URL(b))
	}
	fmt.Fprintf(m.stdout, "%-9s %s\n", "store", storeLine)
}

// serve waits for the end (ctx, a signal or a listener's failure), then
// shuts the agent down; a second signal during the shutdown returns 128+n
// at once.
func (m *mainRun) serve(ctx context.Context, agent *Agent) (code int, atOnce bool) {
	signals := 0
	var serveErr error
	select {
	case <-ctx.Done():
	case <-m.sigs:
		signals++
	case serveErr = <-agent.errs:
		m.errorf("%v", serveErr)
	}
	m.errorf("shutting down: %s; a second interrupt exits at once", agent.shutdownPlan())
	done := make(chan error, 1)
	go func() { done <- agent.Shutdown(context.Background()) }()
	for {
		select {
		case err := <-done:
			if err != nil {
				m.errorf("%v", err)
			}
			if err != nil || serveErr != nil {
				return 1, false
			}
			return 0, false
		case sig := <-m.sigs:
			if signals++; signals < 2 {
				continue
			}
			m.errorf("%v again: exiting at once, without waiting for running tasks", sig)
			if n, ok := sig.(syscall.Signal); ok {
				return 128 + int(n), true
			}
			return 1, true
		}
	}
}

// shutdownPlan says what a shutdown beginning now waits for.
func (a *Agent) shutdownPlan() string {
	var parts []string
	if a.delay > 0 {
		parts = append(parts, fmt.Sprintf("serving %v longer while not ready", a.delay))
	}
	switch n := a.srv.Executions(); {
	case n == 0:
		parts = append(parts, "no task running")
	case a.grace <= 0:
		parts = append(parts, fmt.Sprintf("canceling %s", executions(n)))
	default:
		parts = append(parts, fmt.Sprintf("%s may run %v longer", executions(n), a.grace))
	}
	return strings.Join(parts, ", ")
}
