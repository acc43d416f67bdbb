package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
)

// serveConfig holds the flags of "sdkpeer serve".
type serveConfig struct {
	httpAddr      string
	grpcAddr      string
	jsonrpcPath   string
	restPath      string
	chunkInterval time.Duration
	slowDefault   time.Duration
	watchStdin    bool
	logLevel      string
	version       string
}

func runServe(args []string) error {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&cfg.httpAddr, "http", "127.0.0.1:0", "listen address of the card, JSON-RPC and HTTP+JSON endpoints")
	fs.StringVar(&cfg.grpcAddr, "grpc", "127.0.0.1:0", "listen address of the gRPC endpoint (empty: no gRPC)")
	fs.StringVar(&cfg.jsonrpcPath, "jsonrpc-path", "/a2a/jsonrpc", "mount path of the JSON-RPC endpoint")
	fs.StringVar(&cfg.restPath, "rest-path", "/a2a/rest", "mount path of the HTTP+JSON endpoint")
	fs.DurationVar(&cfg.chunkInterval, "chunk-interval", 10*time.Millisecond, "pause between two artifact chunks of \"stream N\" (examples/echo's default; 0 or less: none)")
	fs.DurationVar(&cfg.slowDefault, "slow", 2*time.Second, "how long \"slow\" stays WORKING without an argument")
	fs.BoolVar(&cfg.watchStdin, "watch-stdin", true, "exit when standard input reaches end of file")
	fs.StringVar(&cfg.logLevel, "log", "error", "SDK log level on stderr: debug, info, warn, error or off")
	fs.StringVar(&cfg.version, "version", "1.0", "A2A protocol version to serve: 1.0, or 0.3 (only the SDK's v0.3 handlers: a2acompat/a2av0 JSON-RPC and HTTP+JSON, a2agrpc/v0 gRPC, and its v0.3 card)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !strings.HasPrefix(cfg.jsonrpcPath, "/") || !strings.HasPrefix(cfg.restPath, "/") || cfg.jsonrpcPath == cfg.restPath {
		return fmt.Errorf("mount paths must start with / and differ (got -jsonrpc-path %q, -rest-path %q)", cfg.jsonrpcPath, cfg.restPath)
	}
	if cfg.version != "1.0" && cfg.version != "0.3" {
		return fmt.Errorf("-version %q: want 1.0 or 0.3", cfg.version)
	}
	return serve(cfg)
}

func serve(cfg serveConfig) error {
	logger, err := newLogger(cfg.logLevel)
	if err != nil {
		return err
	}
	slog.SetDefault(logger)

	httpLn, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return fmt.Errorf("listen on -http %s: %w", cfg.httpAddr, err)
	}
	defer httpLn.Close()
	var grpcLn net.Listener
	if cfg.grpcAddr != "" {
		if grpcLn, err = net.Listen("tcp", cfg.grpcAddr); err != nil {
			return fmt.Errorf("listen on -grpc %s: %w", cfg.grpcAddr, err)
		}
		defer grpcLn.Close()
	}

	base := "http://" + httpLn.Addr().String()
	endpoints := endpointSet{
		card:    base + a2asrv.WellKnownAgentCardPath,
		jsonrpc: base + cfg.jsonrpcPath,
		rest:    base + cfg.restPath,
	}
	if grpcLn != nil {
		endpoints.grpc = grpcLn.Addr().String()
	}
	card := echoCard(endpoints)
	v03 := cfg.version == "0.3"
	if v03 {
		for _, iface := range card.SupportedInterfaces {
			iface.ProtocolVersion = a2av0.Version
		}
	}

	handler := a2asrv.NewHandler(
		&echoAgent{chunkInterval: cfg.chunkInterval, slowDefault: cfg.slowDefault},
		a2asrv.WithCapabilityChecks(&card.Capabilities),
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(pushSenderConfig())),
		a2asrv.WithExtendedAgentCard(extendedEchoCard(card)),
		// The default store lists only an authenticated caller's tasks and
		// refuses ListTasks to everyone else; the echo agent has no users.
		a2asrv.WithTaskStore(taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{
			Authenticator: func(context.Context) (string, error) { return "anonymous", nil },
		})),
		a2asrv.WithLogger(logger),
	)

	mux := http.NewServeMux()
	if v03 {
		// The v0.3 card (top-level url, preferredTransport,
		// additionalInterfaces, protocolVersion 0.3.0, next to
		// supportedInterfaces listing the 0.3 interfaces) and the v0.3
		// handlers only: no v1.0 method, route or gRPC service.
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
		mux.Handle(cfg.jsonrpcPath, a2av0.NewJSONRPCHandler(handler))
		mux.Handle(cfg.restPath+"/", http.StripPrefix(cfg.restPath, a2av0.NewRESTHandler(handler)))
	} else {
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
		mux.Handle(cfg.jsonrpcPath, a2asrv.NewJSONRPCHandler(handler))
		// The SDK's REST router expects its routes at the root.
		mux.Handle(cfg.restPath+"/", http.StripPrefix(cfg.restPath, a2asrv.NewRESTHandler(handler)))
	}
	httpSrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	var grpcSrv *grpc.Server
	if grpcLn != nil {
		grpcSrv = grpc.NewServer()
		if v03 {
			a2agrpcv0.NewHandler(handler).RegisterWith(grpcSrv)
		} else {
			a2agrpc.NewHandler(handler).RegisterWith(grpcSrv)
		}
	}

	errc := make(chan error, 2)
	go func() { errc <- httpSrv.Serve(httpLn) }()
	if grpcSrv != nil {
		go func() { errc <- grpcSrv.Serve(grpcLn) }()
	}

	// One line per endpoint, card first: the tests and the load tool read them.
	fmt.Printf("card %s\n", endpoints.card)
	fmt.Printf("jsonrpc %s\n", endpoints.jsonrpc)
	fmt.Printf("rest %s\n", endpoints.rest)
	if grpcSrv != nil {
		fmt.Printf("grpc %s\n", endpoints.grpc)
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	stdinClosed := make(chan struct{})
	if cfg.watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			close(stdinClosed)
		}()
	}

	var serveErr error
	select {
	case <-stop:
	case <-stdinClosed:
	case serveErr = <-errc:
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(ctx)
	if grpcSrv != nil {
		stopGRPC(ctx, grpcSrv)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("serving: %w", serveErr)
	}
	return nil
}

