package agentcard_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// callEcho answers GetTask with what the handler saw of the call.
type callEcho struct {
	a2av1.UnimplementedA2AServiceHandler
}

func (callEcho) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	info, ok := runtime.CallInfoFromContext(ctx)
	if !ok {
		return nil, errors.New("no CallInfo")
	}
	seen := fmt.Sprintf("%s|%s|%s|%s|%s", info.Binding, info.Tenant, info.Version, info.Header.Get("Authorization"), info.Header.Get("X-Api-Key"))
	return &a2av1.Task{Id: req.GetId(), ContextId: seen, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}, nil
}

// agent serves callEcho over JSON-RPC (with the card at the well-known
// path) and gRPC on loopback; the interfaces are filled in by the test.
type agent struct {
	httpURL  string // base URL of the HTTP server
	grpcAddr string // host:port of the gRPC server
	card     *a2av1.AgentCard
}

func startAgent(t *testing.T, card func(a *agent) *a2av1.AgentCard, opts ...runtime.HandlerOption) *agent {
	t.Helper()
	a := &agent{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gs, callEcho{}, opts...)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	a.grpcAddr = lis.Addr().String()

	mux := http.NewServeMux()
	mux.Handle("/a2a/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(callEcho{}, opts...))
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(callEcho{}, opts...))
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(nil, runtime.WithCardProvider(func(*http.Request) (proto.Message, error) {
		return a.card, nil
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.httpURL = srv.URL
	a.card = card(a)
	return a
}

func (a *agent) jsonrpc(version, tenant string) *a2av1.AgentInterface {
	return &a2av1.AgentInterface{ProtocolBinding: "JSONRPC", Url: a.httpURL + "/a2a/jsonrpc", ProtocolVersion: version, Tenant: tenant}
}

func (a *agent) rest(version, tenant string) *a2av1.AgentInterface {
	return &a2av1.AgentInterface{ProtocolBinding: "HTTP+JSON", Url: a.httpURL + "/a2a/rest", ProtocolVersion: version, Tenant: tenant}
}

func (a *agent) grpc(url, version, tenant string) *a2av1.AgentInterface {
	return &a2av1.AgentInterface{ProtocolBinding: "GRPC", Url: fmt.Sprintf(url, a.grpcAddr), ProtocolVersion: version, Tenant: tenant}
}

func echoCard(ifaces ...*a2av1.AgentInterface) *a2av1.AgentCard {
	return &a2av1.AgentCard{Name: "Echo", Description: "echoes", Version: "1", SupportedInterfaces: ifaces,
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "Bearer"}}},
			"apikey": {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "header", Name: "X-Api-Key"}}},
		}}
}

// apiKeyFromScheme reads the header name from the card's declaration.
func apiKeyFromScheme(key string) agentcard.Credentials {
	return func(_ context.Context, s *a2av1.SecurityScheme) (string, string, error) {
		return s.GetApiKeySecurityScheme().GetName(), key, nil
	}
}

// TestNewClientOverEachBinding builds clients from cards whose first usable
// interface is each binding and form, and checks what reaches the handler:
// binding, the interface's tenant and version, and the credentials.
func TestNewClientOverEachBinding(t *testing.T) {
	tests := []struct {
		name  string
		card  func(a *agent) *a2av1.AgentCard
		opts  []agentcard.Option
		seen  string
		iface int
	}{
		{"JSON-RPC first", func(a *agent) *a2av1.AgentCard { return echoCard(a.jsonrpc("1.0", ""), a.grpc("%s", "1.0", "")) },
			nil, "JSONRPC||1.0||", 0},
		{"HTTP+JSON first", func(a *agent) *a2av1.AgentCard { return echoCard(a.rest("1.0", "acme"), a.jsonrpc("1.0", "")) },
			nil, "HTTP+JSON|acme|1.0||", 0},
		{"credentials over HTTP+JSON", func(a *agent) *a2av1.AgentCard { return echoCard(a.rest("1.0", "")) },
			[]agentcard.Option{agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer r")),
				agentcard.WithCredentials("apikey", apiKeyFromScheme("k3"))}, "HTTP+JSON||1.0|Bearer r|k3", 0},
		{"gRPC host:port first", func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("%s", "1.0", "acme"), a.jsonrpc("1.0", "")) },
			nil, "GRPC|acme|1.0||", 0},
		{"gRPC dns URL", func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("dns:///%s", "1.0", "")) }, nil, "GRPC||1.0||", 0},
		{"gRPC http URL with a path", func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("http://%s/a2a/grpc", "1.0", "")) }, nil, "GRPC||1.0||", 0},
		{"gRPC grpc URL", func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("grpc://%s", "1.0", "t2")) }, nil, "GRPC|t2|1.0||", 0},
		{"0.3 interface skipped, tenant of the chosen one", func(a *agent) *a2av1.AgentCard {
			return echoCard(a.grpc("%s", "0.3", "old"), a.jsonrpc("1.0", "acme"))
		}, nil, "JSONRPC|acme|1.0||", 1},
		{"preferred binding", func(a *agent) *a2av1.AgentCard { return echoCard(a.jsonrpc("1.0", ""), a.grpc("%s", "1.0", "")) },
			[]agentcard.Option{agentcard.WithBindings("GRPC")}, "GRPC||1.0||", 1},
		{"credentials over JSON-RPC", func(a *agent) *a2av1.AgentCard { return echoCard(a.jsonrpc("1.0", "")) },
			[]agentcard.Option{agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer j")),
				agentcard.WithCredentials("apikey", apiKeyFromScheme("k1"))}, "JSONRPC||1.0|Bearer j|k1", 0},
		{"credentials over gRPC", func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("%s", "1.0", "")) },
			[]agentcard.Option{agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer g")),
				agentcard.WithCredentials("apikey", apiKeyFromScheme("k2"))}, "GRPC||1.0|Bearer g|k2", 0},
		{"runtime.WithHTTPClient keeps the credentials", func(a *agent) *a2av1.AgentCard { return echoCard(a.jsonrpc("1.0", "")) },
			[]agentcard.Option{agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer h")),
				agentcard.WithClientOptions(runtime.WithHTTPClient(&http.Client{}))}, "JSONRPC||1.0|Bearer h|", 0},
		{"explicit version and tenant override the card's", func(a *agent) *a2av1.AgentCard { return echoCard(a.rest("1.1", "acme")) },
			[]agentcard.Option{agentcard.WithClientOptions(runtime.WithProtocolVersion("1.0"), runtime.WithClientTenant("mine"))},
			"HTTP+JSON|mine|1.0||", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := startAgent(t, tt.card)
			c, err := agentcard.NewClient(a.card, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Interface != a.card.GetSupportedInterfaces()[tt.iface] {
				t.Errorf("client uses %v, want interface %d", c.Interface, tt.iface)
			}
			req := &a2av1.GetTaskRequest{Id: "t"}
			got, err := c.GetTask(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got.GetContextId() != tt.seen {
				t.Errorf("handler saw %q, want %q", got.GetContextId(), tt.seen)
			}
			if req.GetTenant() != "" {
				t.Errorf("the caller's request was modified: tenant %q", req.GetTenant())
			}
		})
	}
}

