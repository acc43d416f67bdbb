// Command echo serves the echo agent (internal/echo) over every A2A binding:
// JSON-RPC, HTTP+JSON and the agent card on the --http address, gRPC on the
// --grpc address. Its behaviour is a fixed contract, used to test A2A
// implementations against each other; send it "hello", "message hi",
// "stream 5", "input", "slow 500", "fail" or "reject".
//
// Usage:
//
//	go run ./examples/echo --http 127.0.0.1:8080 --grpc 127.0.0.1:8081
//
// Port 0 picks a free port. On start it prints one line per endpoint, the
// card URL first, then the task store, and serves until interrupted.
//
// Tasks are kept in memory unless --store names a durable store (package
// storeurl): --store sqlite:echo.db keeps them in a SQLite file across
// restarts. --terminal-task-ttl and --max-terminal-tasks bound the finished
// tasks kept (24 h, 10,000), --interrupted-task-ttl the tasks waiting for
// input (24 h after their last status change). Replicas sharing a PostgreSQL store
// (--store postgres://…) settle the tasks of a replica that died once its
// --run-lease (30s) has run out — at once when it ran on the same machine,
// which the environment variable A2A_NODE_NAME names (default: the
// hostname).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storeurl"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		log.Fatalf("echo: %v", err)
	}
}

// config is what the flags select.
type config struct {
	httpAddr, grpcAddr    string
	jsonrpcPath, restPath string
	publicHost            string
	token                 string
	chunkInterval         time.Duration
	allowPrivateWebhooks  bool
	store                 string
	terminalTaskTTL       time.Duration
	maxTerminalTasks      int
	interruptedTaskTTL    time.Duration
	runLease              time.Duration
	strictVersion         bool
	v03                   bool
	v11Draft              bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.httpAddr, "http", "127.0.0.1:8080", "address for JSON-RPC, HTTP+JSON and the agent card (port 0: any free port)")
	fs.StringVar(&c.grpcAddr, "grpc", "127.0.0.1:8081", `address for gRPC (port 0: any free port; "" serves no gRPC)`)
	fs.StringVar(&c.jsonrpcPath, "jsonrpc-path", "/a2a/jsonrpc", "URL path of the JSON-RPC interface")
	fs.StringVar(&c.restPath, "rest-path", "/a2a/rest", "URL path the HTTP+JSON routes are mounted under")
	fs.StringVar(&c.publicHost, "public-host", "", "host name to put in the card's URLs (default: the listening address)")
	fs.StringVar(&c.token, "token", "", `bearer token that authenticates callers for the extended card ("": any token)`)
	fs.BoolVar(&c.allowPrivateWebhooks, "allow-private-webhooks", false,
		"deliver push notifications to loopback and private-network addresses (the SSRF guard refuses them by default; for tests and private deployments)")
	fs.DurationVar(&c.chunkInterval, "chunk-interval", echo.DefaultChunkInterval, `pause between the chunks of "stream" (at most about 100ms)`)
	fs.StringVar(&c.store, "store", "memory", "`URL` of the task store: "+storeurl.Forms)
	fs.DurationVar(&c.terminalTaskTTL, "terminal-task-ttl", 24*time.Hour, "how long a finished task stays readable (0: as long as the store lasts)")
	fs.IntVar(&c.maxTerminalTasks, "max-terminal-tasks", 10000, "how many finished tasks are kept, oldest removed first (0: no limit)")
	fs.DurationVar(&c.interruptedTaskTTL, "interrupted-task-ttl", host.DefaultInterruptedTaskTTL,
		"how long a task waiting for input (INPUT_REQUIRED, AUTH_REQUIRED) is kept after its last status change (0: as long as the store lasts)")
	fs.DurationVar(&c.runLease, "run-lease", server.DefaultRunLease,
		"how long this replica's claim on the tasks it runs holds without renewal (at least 1s); replicas sharing a store settle a dead one's tasks after it")
	fs.BoolVar(&c.strictVersion, "strict-version", false,
		"read a request without A2A-Version as A2A 0.3, as the specification says, and so refuse it (default: served as the newest version, 1.0)")
	fs.BoolVar(&c.v03, "v03", false,
		"also serve A2A v0.3 (method names, routes and shapes) on JSON-RPC and HTTP+JSON, with a card that advertises both versions (docs/bindings.md)")
	fs.BoolVar(&c.v11Draft, "v11-draft", false,
		"also serve the A2A 1.1 draft (A2A-Version: 1.1: task generation fields) on every binding, with a card that lists a 1.1 interface next to each 1.0 one; "+
			"callers of 1.0, or of no version, see no 1.1 field (docs/bindings.md)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: echo [--http host:port] [--grpc host:port] [flags]\n\n"+
			"Serves the echo agent over JSON-RPC, HTTP+JSON and gRPC.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nEnvironment:\n  %s\n    \tthe name of this machine in execution records and delivery leases (default: the hostname)\n", store.NodeNameEnv)
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if !strings.HasPrefix(c.jsonrpcPath, "/") || !strings.HasPrefix(c.restPath, "/") {
		return c, fmt.Errorf("--jsonrpc-path and --rest-path must start with /")
	}
	if c.terminalTaskTTL < 0 || c.maxTerminalTasks < 0 || c.interruptedTaskTTL < 0 {
		return c, fmt.Errorf("--terminal-task-ttl, --max-terminal-tasks and --interrupted-task-ttl must not be negative (0 means no bound)")
	}
	if c.runLease < time.Second {
		return c, fmt.Errorf("--run-lease %v: must be at least 1s", c.runLease)
	}
	c.restPath = strings.TrimSuffix(c.restPath, "/")
	if c.restPath == "" || c.restPath == c.jsonrpcPath || c.jsonrpcPath == runtime.AgentCardPath {
		return c, fmt.Errorf("--rest-path %q and --jsonrpc-path %q must differ, and neither may be / or the card path", c.restPath, c.jsonrpcPath)
	}
	return c, nil
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	httpLn, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return fmt.Errorf("listening on --http %s: %w", cfg.httpAddr, err)
	}
	defer httpLn.Close()
	var grpcLn net.Listener
	if cfg.grpcAddr != "" {
		if grpcLn, err = net.Listen("tcp", cfg.grpcAddr); err != nil {
			return fmt.Errorf("listening on --grpc %s: %w", cfg.grpcAddr, err)
		}
		defer grpcLn.Close()
	}
	httpBase := "http://" + advertised(httpLn.Addr(), cfg.publicHost)
	card, cardDoc, err := cardFor(cfg, httpBase, grpcLn)
	if err != nil {
		return err
	}
	st, err := storeurl.Open(ctx, cfg.store, storeurl.Options{Retention: store.Retention{
		TerminalTaskTTL: cfg.terminalTaskTTL, MaxTerminalTasks: cfg.maxTerminalTasks,
		InterruptedTaskTTL:          cfg.interruptedTaskTTL,
		MaxTerminalTasksPerOwner:    host.DefaultMaxTerminalTasksPerOwner,
		MaxInterruptedTasksPerOwner: host.DefaultMaxInterruptedTasksPerOwner,
		MaxBytesPerOwner:            host.DefaultMaxBytesPerOwner}})
	if err != nil {
		return err // names the store and says what is wrong
	}
	// Closed after the server has shut down (deferred calls run last first).
	defer func() {
		if cerr := st.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing store %s: %w", storeurl.Describe(cfg.store), cerr))
		}
	}()
	srv, err := newServer(cfg, card, st)
	if err != nil {
		return err
	}
	httpSrv, grpcSrv, errs := serve(cfg, srv, cardDoc, httpLn, grpcLn)
	printEndpoints(stdout, cfg, httpBase, card.GetSupportedInterfaces())
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
	}
	return errors.Join(serveErr, shutdown(httpSrv, grpcSrv, srv))
}