// stopGRPC stops gracefully, or hard when open streams outlive ctx.
func stopGRPC(ctx context.Context, s *grpc.Server) {
	done := make(chan struct{})
	go func() {
		s.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.Stop()
	}
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	switch level {
	case "off":
		return slog.New(slog.DiscardHandler), nil
	case "debug":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return nil, fmt.Errorf("-log %q: want debug, info, warn, error or off", level)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}

// endpointSet is where the server listens, as printed on start.
type endpointSet struct {
	card, jsonrpc, rest, grpc string
}

// echoCard describes the echo agent the way examples/echo does: every
// interface served, streaming, push and the extended card enabled. It also
// declares a bearer scheme and a requirement for it, so that readers of the
// card meet the SDK's securityRequirements encoding ({"schemes":{"x":[…]}});
// the SDK server does not enforce it.
func echoCard(ep endpointSet) *a2a.AgentCard {
	ifaces := []*a2a.AgentInterface{
		a2a.NewAgentInterface(ep.jsonrpc, a2a.TransportProtocolJSONRPC),
		a2a.NewAgentInterface(ep.rest, a2a.TransportProtocolHTTPJSON),
	}
	if ep.grpc != "" {
		ifaces = append(ifaces, a2a.NewAgentInterface(ep.grpc, a2a.TransportProtocolGRPC))
	}
	return &a2a.AgentCard{
		Name:                "echo (a2a-go SDK)",
		Description:         "The examples/echo contract served by the official Go SDK, for interoperability tests and side-by-side benchmarks.",
		Version:             "1.0.0",
		SupportedInterfaces: ifaces,
		Capabilities:        a2a.AgentCapabilities{Streaming: true, PushNotifications: true, ExtendedAgentCard: true},
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "Not enforced by this test peer."},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{"bearer": a2a.SecuritySchemeScopes{"echo"}}},
		Skills: []a2a.AgentSkill{{
			ID:          "echo",
			Name:        "Echo",
			Description: "Echoes the text; control words message, stream [N], input, slow [MS], fail and reject select other behaviours.",
			Tags:        []string{"echo", "test"},
			Examples:    []string{"hello", "stream 5", "slow 500"},
		}},
	}
}

// extendedEchoCard is the public card plus one skill, as examples/echo serves it.
func extendedEchoCard(public *a2a.AgentCard) *a2a.AgentCard {
	ext := *public
	ext.Skills = append(append([]a2a.AgentSkill(nil), public.Skills...), a2a.AgentSkill{
		ID:          "echo-extended",
		Name:        "Extended echo",
		Description: "Listed only in the extended agent card.",
		Tags:        []string{"echo", "extended"},
	})
	return &ext
}
