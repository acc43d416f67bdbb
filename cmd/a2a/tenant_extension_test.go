package main

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// The echo agent cannot show what tenant and extensions a call carried, so
// these tests serve the echo executor in-process from the generated
// handlers, with an interceptor that records each call's CallInfo and
// activates one extension when it is asked for.

// activatedExtension is the extension the test server activates when a
// client requests it; others it leaves alone.
const activatedExtension = "urn:a2agen:test:activated"

// seenCall is what the server-side interceptor recorded of one call.
type seenCall struct {
	operation  string
	binding    runtime.Binding
	tenant     string
	extensions []string
}

type callRecorder struct {
	mu    sync.Mutex
	calls []seenCall
}

func (r *callRecorder) record(ctx context.Context, call *runtime.CallInfo) {
	if slices.Contains(call.Extensions, activatedExtension) {
		runtime.ActivateExtension(ctx, activatedExtension)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, seenCall{call.Operation.Name, call.Binding, call.Tenant, slices.Clone(call.Extensions)})
}

// take returns the calls recorded since the last take.
func (r *callRecorder) take() []seenCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

func (r *callRecorder) interceptor() runtime.Interceptor {
	return runtime.InterceptorFuncs{
		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				r.record(ctx, call)
				return next(ctx, call, req)
			}
		},
		Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
				r.record(ctx, call)
				return next(ctx, call, req, send)
			}
		},
	}
}

// startRecordingEcho serves the echo agent on loopback over every binding
// and returns its base URL and the recorder of its calls.
func startRecordingEcho(t *testing.T) (string, *callRecorder) {
	t.Helper()
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	httpLn, grpcLn := listen(), listen()
	base := "http://" + httpLn.Addr().String()
	v := a2av1.A2AServiceDesc.ProtocolVersion()
	card := echo.Card(
		&a2av1.AgentInterface{Url: base + "/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: v},
		&a2av1.AgentInterface{Url: base + "/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: v},
		&a2av1.AgentInterface{Url: grpcLn.Addr().String(), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: v},
	)
	srv, err := server.New(card, &echo.Agent{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &callRecorder{}
	opt := runtime.WithInterceptors(rec.interceptor())
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	mux.Handle("/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv, opt))
	mux.Handle("/rest/", a2av1.NewA2AServiceRESTHandler(srv, opt))
	httpSrv := &http.Server{Handler: mux}
	grpcSrv := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(grpcSrv, srv, opt)
	go httpSrv.Serve(httpLn)
	go grpcSrv.Serve(grpcLn)
	t.Cleanup(func() {
		httpSrv.Close()
		grpcSrv.Stop()
		srv.Shutdown(context.Background())
	})
	return base, rec
}

// TestTenantReachesTheServer checks on every binding that --tenant is the
// tenant of each call the server serves, and that it scopes the tasks: a
// task made under one tenant is not found under another.
func TestTenantReachesTheServer(t *testing.T) {
	base, rec := startRecordingEcho(t)
	for _, b := range bindingFlags {
		t.Run(b, func(t *testing.T) {
			bf, b := "--binding="+b, protocolBinding[b]
			rec.take()
			sent := jsonLines(t, ok(t, bf, "--tenant", "acme", "send", "-a", base, "input", "-o", "json"))
			task := str(field(sent[0], "task", "id"))
			ok(t, bf, "--tenant", "acme", "task", "get", "-a", base, task)
			ok(t, bf, "--tenant", "acme", "task", "list", "-a", base)
			ok(t, bf, "--tenant", "acme", "send", "--stream", "-a", base, "stream", "1")
			want := []seenCall{
				{"SendMessage", b, "acme", nil},
				{"GetTask", b, "acme", nil},
				{"ListTasks", b, "acme", nil},
				{"SendStreamingMessage", b, "acme", nil},
			}
			if got := rec.take(); !equalCalls(got, want) {
				t.Errorf("calls seen by the server:\n%v\nwant\n%v", got, want)
			}

			r := a2a(t, nil, bf, "--tenant", "other", "task", "get", "-a", base, task)
			if r.code != exitFail || !strings.Contains(r.stderr, "TaskNotFound") {
				t.Errorf("get under another tenant: exit %d, %s", r.code, r.stderr)
			}
			if got := rec.take(); len(got) != 1 || got[0].tenant != "other" {
				t.Errorf("get --tenant other: the server saw %v", got)
			}
			// Without --tenant the card's interface (no tenant) decides.
			ok(t, bf, "send", "-a", base, "hello")
			if got := rec.take(); len(got) != 1 || got[0].tenant != "" {
				t.Errorf("send without --tenant: the server saw %v", got)
			}
		})
	}
}

// TestExtensionsReachTheServer checks on every binding that each --extension
// is requested in A2A-Extensions (the server's CallInfo lists them, in
// order), on unary and streaming calls, and that -v shows the extension the
// server activated in the response.
func TestExtensionsReachTheServer(t *testing.T) {
	base, rec := startRecordingEcho(t)
	const other = "https://example.com/ext/other/v1"
	for _, b := range bindingFlags {
		t.Run(b, func(t *testing.T) {
			bf, b := "--binding="+b, protocolBinding[b]
			rec.take()
			r := a2a(t, nil, "--debug", bf, "--extension", activatedExtension, "--extension", other, "send", "-a", base, "hello")
			if r.code != exitOK {
				t.Fatalf("send: exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower("< A2A-Extensions: "+activatedExtension)) {
				t.Errorf("-v log lacks the activated extension in the response:\n%s", r.stderr)
			}
			ok(t, bf, "--extension", other, "send", "--stream", "-a", base, "stream", "1")
			ok(t, bf, "task", "get", "-a", base, str(field(jsonLines(t, ok(t, bf, "send", "-a", base, "hello", "-o", "json"))[0], "task", "id")))
			want := []seenCall{
				{"SendMessage", b, "", []string{activatedExtension, other}},
				{"SendStreamingMessage", b, "", []string{other}},
				{"SendMessage", b, "", nil},
				{"GetTask", b, "", nil},
			}
			if got := rec.take(); !equalCalls(got, want) {
				t.Errorf("calls seen by the server:\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// protocolBinding is the card's name of each --binding value.
var protocolBinding = map[string]runtime.Binding{
	"jsonrpc": runtime.BindingJSONRPC, "rest": runtime.BindingHTTPJSON, "grpc": runtime.BindingGRPC,
}

func equalCalls(a, b []seenCall) bool {
	return slices.EqualFunc(a, b, func(x, y seenCall) bool {
		return x.operation == y.operation && x.binding == y.binding && x.tenant == y.tenant &&
			slices.Equal(x.extensions, y.extensions)
	})
}