// cardFor is the echo agent's card with an interface a binding at the
// advertised addresses, and its JSON document. With --v03 the card lists a
// 0.3 interface next to each 1.0 one and carries the v0.3 top-level fields;
// the extended card too.
func cardFor(cfg config, httpBase string, grpcLn net.Listener) (*a2av1.AgentCard, []byte, error) {
	version := a2av1.A2AServiceDesc.ProtocolVersion()
	interfaces := []*a2av1.AgentInterface{
		{Url: httpBase + cfg.jsonrpcPath, ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: version},
		{Url: httpBase + cfg.restPath, ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: version},
	}
	if grpcLn != nil {
		interfaces = append(interfaces, &a2av1.AgentInterface{
			Url: advertised(grpcLn.Addr(), cfg.publicHost), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: version})
	}
	if cfg.v11Draft {
		for _, itf := range interfaces[:len(interfaces):len(interfaces)] {
			interfaces = append(interfaces, &a2av1.AgentInterface{Url: itf.GetUrl(), ProtocolBinding: itf.GetProtocolBinding(), ProtocolVersion: v11Draft})
		}
	}
	card := echo.Card(interfaces...)
	if cfg.v03 {
		doc, err := host.CardWithV03(card)
		return card, doc, err
	}
	doc, err := runtime.MarshalJSON(card)
	return card, doc, err
}

// v11Draft is the version --v11-draft serves beside 1.0: the newest of
// a2a/v1's version table (the A2A 1.1 draft).
var v11Draft = a2av1.A2AVersions.Versions[len(a2av1.A2AVersions.Versions)-1]

