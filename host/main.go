package host

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storeurl"
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
// -store is not given (an empty value counts as unset).
const StoreEnv = "A2A_STORE"

// Main is the whole command-line life of an agent program: it reads its
// flags, opens the task store, starts the agent of cfg, prints the card URL,
// one line per binding and the store, serves until ctx is done, shuts down,
// closes the store and returns the process's exit code (0 after -help, 2 for
// bad flags, 1 for any other failure, such as a store that cannot be
// opened). name is the program name in usage text and error messages. The
// flags:
//
//   - -tls-cert, -tls-key: serve every address over TLS; -client-ca: verify
//     client certificates against those CAs (mtls schemes);
//   - -listen FROM=TO (repeatable): listen on TO instead of the address FROM
//     of cfg (from agent.yaml), e.g. 0.0.0.0:8080 in a container; the card
//     still advertises what it was generated with;
//   - -store URL: where tasks are kept, as package storeurl reads it:
//     memory, or sqlite:PATH for a SQLite file (relative paths start at
//     the working directory; the directory and file are created). Without
//     the flag, the StoreEnv environment variable (A2A_STORE) gives it,
//     else DefaultStore (sqlite:data/agent.db);
//   - -terminal-task-ttl, -max-terminal-tasks: how long and how many
//     finished tasks the store keeps (0 = no bound).
//
// A program that brings its own store sets cfg.Store: Main then opens none,
// leaves closing it to the program and refuses -store and the retention
// flags. (A store passed as server.WithStore in cfg.ServerOptions also wins
// over the one of -store, but Main still opens and closes that one: prefer
// cfg.Store.)
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
	ttl := flags.Duration("terminal-task-ttl", DefaultTerminalTaskTTL, "how long a finished task stays readable (0: no limit)")
	maxTerminal := flags.Int("max-terminal-tasks", DefaultMaxTerminalTasks, "how many finished tasks are kept, oldest removed first (0: no limit)")
	storeFlag := flags.String("store", DefaultStore, "`URL` of the task store: memory, or sqlite:PATH for a SQLite file (created when missing; a relative PATH starts at the working directory); without this flag $"+StoreEnv+" if set, else the default")
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
	if err := listen.check(cfg.Bindings); err != nil {
		fmt.Fprintf(stderr, "%s: -listen: %v\n", name, err)
		return 2
	}
	if *ttl < 0 || *maxTerminal < 0 {
		fmt.Fprintf(stderr, "%s: -terminal-task-ttl and -max-terminal-tasks must not be negative (0 means no bound)\n", name)
		return 2
	}
	cfg.Listen = listen.wrap(cfg.Listen)
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if cfg.Store != nil && (given["store"] || given["terminal-task-ttl"] || given["max-terminal-tasks"]) {
		fmt.Fprintf(stderr, "%s: -store, -terminal-task-ttl and -max-terminal-tasks do not apply: the program keeps its tasks in its own store\n", name)
		return 2
	}
	storeURL, fromEnv := *storeFlag, false
	if v := os.Getenv(StoreEnv); !given["store"] && v != "" {
		storeURL, fromEnv = v, true
	}
	if *tlsCert != "" || *tlsKey != "" || *clientCA != "" {
		tlsConfig, err := auth.ServerTLSConfig(*tlsCert, *tlsKey, *clientCA)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		cfg.TLS = tlsConfig
	}
	storeLine := "provided by the program"
	var opened store.Store // the store Main opened and closes; nil for cfg.Store
	if cfg.Store == nil {
		st, err := storeurl.Open(ctx, storeURL, storeurl.Options{TerminalTaskTTL: *ttl, MaxTerminalTasks: *maxTerminal, Logger: cfg.Logger})
		if err != nil {
			if fromEnv {
				fmt.Fprintf(stderr, "%s: %v (from $%s)\n", name, err, StoreEnv)
			} else {
				fmt.Fprintf(stderr, "%s: %v\n", name, err)
			}
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
	code := 0
	if err := agent.Wait(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		code = 1
	}
	return max(code, closeStore())
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
  # keep tasks in memory only: nothing survives a restart
  %[1]s -store memory
  # keep tasks in a SQLite file elsewhere (-store wins over the variable)
  %[3]s=sqlite:/var/lib/agent/agent.db %[1]s
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