func TestNewClientErrors(t *testing.T) {
	a := startAgent(t, func(a *agent) *a2av1.AgentCard { return echoCard(a.jsonrpc("1.0", "")) })
	_, err := agentcard.NewClient(a.card, agentcard.WithCredentials("oauth", agentcard.StaticHeader("Authorization", "x")))
	if err == nil || !strings.Contains(err.Error(), `"oauth"`) || !strings.Contains(err.Error(), "apikey, bearer") {
		t.Errorf("unknown scheme: %v, want an error naming it and the declared ones", err)
	}
	_, err = agentcard.NewClient(echoCard(a.jsonrpc("0.2", "")))
	var nie *agentcard.NoInterfaceError
	if !errors.As(err, &nie) {
		t.Errorf("0.2-only card: %v, want *NoInterfaceError", err)
	}
}

// TestCredentialsErrorFailsTheCall checks that a provider's error stops the
// call on both bindings, before anything is sent.
func TestCredentialsErrorFailsTheCall(t *testing.T) {
	boom := errors.New("token endpoint down")
	failing := func(context.Context, *a2av1.SecurityScheme) (string, string, error) { return "", "", boom }
	a := startAgent(t, func(a *agent) *a2av1.AgentCard {
		return echoCard(a.jsonrpc("1.0", ""), a.rest("1.0", ""), a.grpc("%s", "1.0", ""))
	})
	for _, binding := range runtime.Bindings() {
		t.Run(binding.String(), func(t *testing.T) {
			c, err := agentcard.NewClient(a.card, agentcard.WithBindings(binding), agentcard.WithCredentials("bearer", failing))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
			if err == nil || !strings.Contains(err.Error(), "token endpoint down") {
				t.Fatalf("call with failing credentials: %v", err)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	a := startAgent(t, func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("%s", "1.0", "acme"), a.jsonrpc("1.0", "")) })
	cache := agentcard.NewCache(nil)
	for _, base := range []string{a.httpURL, a.httpURL + "/", a.httpURL + runtime.AgentCardPath} {
		c, err := agentcard.Discover(context.Background(), base, agentcard.WithCardCache(cache))
		if err != nil {
			t.Fatalf("Discover(%s): %v", base, err)
		}
		got, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
		if err != nil || got.GetContextId() != "GRPC|acme|1.0||" {
			t.Errorf("Discover(%s): GetTask = %v, %v", base, got, err)
		}
		if c.Card.GetName() != "Echo" {
			t.Errorf("client card = %v", c.Card)
		}
		_ = c.Close()
	}
	if _, err := agentcard.Discover(context.Background(), a.httpURL+"/nowhere"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Discover of a path without a card: %v, want the HTTP status", err)
	}
}

// TestCloseReleasesTheGRPCConnection checks that calls fail after Close.
func TestCloseReleasesTheGRPCConnection(t *testing.T) {
	a := startAgent(t, func(a *agent) *a2av1.AgentCard { return echoCard(a.grpc("%s", "1.0", "")) })
	c, err := agentcard.NewClient(a.card)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
	if !errors.Is(err, runtime.ErrClientClosed) {
		t.Errorf("call after Close: %v, want runtime.ErrClientClosed", err)
	}
}

// TestWithTransportPlugsInABinding serves a custom binding URI with the
// JSON-RPC transport and checks that the card's tenant and version reach it.
func TestWithTransportPlugsInABinding(t *testing.T) {
	a := startAgent(t, func(a *agent) *a2av1.AgentCard {
		custom := a.jsonrpc("1.0", "acme")
		custom.ProtocolBinding = "urn:example:custom"
		return echoCard(custom)
	})
	var gotURL string
	c, err := agentcard.NewClient(a.card, agentcard.WithTransport("urn:example:custom",
		func(url string, opts ...runtime.ClientOption) (runtime.ClientTransport, error) {
			gotURL = url
			return runtime.NewJSONRPCTransport(url, opts...), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
	if err != nil || got.GetContextId() != "JSONRPC|acme|1.0||" || gotURL != a.card.GetSupportedInterfaces()[0].GetUrl() {
		t.Fatalf("GetTask over the plugged-in binding = %v, %v (url %q)", got, err, gotURL)
	}
}
