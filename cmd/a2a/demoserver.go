package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
)

// demo-server serves this project's echo agent (internal/echo: the agent
// examples/echo serves, with its fixed behaviour contract) on loopback, so
// that a2a alone is enough to practise every command. Tasks live in memory.

func (a *app) demoServerCommand() *cobra.Command {
	var (
		httpAddr, grpcAddr, token string
		chunkInterval             time.Duration
	)
	cmd := &cobra.Command{
		Use:   "demo-server",
		Short: "Run a local demo agent to practise the commands on",
		Long: `demo-server runs the echo agent on JSON-RPC, HTTP+JSON and gRPC until
Ctrl-C, and prints where its card is. The first word of a message picks
what it does: "message" answers with a direct message, "stream N" streams N
chunks, "input" waits for a follow-up (INPUT_REQUIRED), "slow MS" works for
MS milliseconds, "fail" and "reject" end the task so; anything else is
echoed as an artifact. Any bearer token (or --token's) authenticates;
webhooks on loopback are allowed, for trying a2a webhook listen.`,
		Example: `  a2a demo-server &
  a2a send -a http://127.0.0.1:8080 hello
  a2a send -a http://127.0.0.1:8080 --stream "stream 5"
  a2a demo-server --http 127.0.0.1:0 --grpc ""`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serveDemo(cmd.Context(), httpAddr, grpcAddr, token, chunkInterval)
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http", "127.0.0.1:8080", "`ADDR` of JSON-RPC, HTTP+JSON and the card (port 0: any free port)")
	f.StringVar(&grpcAddr, "grpc", "127.0.0.1:8081", "`ADDR` of gRPC (\"\": none)")
	f.StringVar(&token, "token", "", "the one bearer token accepted (default: any)")
	f.DurationVar(&chunkInterval, "chunk-interval", echo.DefaultChunkInterval, "pause between the chunks of \"stream\"")
	return cmd
}

func (a *app) serveDemo(ctx context.Context, httpAddr, grpcAddr, token string, chunkInterval time.Duration) error {
	l, err := listenDemo(httpAddr, grpcAddr)
	if err != nil {
		return err
	}
	defer l.close()
	card := echo.Card(l.interfaces...)
	cardDoc, err := runtime.MarshalJSON(card)
	if err != nil {
		return err
	}
	srv, err := server.New(card, &echo.Agent{ChunkInterval: chunkInterval},
		server.WithStore(store.NewMemory()),
		server.WithExtendedCard(echo.ExtendedCard(card)),
		server.WithTaskOwner(server.OwnerByCallerID),
		server.WithPushOptions(push.AllowPrivateNetworks()))
	if err != nil {
		return err
	}
	opts := []runtime.HandlerOption{runtime.WithAuthenticator(echo.BearerAuthenticator(token), `Bearer realm="echo"`)}
	httpSrv := &http.Server{Handler: demoMux(cardDoc, srv, opts), ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, 2)
	go func() { errs <- httpSrv.Serve(l.http) }()
	var grpcSrv *grpc.Server
	if l.grpc != nil {
		grpcSrv = grpc.NewServer()
		a2av1.RegisterA2AServiceGRPC(grpcSrv, srv, opts...)
		go func() { errs <- grpcSrv.Serve(l.grpc) }()
	}
	labeled(a.env.stdout, "Agent Card", l.base+runtime.AgentCardPath)
	for _, iface := range l.interfaces {
		labeled(a.env.stdout, "Interface", iface.GetProtocolBinding()+" "+iface.GetUrl())
	}
	labeled(a.env.stdout, "Try", "a2a send -a "+l.base+" hello")
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(sctx)
	if grpcSrv != nil {
		grpcSrv.Stop()
	}
	_ = srv.Shutdown(sctx)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("demo-server: %w", serveErr)
	}
	return nil
}

// demoListeners are the demo server's listeners and the interfaces its
// card declares on them.
type demoListeners struct {
	http       net.Listener
	grpc       net.Listener // nil without --grpc
	base       string       // the HTTP listener's base URL
	interfaces []*a2av1.AgentInterface
}

// listenDemo listens on httpAddr for JSON-RPC and HTTP+JSON and, unless
// grpcAddr is empty, on grpcAddr for gRPC.
func listenDemo(httpAddr, grpcAddr string) (*demoListeners, error) {
	httpLn, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return nil, usagef("--http %s: %v", httpAddr, err)
	}
	l := &demoListeners{http: httpLn, base: "http://" + httpLn.Addr().String()}
	version := a2av1.A2AServiceDesc.ProtocolVersion()
	l.interfaces = []*a2av1.AgentInterface{
		{Url: l.base + "/a2a/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: version},
		{Url: l.base + "/a2a/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: version},
	}
	if grpcAddr == "" {
		return l, nil
	}
	if l.grpc, err = net.Listen("tcp", grpcAddr); err != nil {
		httpLn.Close()
		return nil, usagef("--grpc %s: %v", grpcAddr, err)
	}
	l.interfaces = append(l.interfaces, &a2av1.AgentInterface{Url: l.grpc.Addr().String(), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: version})
	return l, nil
}

// close closes the listeners.
func (l *demoListeners) close() {
	l.http.Close()
	if l.grpc != nil {
		l.grpc.Close()
	}
}

// demoMux serves the card document and the JSON-RPC and HTTP+JSON bindings of srv.
func demoMux(cardDoc []byte, srv *server.Server, opts []runtime.HandlerOption) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardJSONHandler(cardDoc))
	mux.Handle("/a2a/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv, opts...))
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(srv, opts...))
	return mux
}
