package host

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/internal/version"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storeurl"
	"github.com/a2agen/a2agen/telemetry"
)

// Defaults of the task-retention flags of Main.
const (
	DefaultTerminalTaskTTL  = 24 * time.Hour
	DefaultMaxTerminalTasks = 10_000
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
//   - -terminal-task-ttl, -max-terminal-tasks: how long and how many
//     finished tasks the store keeps (0 = no bound);
//   - -shutdown-grace (default cfg.ShutdownGrace, else
//     DefaultShutdownGrace), -shutdown-delay (default cfg.ShutdownDelay):
//     see Config; -shutdown-grace 0 cancels running executions at once;
//   - -grpc-reflection (default cfg.GRPCReflection): serve gRPC server
//     reflection;
//   - -request-log (default true): log one line per call through
//     cfg.Logger (telemetry.WithRequestLog); traces and metrics follow the
//     OTEL_* variables (telemetry.FromEnvironment);
//   - one flag per field of Limits, named by LimitFlagName
//     (-max-body-bytes, -read-timeout, -write-timeout, …; default
//     cfg.Limits, else DefaultLimits): durations (0: no bound), sizes in
//     bytes (64KiB, 8MiB) and counts; docs/limits.md lists them.
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
// flags (and their variables). (A store passed as server.WithStore in
// cfg.ServerOptions also wins over the one of -store, but Main still opens
// and closes that one: prefer cfg.Store.)
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

	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	tlsCert := flags.String("tls-cert", "", "PEM certificate (chain) to serve TLS with")
	tlsKey := flags.String("tls-key", "", "PEM private key of -tls-cert")
	clientCA := flags.String("client-ca", "", "PEM CA certificates client certificates are verified against (mtls)")
	requireCert := flags.Bool("require-client-cert", false, "refuse TLS connections without a client certificate verified against -client-ca (health probes need one too)")
	listen := listenFlag{}
	flags.Var(&listen, "listen", "listen on TO instead of the agent.yaml address FROM (`FROM=TO`, repeatable; in the variable, separated by commas)")
	ttl := flags.Duration("terminal-task-ttl", DefaultTerminalTaskTTL, "how long a finished task stays readable (0: no limit)")
	maxTerminal := flags.Int("max-terminal-tasks", DefaultMaxTerminalTasks, "how many finished tasks are kept, oldest removed first (0: no limit)")
	storeFlag := flags.String("store", DefaultStore, "`URL` of the task store: memory, sqlite:PATH for a SQLite file (created when missing; a relative PATH starts at the working directory), or postgres://…")
	defaultGrace := cfg.ShutdownGrace
	if defaultGrace == 0 {
		defaultGrace = DefaultShutdownGrace
	}
	grace := flags.Duration("shutdown-grace", max(defaultGrace, 0), "how long running tasks may go on after SIGTERM or SIGINT before they are canceled (0: cancel at once)")
	delay := flags.Duration("shutdown-delay", cfg.ShutdownDelay, "how long the agent keeps serving after SIGTERM or SIGINT, answering /readyz with 503, before it stops accepting calls")
	reflect := flags.Bool("grpc-reflection", cfg.GRPCReflection, "serve gRPC server reflection (grpc.reflection.v1) for tools like grpcurl")
	showVersion := flags.Bool(versionFlag, false, "print what the program was built from (its module version, commit, Go version and a2agen) and exit")
	requestLog := flags.Bool("request-log", true, "log one line per call (binding, operation, tenant, task, outcome, duration); traces and metrics follow the OTEL_* variables")
	// One flag per field of Limits (limits_flags.go), defaulting to the
	// program's own limits: flag, then variable, then cfg.Limits, then
	// DefaultLimits.
	limits := cfg.Limits.withDefaults()
	limitFlags(flags, &limits)
	flags.Usage = func() { usage(flags, name, cfg) }
	if err := flags.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprint(stdout, version.Line(name))
		return 0
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s takes no arguments, got %q; see %s -help\n", name, flags.Args(), name)
		return 2
	}
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	fromEnv, err := applyEnv(flags, given)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	// source names where a flag's value came from, for error messages.
	source := func(flagName string) string {
		if fromEnv[flagName] {
			return "$" + EnvName(flagName)
		}
		return "-" + flagName
	}
	if err := listen.check(cfg.Bindings); err != nil {
		fmt.Fprintf(stderr, "%s: %s: %v\n", name, source("listen"), err)
		return 2
	}
	for _, f := range []struct {
		name, zero string
		negative   bool
	}{
		{"terminal-task-ttl", "no bound", *ttl < 0},
		{"max-terminal-tasks", "no bound", *maxTerminal < 0},
		{"shutdown-grace", "none", *grace < 0},
		{"shutdown-delay", "none", *delay < 0},
	} {
		if f.negative {
			fmt.Fprintf(stderr, "%s: %s must not be negative (0 means %s)\n", name, source(f.name), f.zero)
			return 2
		}
	}
	cfg.Listen = listen.wrap(cfg.Listen)
	cfg.Limits = limits
	if cfg.Store != nil {
		for _, n := range []string{"store", "terminal-task-ttl", "max-terminal-tasks", "interrupted-task-ttl", "max-terminal-tasks-per-owner", "max-interrupted-tasks-per-owner", "max-bytes-per-owner"} {
			switch {
			case given[n]:
				fmt.Fprintf(stderr, "%s: -store, -terminal-task-ttl, -max-terminal-tasks, -interrupted-task-ttl and the per-owner task maximums do not apply: the program keeps its tasks in its own store\n", name)
				return 2
			case fromEnv[n]:
				fmt.Fprintf(stderr, "%s: $%s does not apply: the program keeps its tasks in its own store\n", name, EnvName(n))
				return 2
			}
		}
	}
	if *tlsCert != "" || *tlsKey != "" || *clientCA != "" {
		tlsConfig, err := auth.ServerTLSConfig(*tlsCert, *tlsKey, *clientCA)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v%s\n", name, err, envNote(fromEnv, "tls-cert", "tls-key", "client-ca"))
			return 1
		}
		cfg.TLS = tlsConfig
	}
	if *requireCert {
		if cfg.TLS == nil || cfg.TLS.ClientCAs == nil {
			fmt.Fprintf(stderr, "%s: %s needs TLS with client CAs to verify the certificates against (-tls-cert, -tls-key, -client-ca)\n", name, source("require-client-cert"))
			return 2
		}
		cfg.TLS = cfg.TLS.Clone()
		cfg.TLS.ClientAuth = tls.RequireAndVerifyClientCert
	}
	cfg.ShutdownGrace, cfg.ShutdownDelay, cfg.GRPCReflection = *grace, *delay, *reflect
	if *grace == 0 {
		cfg.ShutdownGrace = -1 // none (Config's zero is the default)
	}
	storeURL := *storeFlag
	storeLine := "provided by the program"
	var opened store.Store // the store Main opened and closes; nil for cfg.Store
	if cfg.Store == nil {
		l := cfg.Limits.withDefaults()
		st, err := storeurl.Open(ctx, storeURL, storeurl.Options{TerminalTaskTTL: *ttl, MaxTerminalTasks: *maxTerminal,
			InterruptedTaskTTL: off(l.InterruptedTaskTTL), Logger: cfg.Logger,
			MaxTerminalTasksPerOwner: max(l.MaxTerminalTasksPerOwner, 0), MaxInterruptedTasksPerOwner: max(l.MaxInterruptedTasksPerOwner, 0),
			MaxBytesPerOwner: max(l.MaxBytesPerOwner, 0)})
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v%s\n", name, err, envNote(fromEnv, "store"))
			return 1
		}
		opened, cfg.Store, storeLine = st, st, storeurl.Describe(storeURL)
	}
	closeStore := func() int {
		if opened == nil {
			return 0
		}
		if err := opened.Close(); err != nil {
			fmt.Fprintf(stderr, "%s: closing store %s: %v\n", name, storeLine, err)
			return 1
		}
		return 0
	}
	tel, err := telemetry.FromEnvironment(ctx, cardName(cfg.CardJSON), telemetry.WithLogger(loggerOf(cfg)), telemetry.WithRequestLog(*requestLog))
	if err != nil {
		fmt.Fprintf(stderr, "%s: telemetry: %v\n", name, err)
		closeStore()
		return 1
	}
	withTelemetry(&cfg, tel)
	// Flushes the last spans and metrics once the agent has stopped.
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "%s: telemetry: %v\n", name, err)
		}
	}()
	agent, err := Start(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		closeStore()
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
	fmt.Fprintf(stdout, "%-9s %s\n", "store", storeLine)

	signals := 0
	var serveErr error
	select {
	case <-ctx.Done():
	case <-sigs:
		signals++
	case serveErr = <-agent.errs:
		fmt.Fprintf(stderr, "%s: %v\n", name, serveErr)
	}
	fmt.Fprintf(stderr, "%s: shutting down: %s; a second interrupt exits at once\n", name, agent.shutdownPlan())
	done := make(chan error, 1)
	go func() { done <- agent.Shutdown(context.Background()) }()
	for {
		select {
		case err := <-done:
			code := 0
			if err != nil || serveErr != nil {
				if err != nil {
					fmt.Fprintf(stderr, "%s: %v\n", name, err)
				}
				code = 1
			}
			return max(code, closeStore())
		case sig := <-sigs:
			if signals++; signals < 2 {
				continue
			}
			fmt.Fprintf(stderr, "%s: %v again: exiting at once, without waiting for running tasks\n", name, sig)
			if n, ok := sig.(syscall.Signal); ok {
				return 128 + int(n)
			}
			return 1
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

// usage prints the help of Main, with the program's own addresses in the
// examples.
func usage(flags *flag.FlagSet, name string, cfg Config) {
	out := flags.Output()
	fmt.Fprintf(out, "Usage: %s [flags]\n\nServes the A2A agent on the addresses of its agent.yaml:\n", name)
	for _, b := range cfg.Bindings {
		fmt.Fprintf(out, "  %-9s %s%s\n", b.Protocol, b.Address, b.Path)
	}
	fmt.Fprintf(out, "\nTasks are kept in %s unless -store or $%s names another store:\n  %s\n", DefaultStore, StoreEnv, storeurl.Forms)
	fmt.Fprintf(out, `
Every HTTP address answers GET %s (alive) and GET %s (ready: the store
answers and no shutdown has begun; else 503); gRPC addresses serve
grpc.health.v1. On SIGTERM or SIGINT the agent turns not ready, stops
accepting calls, lets running tasks go on for -shutdown-grace, then cancels
them; every open stream ends with its task's state; a second signal exits at
once.
`, HealthzPath, ReadyzPath)
	fmt.Fprintf(out, "\n$%s names this machine in execution records and delivery leases (default: the hostname);\n"+
		"set it where machines may share a hostname (to a Kubernetes pod's name, say).\n", store.NodeNameEnv)
	fmt.Fprintf(out, "\nLimits on bodies, headers, timeouts and streams have a flag each (-max-body-bytes,\n"+
		"-read-timeout, -write-timeout, …); their defaults are the program's (docs/limits.md).\n")
	fmt.Fprintf(out, "\nFlags, each also settable by the environment variable shown (the flag wins):\n")
	printFlags(out, flags)
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
  A2A_LISTEN=%[2]s=0.0.0.0:8080 %[1]s
  # serve HTTPS and gRPC over TLS
  %[1]s -tls-cert cert.pem -tls-key key.pem
  # keep finished tasks for an hour, at most 1000 of them
  %[1]s -terminal-task-ttl 1h -max-terminal-tasks 1000
  # keep tasks in memory only: nothing survives a restart
  %[1]s -store memory
  # keep tasks in a SQLite file elsewhere (-store wins over the variable)
  %[3]s=sqlite:/var/lib/agent/agent.db %[1]s
  # give running tasks 30s on SIGTERM
  %[1]s -shutdown-grace 30s
  # accept request bodies up to 1 MiB; drop clients that read nothing for 10s
  %[1]s -max-body-bytes 1MiB -write-timeout 10s
`, name, from, StoreEnv)
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

// envItems splits the value of A2A_LISTEN at commas.
func (l listenFlag) envItems(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// check reports a FROM that is the address of no binding.
func (l listenFlag) check(bindings []Binding) error {
	have := map[string]bool{}
	var addrs []string
	for _, b := range bindings {
		if !have[b.Address] {
			have[b.Address] = true
			addrs = append(addrs, b.Address)
		}
	}
	for _, from := range slices.Sorted(maps.Keys(l)) {
		if !have[from] {
			return fmt.Errorf("no binding listens on %s; the agent's addresses are %s", from, strings.Join(addrs, ", "))
		}
	}
	return nil
}

// wrap returns a Config.Listen that opens TO where the agent asks for FROM.
// The bindings keep their agent.yaml addresses, so each of them still gets
// the listener of its own address: two FROMs moved to port 0 get two ports,
// and a FROM moved onto another binding's address fails to listen instead of
// joining that binding's listener.
func (l listenFlag) wrap(listen func(network, address string) (net.Listener, error)) func(network, address string) (net.Listener, error) {
	if len(l) == 0 {
		return listen
	}
	if listen == nil {
		listen = net.Listen
	}
	return func(network, address string) (net.Listener, error) {
		if to, ok := l[address]; ok {
			address = to
		}
		return listen(network, address)
	}
}
