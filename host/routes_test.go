package host_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// tag is a middleware that adds its name to the X-Order header of the
// answer, so that the order middlewares ran in shows.
func tag(name string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Order", name)
			next.ServeHTTP(w, r)
		})
	}
}

// TestRoutesAndMiddleware: Config.Routes adds a route to every HTTP
// listener (called once for each), and HTTPMiddleware wraps everything
// those listeners serve — the route, the card, the health checks and the
// A2A bindings — the first middleware outermost.
func TestRoutesAndMiddleware(t *testing.T) {
	bs := []host.Binding{
		{Protocol: runtime.BindingJSONRPC, Address: "a:1", Path: "/"},
		{Protocol: runtime.BindingHTTPJSON, Address: "a:1", Path: "/rest"},
		{Protocol: runtime.BindingJSONRPC, Address: "b:2", Path: "/rpc"},
		{Protocol: runtime.BindingGRPC, Address: "c:3"},
	}
	var routes atomic.Int32
	a := hosttest.Start(t, host.Config{
		CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}}, Bindings: bs,
		Routes: func(mux *http.ServeMux) {
			routes.Add(1)
			mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "v1") })
		},
		HTTPMiddleware: []func(http.Handler) http.Handler{tag("outer"), tag("inner")},
	})
	if n := routes.Load(); n != 2 {
		t.Errorf("Routes called %d times, want once per HTTP listener (2)", n)
	}
	for _, b := range []host.Binding{bs[0], bs[2]} {
		base := a.URL(host.Binding{Protocol: b.Protocol, Address: b.Address, Path: "/"})
		for _, tc := range []struct {
			method, path, body string
			status             int
		}{
			{"GET", "/version", "", 200},
			{"GET", runtime.AgentCardPath, "", 200},
			{"GET", host.HealthzPath, "", 200},
			{"GET", host.ReadyzPath, "", 200},
			{"POST", b.Path, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, 200},
			{"GET", "/nowhere", "", 404},
		} {
			req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := a.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("%s %s%s: %d %s, want %d", tc.method, base, tc.path, resp.StatusCode, body, tc.status)
			}
			if got := resp.Header.Values("X-Order"); !slices.Equal(got, []string{"outer", "inner"}) {
				t.Errorf("%s %s%s: middlewares ran as %q, want outer then inner", tc.method, base, tc.path, got)
			}
			if tc.path == "/version" && string(body) != "v1" {
				t.Errorf("GET %s/version = %q", base, body)
			}
		}
	}
}

// TestRoutesConflict: a route whose pattern conflicts with one of the
// agent's makes Start fail with an error naming both patterns (net/http
// panics; Start must not), before anything listens.
func TestRoutesConflict(t *testing.T) {
	bs := []host.Binding{
		{Protocol: runtime.BindingJSONRPC, Address: "a:1", Path: "/"},
		{Protocol: runtime.BindingHTTPJSON, Address: "a:1", Path: "/rest"},
	}
	for _, pattern := range []string{"GET " + host.ReadyzPath, "GET " + host.HealthzPath, runtime.AgentCardPath, "/{$}", "/rest/"} {
		var listened atomic.Int32
		a, err := host.Start(host.Config{
			CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}}, Bindings: bs,
			Routes: func(mux *http.ServeMux) { mux.HandleFunc(pattern, func(http.ResponseWriter, *http.Request) {}) },
			Listen: func(network, _ string) (net.Listener, error) {
				listened.Add(1)
				return net.Listen(network, "127.0.0.1:0")
			},
		})
		if err == nil {
			t.Errorf("a route %q: Start succeeded, want an error about the conflict", pattern)
			_ = a.Shutdown(context.Background())
			continue
		}
		if !strings.Contains(err.Error(), "Config.Routes") || !strings.Contains(err.Error(), "conflicts with") || !strings.Contains(err.Error(), pattern) {
			t.Errorf("a route %q: Start = %v, want an error about the conflict", pattern, err)
		}
		if listened.Load() != 0 {
			t.Errorf("a route %q: Start listened before refusing it", pattern)
		}
	}
	_, err := host.Start(host.Config{
		CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}}, Bindings: bs,
		HTTPMiddleware: []func(http.Handler) http.Handler{func(http.Handler) http.Handler { return nil }},
	})
	if err == nil || !strings.Contains(err.Error(), "HTTPMiddleware[0] returned a nil handler") {
		t.Errorf("a middleware returning nil: Start = %v", err)
	}
}

// TestGRPCServerOptions: Config.GRPCServerOptions reach the gRPC server of
// every gRPC address: interceptors of the user's see the A2A calls, unary
// and streaming, and an option the host also sets from Limits (here the
// largest request message) is the user's, since theirs come after.
func TestGRPCServerOptions(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func(method string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, method)
	}
	b := host.Binding{Protocol: runtime.BindingGRPC, Address: "g:1"}
	a := hosttest.Start(t, host.Config{
		CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: "a:1", Path: "/"}, b},
		GRPCServerOptions: []grpc.ServerOption{
			grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				record(info.FullMethod)
				return h(ctx, req)
			}),
			grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
				record(info.FullMethod)
				return h(srv, ss)
			}),
			grpc.MaxRecvMsgSize(4 << 10),
		},
	})
	c := a.ClientWith(t, b)
	ctx := context.Background()
	if _, err := c.SendMessage(ctx, message("hi", "")); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	// The card does not stream: the call is refused, past the interceptor.
	for range c.SendStreamingMessage(ctx, message("hi", "")) {
	}
	mu.Lock()
	got := slices.Clone(seen)
	mu.Unlock()
	if want := []string{a2av1.A2AServiceSendMessageProcedure, a2av1.A2AServiceSendStreamingMessageProcedure}; !slices.Equal(got, want) {
		t.Errorf("the user's interceptors saw %q, want %q", got, want)
	}
	_, err := c.SendMessage(ctx, message(strings.Repeat("x", 8<<10), ""))
	if e := (*runtime.Error)(nil); !errors.As(err, &e) || e.Code() != runtime.CodeResourceExhausted {
		t.Errorf("an 8 KiB message with MaxRecvMsgSize(4 KiB): %v, want RESOURCE_EXHAUSTED", err)
	}
}