// newServer is the echo agent's server on the store.
func newServer(cfg config, card *a2av1.AgentCard, st store.Store) (*server.Server, error) {
	opts := []server.Option{
		server.WithStore(st),
		server.WithExtendedCard(echo.ExtendedCard(card)),
		server.WithRunLease(cfg.runLease),
		// Tasks belong to the bearer subject that created them; anonymous
		// callers reach a task by its id and list only a contextId they
		// name, never each other's tasks (see server.WithTaskOwner).
		server.WithTaskOwner(server.OwnerByCallerID),
	}
	if cfg.allowPrivateWebhooks {
		opts = append(opts, server.WithPushOptions(push.AllowPrivateNetworks()))
	}
	if cfg.v03 {
		// Webhooks registered through v0.3 are posted the v0.3 Task.
		opts = append(opts, server.WithPushOptions(host.V03PushOptions()...))
	}
	return server.New(card, &echo.Agent{ChunkInterval: cfg.chunkInterval}, opts...)
}

// serve starts serving the card, JSON-RPC and HTTP+JSON on httpLn and gRPC
// on grpcLn (when there is one); errs receives a server's failure.
//
// The limits of scaffolded agents apply: timeouts for slow bodies, idle
// connections and clients that never read; bounded headers and gRPC
// streams (docs/limits.md). Every binding identifies callers the same way;
// the server reads the identity from the call.
func serve(cfg config, srv *server.Server, cardDoc []byte, httpLn, grpcLn net.Listener) (*http.Server, *grpc.Server, <-chan error) {
	limits := host.DefaultLimits()
	bindingOpts := append(limits.HandlerOptions(), runtime.WithAuthenticator(echo.BearerAuthenticator(cfg.token), `Bearer realm="echo"`))
	if cfg.strictVersion {
		bindingOpts = append(bindingOpts, runtime.WithVersionPolicy(runtime.VersionStrict))
	}
	if cfg.v11Draft {
		bindingOpts = append(bindingOpts, runtime.WithSupportedVersions(v11Draft, a2av1.A2AServiceDesc.ProtocolVersion()))
	}
	httpOpts := bindingOpts
	if cfg.v03 {
		httpOpts = append(append([]runtime.HandlerOption(nil), bindingOpts...), host.V03HandlerOptions()...)
	}
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardJSONHandler(cardDoc))
	mux.Handle(cfg.jsonrpcPath, a2av1.NewA2AServiceJSONRPCHandler(srv, httpOpts...))
	mux.Handle(cfg.restPath+"/", a2av1.NewA2AServiceRESTHandler(srv, httpOpts...))
	httpSrv := limits.HTTPServer(mux)
	errs := make(chan error, 2)
	go func() { errs <- httpSrv.Serve(httpLn) }()
	if grpcLn == nil {
		return httpSrv, nil, errs
	}
	grpcSrv := grpc.NewServer(append(limits.GRPCServerOptions(), grpc.UnknownServiceHandler(runtime.GRPCUnknownServiceHandler(bindingOpts...)))...)
	a2av1.RegisterA2AServiceGRPC(grpcSrv, srv, bindingOpts...)
	if cfg.v03 {
		a2av03grpc.Register(grpcSrv, srv, bindingOpts...) // a2a.v1.A2AService: v0.3 over gRPC
	}
	go func() { errs <- grpcSrv.Serve(grpcLn) }()
	return httpSrv, grpcSrv, errs
}

// printEndpoints prints the card URL, one line an interface and the store.
func printEndpoints(stdout io.Writer, cfg config, httpBase string, interfaces []*a2av1.AgentInterface) {
	fmt.Fprintf(stdout, "agent card  %s%s\n", httpBase, runtime.AgentCardPath)
	for _, itf := range interfaces {
		if itf.GetProtocolVersion() != a2av1.A2AServiceDesc.ProtocolVersion() {
			continue // the same URL as its 1.0 twin (--v03, --v11-draft); the card lists both
		}
		fmt.Fprintf(stdout, "%-11s %s\n", itf.GetProtocolBinding(), itf.GetUrl())
	}
	fmt.Fprintf(stdout, "%-11s %s\n", "store", storeurl.Describe(cfg.store))
}

// shutdown stops accepting calls, gives open calls a few seconds, then ends
// the agent's work.
func shutdown(httpSrv *http.Server, grpcSrv *grpc.Server, srv *server.Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	if err := httpSrv.Shutdown(ctx); err != nil {
		errs = append(errs, httpSrv.Close()) // streams still open: cut them
	}
	if grpcSrv != nil {
		stopped := make(chan struct{})
		go func() {
			grpcSrv.GracefulStop()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-ctx.Done():
			grpcSrv.Stop()
			<-stopped
		}
	}
	if err := srv.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// advertised is the host:port clients should use for addr: the public host
// when given, localhost for an unspecified listening address.
func advertised(addr net.Addr, publicHost string) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	switch {
	case publicHost != "":
		host = publicHost
	case host == "" || host == "0.0.0.0" || host == "::":
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
