package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// DefaultStore is the task store of Main when neither -store nor the
// StoreEnv environment variable names one: a SQLite file under data/ in the
// working directory, created on first start.
const DefaultStore = "sqlite:data/agent.db"

// StoreEnv is the environment variable Main reads the store URL from when
// -store is not given (an empty value counts as unset): EnvName("store").
const StoreEnv = "A2A_STORE"

// Main is the whole command-line life of an agent program: it reads its
// flags (and their environment variables), opens the task store, starts the
// agent of cfg, prints the card URL, one line per binding and the store,
// serves until ctx is done or the process gets SIGTERM or SIGINT, shuts down
// gracefully (Agent.Shutdown), closes the store and returns the process's
// exit code:
//
//   - 0 after -help and -version, and after a shutdown in which everything finished in
//     time;
//   - 2 for bad flags or environment variables;
//   - 1 for any other failure: a store that cannot be opened, or a shutdown
//     that had to cancel executions or cut calls;
//   - 128+n (130 for SIGINT, 143 for SIGTERM) when a second signal n comes
//     during the shutdown: Main then returns at once, without waiting for
//     anything (the program is expected to exit with that code).
//
// name is the program name in usage text and error messages. The flags:
//
//   - -version (or --version): print what the program was built from
//     (version.Read: the module version, the commit stamped with -ldflags
//     or recorded by -buildvcs, the Go version, the a2agen it links) and
//     exit; it has no environment variable;
//   - -tls-cert, -tls-key: serve every address over TLS (the card's
//     interface URLs then say so: CardWithTLS); -client-ca: verify client
//     certificates against those CAs (mtls schemes); -require-client-cert:
//     refuse connections without one;
//   - -listen FROM=TO (repeatable): listen on TO instead of the address FROM
//     of cfg (from agent.yaml), e.g. 0.0.0.0:8080 in a container; the card
//     still advertises what it was generated with;
//   - -store URL: where tasks are kept, as package storeurl reads it:
//     memory, sqlite:PATH for a SQLite file (relative paths start at the
//     working directory; the directory and file are created) or a
//     postgres:// URL. Default DefaultStore (sqlite:data/agent.db);
//   - -shutdown-grace (default cfg.ShutdownGrace, else
//     DefaultShutdownGrace), -shutdown-delay (default cfg.ShutdownDelay):
//     see Config; -shutdown-grace 0 cancels running executions at once;
//   - -grpc-reflection (default cfg.GRPCReflection): serve gRPC server
//     reflection;
//   - -long-poll-hold (default cfg.LongPollHold, else
//     server.DefaultLongPollHold): how long an A2A 1.1 long-poll (GetTask
//     with currentGeneration) is held; 0 answers at once, more than
//     server.MaxLongPollHold is refused (exit 2);
//   - -request-log (default true): log one line per call through
//     cfg.Logger (telemetry.WithRequestLog); traces and metrics follow the
//     OTEL_* variables (telemetry.FromEnvironment);
//   - one flag per field of Limits, named by LimitFlagName
//     (-max-body-bytes, -read-timeout, -write-timeout, …, and the task
//     retention of the store: -terminal-task-ttl, -max-terminal-tasks,
//     …; default cfg.Limits, else DefaultLimits): durations (0: no
//     bound), sizes in bytes (64KiB, 8MiB) and counts; docs/limits.md
//     lists them.
//
// Every flag can also be given by an environment variable, EnvName of its
// name: A2A_ and the name in capitals with '_' for '-' (A2A_TLS_CERT,
// A2A_STORE, A2A_SHUTDOWN_GRACE, …; A2A_LISTEN takes FROM=TO pairs
// separated by commas). A flag on the command line wins over its variable,
// which wins over cfg; an empty variable counts as unset. -help lists each
// flag with its variable. The environment variable store.NodeNameEnv
// (A2A_NODE_NAME) names the machine in execution records and delivery
// leases; it defaults to the hostname.
//
// A program that brings its own store sets cfg.Store: Main then opens none,
// leaves closing it to the program and refuses -store and the retention
// flags (and their variables). A program that sets cfg.Telemetry keeps it:
// Main then reads no OTEL_* variable and -request-log does not apply.
//
// Everything else comes from cfg. Scaffolded projects call Main from their
// generated runMain, so that the serving logic is the library's, not a copy
// in every project.
func Main(ctx context.Context, name string, cfg Config, args []string, stdout, stderr io.Writer) int {
	// Signals are Main's to handle from the start: the first begins the
	// shutdown, the second ends it (a program's signal.NotifyContext gets
	// them too, and its context ending counts as the first).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	s, err := parseSettings(name, cfg, args, stdout, stderr)
	if err == nil {
		cfg, err = s.apply(cfg)
	}
	if err != nil {
		var e *exitError
		if !errors.As(err, &e) {
			e = &exitError{code: 1, line: name + ": " + err.Error()}
		}
		if e.line != "" {
			fmt.Fprintln(stderr, e.line)
		}
		return e.code
	}
	m := &mainRun{name: name, settings: s, sigs: sigs, stdout: stdout, stderr: stderr}
	return m.run(ctx, cfg)
}

// exitError ends Main before the agent starts: line (when not empty) goes
// to stderr, code is the exit code.
type exitError struct {
	code int
	line string
}

func (e *exitError) Error() string { return e.line }

// exitf is an exitError whose line names the program.
func exitf(code int, name, format string, args ...any) error {
	return &exitError{code: code, line: name + ": " + fmt.Sprintf(format, args...)}
}
