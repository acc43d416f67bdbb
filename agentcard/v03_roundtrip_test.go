package agentcard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/internal/echo/echotest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// v03Only lets through only what a v0.3-only agent serves: JSON-RPC
// requests of a v0.3 method, and HTTP+JSON requests below the interface's
// /v1 prefix that name no version other than 0.3. Everything of v1.0 is
// refused the way an agent that never heard of it would: JSON-RPC
// MethodNotFound, HTTP 404.
func v03Only(t *testing.T, h http.Handler, restBase string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("A2A-Version"); v != "" && v != "0.3" {
			t.Errorf("%s %s: A2A-Version %q sent to a v0.3-only agent", r.Method, r.URL.Path, v)
			http.NotFound(w, r)
			return
		}
		if restBase == "" {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &req) != nil || a2av03.Methods[req.Method] == "" {
				t.Errorf("JSON-RPC method %q sent to a v0.3-only agent", req.Method)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		} else if !strings.HasPrefix(r.URL.Path, restBase+"/v1/") {
			t.Errorf("%s %s: not a v0.3 route", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		} else {
			// Bodies under /v1 are the ProtoJSON of the v0.3 proto: no kind
			// discriminators, no parts (a message's are "content").
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"kind"`)) || bytes.Contains(body, []byte(`"parts"`)) {
				t.Errorf("%s %s: body in the JSON-RPC form, not ProtoJSON: %s", r.Method, r.URL.Path, body)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
}

// v03OnlyAgent serves the echo agent as an agent that speaks only A2A v0.3,
// on JSON-RPC, HTTP+JSON and gRPC over loopback, with a v0.3 card (url,
// preferredTransport, additionalInterfaces; no supportedInterfaces) at the
// well-known path. It returns the base URL to discover.
func v03OnlyAgent(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	t.Cleanup(hs.Close)
	base := "http://" + hs.Listener.Addr().String()
	card := echo.Card(
		&a2av1.AgentInterface{Url: base + "/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "0.3"},
		&a2av1.AgentInterface{Url: base + "/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: "0.3"},
		&a2av1.AgentInterface{Url: ln.Addr().String(), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "0.3"},
	)
	srv, err := server.New(card, &echo.Agent{}, server.WithExtendedCard(echo.ExtendedCard(card)),
		server.WithPushOptions(push.AllowDestinations("127.0.0.1")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	auth := runtime.WithAuthenticator(echo.BearerAuthenticator(""), `Bearer realm="echo"`)
	g := grpc.NewServer()
	a2av03grpc.Register(g, srv, auth) // a2a.v1.A2AService only
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)

	opts := []runtime.HandlerOption{runtime.WithVersionAdapter(a2av03.Adapter()), auth}
	mux := http.NewServeMux()
	mux.Handle("/jsonrpc", v03Only(t, a2av1.NewA2AServiceJSONRPCHandler(srv, opts...), ""))
	mux.Handle("/rest/", v03Only(t, a2av1.NewA2AServiceRESTHandler(srv, append(opts, runtime.WithPathPrefix("/rest"))...), "/rest"))
	mux.HandleFunc(runtime.AgentCardPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"protocolVersion":"0.3.0","name":%q,"description":"v0.3 only","version":"1",
			"url":%q,"preferredTransport":"JSONRPC",
			"additionalInterfaces":[{"url":%[2]q,"transport":"JSONRPC"},{"url":%q,"transport":"HTTP+JSON"},{"url":%q,"transport":"GRPC"}],
			"capabilities":{"streaming":true,"pushNotifications":true},"supportsAuthenticatedExtendedCard":true,
			"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}},
			"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
			"skills":[{"id":"echo","name":"Echo","description":"echo","tags":["echo"]}]}`,
			echo.Name, base+"/jsonrpc", base+"/rest", ln.Addr().String())
	})
	hs.Config.Handler = mux
	hs.Start()
	return base
}

// TestV1ClientToV03OnlyAgent: Discover reads the v0.3 card of an agent that
// speaks only v0.3 and, for each binding it offers, the typed v1.0 client
// runs every operation against it (streams, push configs, the extended
// card, errors) over loopback.
func TestV1ClientToV03OnlyAgent(t *testing.T) {
	base := v03OnlyAgent(t)
	for _, binding := range []string{runtime.BindingJSONRPC, runtime.BindingHTTPJSON, runtime.BindingGRPC} {
		t.Run(binding, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			discover := func(opts ...agentcard.Option) *agentcard.Client {
				t.Helper()
				opts = append(opts, agentcard.WithBindings(runtime.Binding(binding)),
					agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
				c, err := agentcard.Discover(ctx, base, opts...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				if c.Interface.GetProtocolBinding() != binding || c.Interface.GetProtocolVersion() != "0.3.0" {
					t.Fatalf("chosen interface = %v, want %s 0.3.0", c.Interface, binding)
				}
				return c
			}
			c := discover()
			authed := discover(agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer t")))
			echotest.RoundTrip(ctx, t, c, echotest.Authenticated(authed))
		})
	}
}
