package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// TestHosting starts the agent with what hosting adds on a loopback
// listener and checks over HTTP that GET /version answers the card's
// version, and that every HTTP answer (the route, the agent card, refusals
// and the A2A bindings) carries an X-Request-Id: the caller's when it is
// plausible, else a fresh one.
func TestHosting(t *testing.T) {
	agent := hosttest.Start(t, agentConfig())
	var rpc host.Binding // the JSON-RPC binding, which shares its listener with HTTP+JSON
	for _, b := range bindings {
		if b.Protocol == runtime.BindingJSONRPC {
			rpc = b
		}
	}
	base := agent.URL(host.Binding{Protocol: rpc.Protocol, Address: rpc.Address, Path: "/"})
	client := agent.HTTPClient()
	do := func(t *testing.T, method, path, requestID string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if requestID != "" {
			req.Header.Set(requestIDHeader, requestID)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}

	t.Run("GET /version", func(t *testing.T) {
		resp := do(t, http.MethodGet, "/version", "")
		var got versionInfo
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /version: %s, %v", resp.Status, err)
		}
		if want := agent.Card().GetVersion(); got.Version != want || want == "" || !strings.HasPrefix(got.Go, "go") {
			t.Errorf("GET /version = %+v, want version %q", got, want)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	})

	t.Run("request ids", func(t *testing.T) {
		long := strings.Repeat("a", 129)
		for _, tc := range []struct {
			name, method, path, sent string
			status                   int
			keep                     bool // the answer carries the id sent
		}{
			{"route, no id", http.MethodGet, "/version", "", http.StatusOK, false},
			{"route, caller's id", http.MethodGet, "/version", "req-42.a_b", http.StatusOK, true},
			{"card, caller's id", http.MethodGet, runtime.AgentCardPath, "from-proxy-7", http.StatusOK, true},
			{"card, id with a space", http.MethodGet, runtime.AgentCardPath, "x y", http.StatusOK, false},
			{"card, id too long", http.MethodGet, runtime.AgentCardPath, long, http.StatusOK, false},
			{"route, wrong method", http.MethodPost, "/version", "", http.StatusMethodNotAllowed, false},
			{"unknown path", http.MethodGet, "/nowhere", "lost-1", http.StatusNotFound, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp := do(t, tc.method, tc.path, tc.sent)
				got := resp.Header.Get(requestIDHeader)
				switch {
				case resp.StatusCode != tc.status:
					t.Errorf("%s %s: %s, want %d", tc.method, tc.path, resp.Status, tc.status)
				case tc.keep && got != tc.sent:
					t.Errorf("X-Request-Id %q, want the caller's %q", got, tc.sent)
				case !tc.keep && (!plausibleRequestID(got) || got == tc.sent):
					t.Errorf("X-Request-Id %q, want a fresh id (sent %q)", got, tc.sent)
				}
			})
		}
		first, second := do(t, http.MethodGet, "/version", ""), do(t, http.MethodGet, "/version", "")
		if a, b := first.Header.Get(requestIDHeader), second.Header.Get(requestIDHeader); a == b {
			t.Errorf("two requests got the same id %q", a)
		}
	})

	// The middleware wraps the A2A bindings too: a generated client's call
	// is answered with an id (read by a client interceptor).
	t.Run("A2A call", func(t *testing.T) {
		var got string
		read := runtime.InterceptorFuncs{Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				resp, err := next(ctx, call, req)
				got = call.ResponseHeader().Get(requestIDHeader)
				return resp, err
			}
		}}
		c := agent.ClientWith(t, rpc, runtime.WithClientInterceptors(read))
		if _, err := c.ListTasks(context.Background(), &a2av1.ListTasksRequest{}); err != nil {
			t.Fatal(err)
		}
		if !plausibleRequestID(got) {
			t.Errorf("the A2A answer's X-Request-Id is %q", got)
		}
	})
}
