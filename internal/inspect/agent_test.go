package inspect

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// startEcho serves the echo agent in-process on loopback: JSON-RPC and
// HTTP+JSON on one HTTP server (with the card), gRPC on another listener,
// webhooks to loopback allowed, the extended card for bearer token
// "s3cret-token".
func startEcho(t *testing.T) string {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + hs.Listener.Addr().String()
	card := echo.Card(
		&a2av1.AgentInterface{Url: base + "/a2a/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: base + "/a2a/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: gl.Addr().String(), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0"},
	)
	srv, err := server.New(card, &echo.Agent{}, server.WithExtendedCard(echo.ExtendedCard(card)),
		server.WithPushOptions(push.AllowPrivateNetworks()))
	if err != nil {
		t.Fatal(err)
	}
	opts := []runtime.HandlerOption{runtime.WithAuthenticator(echo.BearerAuthenticator("s3cret-token"), `Bearer realm="echo"`)}
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv, opts...))
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(srv, opts...))
	hs.Config.Handler = mux
	hs.Start()
	gs := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gs, srv, opts...)
	go func() { _ = gs.Serve(gl) }()
	t.Cleanup(func() {
		hs.Close()
		gs.Stop()
		_ = srv.Shutdown(context.Background())
	})
	return base
}

// startInspector starts an inspector with a known token and returns it.
func startInspector(t *testing.T, agentURL string) *Server {
	t.Helper()
	s, err := New(Options{AgentURL: agentURL, Token: "test-session-token"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}
