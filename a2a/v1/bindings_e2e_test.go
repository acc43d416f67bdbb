package a2av1_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The tests in this file run once per binding, as subtests named after the
// entries of bindings (TestAllOperations/JSONRPC, …): what users depend on
// whatever the binding. What only one binding has on the wire is tested in
// jsonrpc_e2e_test.go, rest_e2e_test.go and grpc_e2e_test.go.

// testTenant is the tenant of the tenant-aware cases.
const testTenant = "acme"

// binding is one way of reaching an A2A handler over loopback with the
// generated client.
type binding struct {
	name string
	// callInfoBinding is CallInfo.Binding as the handler sees it.
	callInfoBinding string
	// tenant is put on every call of the entry's clients ("" for none); on
	// HTTP+JSON it selects the /{tenant} routes.
	tenant string
	// tenantInPath says the binding carries the tenant in the URL path, so
	// the routes a client took can be checked against its tenant.
	tenantInPath bool
	// serve starts h with opts on a loopback socket.
	serve func(t testing.TB, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) *loopback
	// connect builds the generated client of the server at addr; own asks
	// for connections no other client shares, which release closes.
	connect func(t testing.TB, addr string, own bool, opts ...runtime.ClientOption) (c a2av1.A2AServiceClient, release func())
	// checkClientError, if set, checks what the binding adds to an error the
	// generated client returned; how is "unary" or "mid-stream".
	checkClientError func(t *testing.T, how string, err error, want *runtime.Error)
	// checkWireError, if set, checks without the generated client how the
	// server answers GetTask for id when the handler fails with want.
	checkWireError func(t *testing.T, srv *loopback, id string, want *runtime.Error)
}

// bindings are the entries every test of this file runs for.
var bindings = []binding{
	{
		name:            "JSONRPC",
		callInfoBinding: runtime.BindingJSONRPC,
		serve:           serveHTTPBinding(a2av1.NewA2AServiceJSONRPCHandler),
		connect:         connectHTTP(a2av1.NewA2AServiceJSONRPCClient),
	},
	restBinding("REST", ""),
	restBinding("REST_tenant", testTenant),
	{
		name:            "GRPC",
		callInfoBinding: runtime.BindingGRPC,
		serve:           serveGRPC,
		connect:         connectGRPC,
		checkClientError: func(t *testing.T, how string, err error, want *runtime.Error) {
			t.Helper()
			if code := status.Code(err); code != want.Code().GRPCCode() {
				t.Errorf("%s: gRPC status code = %v, want %v", how, code, want.Code().GRPCCode())
			}
		},
	},
}

// restBinding is HTTP+JSON, on the /{tenant} routes when tenant is set.
func restBinding(name, tenant string) binding {
	return binding{
		name:            name,
		callInfoBinding: runtime.BindingHTTPJSON,
		tenant:          tenant,
		tenantInPath:    true,
		serve:           serveHTTPBinding(a2av1.NewA2AServiceRESTHandler),
		connect:         connectHTTP(a2av1.NewA2AServiceRESTClient),
		checkWireError: func(t *testing.T, srv *loopback, id string, want *runtime.Error) {
			t.Helper()
			prefix := ""
			if tenant != "" {
				prefix = "/" + tenant
			}
			resp, err := http.Get(srv.addr + prefix + "/tasks/" + id)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want.Code().HTTPStatus() {
				t.Errorf("HTTP status %d, want %d", resp.StatusCode, want.Code().HTTPStatus())
			}
		},
	}
}

// dial builds the entry's client (with its tenant) for the server at addr;
// opts come after the entry's own options and so override them.
func (b binding) dial(t testing.TB, addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	c, _ := b.connect(t, addr, false, b.clientOptions(opts)...)
	return c
}

// dialOwn is dial with connections no other client shares, and a function
// that closes them: what a goroutine leak check needs.
func (b binding) dialOwn(t testing.TB, addr string) (a2av1.A2AServiceClient, func()) {
	t.Helper()
	return b.connect(t, addr, true, b.clientOptions(nil)...)
}

func (b binding) clientOptions(opts []runtime.ClientOption) []runtime.ClientOption {
	if b.tenant == "" {
		return opts
	}
	return append([]runtime.ClientOption{runtime.WithClientTenant(b.tenant)}, opts...)
}

// checkRoutes checks, where the binding carries the tenant in the path, that
// a client with a tenant put every call on the /{tenant} routes and one
// without on the plain routes.
func (b binding) checkRoutes(t *testing.T, srv *loopback) {
	t.Helper()
	if !b.tenantInPath {
		return
	}
	clientTenant := b.tenant != ""
	for _, p := range srv.Requests() {
		_, path, _ := strings.Cut(p, " ")
		if onTenantRoute := strings.HasPrefix(path, "/"+testTenant+"/"); onTenantRoute != clientTenant {
			t.Errorf("request %s: on a /{tenant} route = %v, want %v", p, onTenantRoute, clientTenant)
		}
	}
}

// loopback is a server of one binding on a loopback socket.
type loopback struct {
	addr string // the base URL (HTTP bindings) or host:port (gRPC)
	stop func() // ends the server and waits for it; idempotent, also run at cleanup

	mu       sync.Mutex
	requests []string // HTTP bindings: "METHOD /escaped/path" of every request
}

// Requests returns the requests an HTTP server received so far.
func (l *loopback) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.requests)
}

// serveHTTP serves h on a loopback socket and records every request.
func serveHTTP(t testing.TB, h http.Handler) *loopback {
	t.Helper()
	l := &loopback{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.requests = append(l.requests, r.Method+" "+r.URL.EscapedPath())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	l.addr, l.stop = srv.URL, srv.Close
	return l
}

// serveJSONRPC starts the generated JSON-RPC handler on a loopback socket
// and returns its URL.
func serveJSONRPC(t testing.TB, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
	return serveHTTP(t, a2av1.NewA2AServiceJSONRPCHandler(h, opts...)).addr
}

// serveREST starts the generated HTTP+JSON handler on a loopback socket and
// returns its URL.
func serveREST(t testing.TB, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
	return serveHTTP(t, a2av1.NewA2AServiceRESTHandler(h, opts...)).addr
}

// serveHTTPBinding is the serve of an HTTP binding built by newHandler.
func serveHTTPBinding(newHandler func(a2av1.A2AServiceHandler, ...runtime.HandlerOption) http.Handler) func(testing.TB, a2av1.A2AServiceHandler, ...runtime.HandlerOption) *loopback {
	return func(t testing.TB, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) *loopback {
		t.Helper()
		return serveHTTP(t, newHandler(h, opts...))
	}
}

// connectHTTP is the connect of an HTTP binding whose client newClient
// builds; an own client gets a transport of its own.
func connectHTTP(newClient func(string, ...runtime.ClientOption) a2av1.A2AServiceClient) func(testing.TB, string, bool, ...runtime.ClientOption) (a2av1.A2AServiceClient, func()) {
	return func(_ testing.TB, url string, own bool, opts ...runtime.ClientOption) (a2av1.A2AServiceClient, func()) {
		if !own {
			return newClient(url, opts...), func() {}
		}
		hc := &http.Client{Transport: &http.Transport{}}
		return newClient(url, append(opts, runtime.WithHTTPClient(hc))...), hc.CloseIdleConnections
	}
}

// serveGRPC starts a gRPC server with the generated registration on a
// loopback TCP socket.
func serveGRPC(t testing.TB, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) *loopback {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(srv, h, opts...)
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(lis) }()
	stop := sync.OnceFunc(func() { srv.Stop(); <-served })
	t.Cleanup(stop)
	return &loopback{addr: lis.Addr().String(), stop: stop}
}

// dialGRPC opens a plaintext connection the test closes.
func dialGRPC(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// connectGRPC builds the generated gRPC client over a connection of its own.
func connectGRPC(t testing.TB, addr string, _ bool, opts ...runtime.ClientOption) (a2av1.A2AServiceClient, func()) {
	t.Helper()
	cc := dialGRPC(t, addr)
	return a2av1.NewA2AServiceGRPCClientFromConn(cc, opts...), func() { _ = cc.Close() }
}

// TestAllOperations drives all eleven operations through the generated
// client of every binding against the in-memory agent over loopback, then
// checks that the handler saw the client's tenant.
func TestAllOperations(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			srv := b.serve(t, newAgentWithCard())
			runAllOperations(t, b.dial(t, srv.addr))
			b.checkRoutes(t, srv)

			// The handler saw the tenant: tasks are stored per tenant.
			list, err := b.dial(t, srv.addr, runtime.WithClientTenant("other")).ListTasks(context.Background(), &a2av1.ListTasksRequest{})
			if err != nil || list.GetTotalSize() != 0 {
				t.Errorf("ListTasks for tenant other = %v, %v; want none of %q's tasks", list, err, b.tenant)
			}
		})
	}
}

// TestServerTenant serves every binding for tenant acme: the agent works
// whether the client names that tenant or leaves it to the server, the
// handler sees it, and a call for another tenant is refused.
func TestServerTenant(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			srv := b.serve(t, newAgentWithCard(), runtime.WithTenant(testTenant))
			runAllOperations(t, b.dial(t, srv.addr))
			b.checkRoutes(t, srv)
			if _, err := b.dial(t, srv.addr, runtime.WithClientTenant("other")).ListTasks(ctx, &a2av1.ListTasksRequest{}); !errors.Is(err, runtime.ErrInvalidParams) {
				t.Errorf("ListTasks for tenant other on an interface of tenant acme: %v, want InvalidParams", err)
			}

			echo := b.serve(t, paramsEcho{}, runtime.WithTenant(testTenant))
			got, err := b.dial(t, echo.addr).GetTask(ctx, &a2av1.GetTaskRequest{Id: "t"})
			if err != nil || !strings.HasPrefix(got.GetContextId(), b.callInfoBinding+"|acme|") {
				t.Fatalf("request with tenant %q on an interface with tenant acme: %v, %v", b.tenant, got, err)
			}
			_, err = b.dial(t, echo.addr, runtime.WithClientTenant("other")).GetTask(ctx, &a2av1.GetTaskRequest{Id: "t"})
			var e *runtime.Error
			if !errors.As(err, &e) || e.Code() != runtime.CodeInvalidParams || len(e.FieldViolations()) != 1 || e.FieldViolations()[0].Field != "tenant" {
				t.Fatalf("wrong tenant: %v, want InvalidParams on field tenant", err)
			}
		})
	}
}

// runAllOperations calls every operation of the A2A service against a fresh
// agent from newAgentWithCard and checks the answers; it is binding-neutral.
func runAllOperations(t *testing.T, c a2av1.A2AServiceClient) {
	t.Helper()
	ctx := context.Background()
	sent, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("hello", "")})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	task := sent.GetTask()
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || task.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" {
		t.Fatalf("SendMessage task = %v", task)
	}
	direct, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("message", "")})
	if err != nil || direct.GetMessage().GetParts()[0].GetText() != "Echo: message" {
		t.Fatalf("SendMessage(direct) = %v, %v", direct, err)
	}

	var kinds []string
	for ev, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("streamed", "")}) {
		if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
		switch {
		case ev.GetTask() != nil:
			kinds = append(kinds, "task")
		case ev.GetStatusUpdate() != nil:
			kinds = append(kinds, ev.GetStatusUpdate().GetStatus().GetState().String())
		case ev.GetArtifactUpdate() != nil:
			kinds = append(kinds, "artifact")
		}
	}
	if got, want := strings.Join(kinds, ","), "task,TASK_STATE_WORKING,artifact,TASK_STATE_COMPLETED"; got != want {
		t.Fatalf("stream events = %s, want %s", got, want)
	}

	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId(), HistoryLength: proto.Int32(0)})
	if err != nil || got.GetId() != task.GetId() || len(got.GetHistory()) != 0 {
		t.Fatalf("GetTask = %v, %v", got, err)
	}
	full, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId()})
	if err != nil || len(full.GetHistory()) != 1 {
		t.Fatalf("GetTask without historyLength = %v, %v; want the history", full, err)
	}

	list, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil || list.GetTotalSize() != 2 || list.GetPageSize() != 50 || list.GetTasks()[0].GetArtifacts() != nil {
		t.Fatalf("ListTasks = %v, %v", list, err)
	}
	filtered, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{Status: a2av1.TaskState_TASK_STATE_COMPLETED, PageSize: proto.Int32(1),
		IncludeArtifacts: proto.Bool(true), StatusTimestampAfter: timestamppb.New(time.Unix(0, 0))})
	if err != nil || filtered.GetTotalSize() != 2 || len(filtered.GetTasks()) != 1 || filtered.GetTasks()[0].GetArtifacts() == nil {
		t.Fatalf("ListTasks(filtered) = %v, %v", filtered, err)
	}

	waiting, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("input", "")})
	if err != nil {
		t.Fatalf("SendMessage(input): %v", err)
	}
	open := waiting.GetTask()
	var snapshots int
	for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: open.GetId()}) {
		if err != nil {
			t.Fatalf("SubscribeToTask: %v", err)
		}
		if ev.GetTask().GetId() != open.GetId() {
			t.Fatalf("SubscribeToTask first event = %v, want the task snapshot", ev)
		}
		snapshots++
	}
	if snapshots != 1 {
		t.Fatalf("SubscribeToTask sent %d events, want 1", snapshots)
	}

	canceled, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: open.GetId()})
	if err != nil || canceled.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatalf("CancelTask = %v, %v", canceled, err)
	}

	cfg, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Url: "https://hooks.example/a2a"})
	if err != nil || cfg.GetId() == "" || cfg.GetTaskId() != task.GetId() {
		t.Fatalf("CreateTaskPushNotificationConfig = %v, %v", cfg, err)
	}
	one, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()})
	if err != nil || one.GetUrl() != "https://hooks.example/a2a" {
		t.Fatalf("GetTaskPushNotificationConfig = %v, %v", one, err)
	}
	all, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
	if err != nil || len(all.GetConfigs()) != 1 {
		t.Fatalf("ListTaskPushNotificationConfigs = %v, %v", all, err)
	}
	paged, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId(), PageSize: 10})
	if err != nil || len(paged.GetConfigs()) != 1 {
		t.Fatalf("ListTaskPushNotificationConfigs(pageSize 10) = %v, %v", paged, err)
	}
	card, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil || card.GetName() != "ext" {
		t.Fatalf("GetExtendedAgentCard = %v, %v", card, err)
	}
	empty, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()})
	if err != nil || empty == nil {
		t.Fatalf("DeleteTaskPushNotificationConfig = %v, %v", empty, err)
	}
	if _, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("GetTaskPushNotificationConfig after delete: %v, want TaskNotFound", err)
	}
	if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("again", task.GetId())}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Fatalf("SendMessage to a terminal task: %v, want UnsupportedOperation", err)
	}
	if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: task.GetId()}); !errors.Is(err, runtime.ErrTaskNotCancelable) {
		t.Fatalf("CancelTask(completed): %v, want TaskNotCancelable", err)
	}
	for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "no-such-task"}) {
		if !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Fatalf("SubscribeToTask(unknown): %v, want TaskNotFound", err)
		}
	}
}

// TestErrorsRoundTrip checks that every A2A error a handler returns reaches
// the generated client of every binding as the same typed error, unary and
// mid-stream, plus what the binding carries of it (gRPC status code, HTTP
// status).
func TestErrorsRoundTrip(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			errs := allErrors()
			srv := b.serve(t, errorHandler{errs: errs}, runtime.WithLogger(slog.New(slog.DiscardHandler)))
			c := b.dial(t, srv.addr)
			for name, want := range errs {
				t.Run(name, func(t *testing.T) {
					check := func(how string, err error) {
						var got *runtime.Error
						if !errors.As(err, &got) {
							t.Fatalf("%s: error %v (%T) is not a *runtime.Error", how, err, err)
						}
						if got.Code() != want.Code() || got.Code().String() != name {
							t.Fatalf("%s: code = %v, want %v", how, got.Code(), want.Code())
						}
						if got.Message() != want.Message() {
							t.Errorf("%s: message = %q, want %q", how, got.Message(), want.Message())
						}
						for k, v := range want.Metadata() {
							if got.Metadata()[k] != v {
								t.Errorf("%s: metadata[%q] = %q, want %q", how, k, got.Metadata()[k], v)
							}
						}
						if got.Metadata()["timestamp"] == "" {
							t.Errorf("%s: ErrorInfo metadata lacks the timestamp: %v", how, got.Metadata())
						}
						if !slices.Equal(got.FieldViolations(), want.FieldViolations()) {
							t.Errorf("%s: violations = %v, want %v", how, got.FieldViolations(), want.FieldViolations())
						}
						if !errors.Is(err, want) {
							t.Errorf("%s: errors.Is(err, sentinel of %v) = false", how, want.Code())
						}
						if b.checkClientError != nil {
							b.checkClientError(t, how, err, want)
						}
					}
					_, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: name})
					check("unary", err)
					if b.checkWireError != nil {
						b.checkWireError(t, srv, name, want)
					}

					var events int
					var streamErr error
					for _, err := range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: name}) {
						if err != nil {
							streamErr = err
							break
						}
						events++
					}
					if events != 1 {
						t.Fatalf("stream delivered %d events before the error, want 1", events)
					}
					check("mid-stream", streamErr)
				})
			}
		})
	}
}

// TestUnimplementedIsUnsupportedOperation checks that an operation the
// handler does not implement fails with UnsupportedOperation, unary and
// streaming, on every binding.
func TestUnimplementedIsUnsupportedOperation(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			c := b.dial(t, b.serve(t, a2av1.UnimplementedA2AServiceHandler{}).addr)
			_, err := c.ListTasks(context.Background(), &a2av1.ListTasksRequest{})
			if !errors.Is(err, runtime.ErrUnsupportedOperation) {
				t.Fatalf("ListTasks on Unimplemented: %v, want UnsupportedOperation", err)
			}
			for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
				if !errors.Is(err, runtime.ErrUnsupportedOperation) {
					t.Fatalf("SendStreamingMessage on Unimplemented: %v, want UnsupportedOperation", err)
				}
			}
		})
	}
}

// TestStreamCancelLeavesNoGoroutines stops ranging over a stream after two
// events and checks that the handler's context ends and, once the client's
// connections and the server are closed, nothing leaks.
func TestStreamCancelLeavesNoGoroutines(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			h := streamUntilCanceled{ended: make(chan struct{})}
			srv := b.serve(t, h)
			c, release := b.dialOwn(t, srv.addr)
			n := 0
			for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 2 {
					break
				}
			}
			select {
			case <-h.ended:
			case <-time.After(10 * time.Second):
				t.Fatal("handler still running 10s after the client stopped reading")
			}
			release()
			srv.stop()
		})
	}
}

// TestContextCancelIsReported checks that a caller's cancellation comes
// back as the context error, not as an A2A error.
func TestContextCancelIsReported(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			h := streamUntilCanceled{ended: make(chan struct{})}
			c := b.dial(t, b.serve(t, h).addr)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var last error
			n := 0
			for _, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
				if err != nil {
					last = err
					break
				}
				if n++; n == 1 {
					cancel()
				}
			}
			if !errors.Is(last, context.Canceled) {
				t.Fatalf("after cancel: %v, want context.Canceled", last)
			}
			<-h.ended
		})
	}
}

// TestServiceParametersReachHandler checks that the tenant, the negotiated
// version, the requested extensions and the request headers reach the
// handler's CallInfo, unary and streaming, that required extensions and
// unsupported versions are refused, and that the client leaves the caller's
// request alone.
func TestServiceParametersReachHandler(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			addr := b.serve(t, paramsEcho{}, runtime.WithRequiredExtensions("https://ext.example/a")).addr
			c := b.dial(t, addr, runtime.WithClientTenant("acme"),
				runtime.WithExtensions("https://ext.example/a", "https://ext.example/b"),
				runtime.WithHeader("Authorization", "Bearer t0k3n"))
			req := &a2av1.GetTaskRequest{Id: "t"}
			got, err := c.GetTask(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			want := b.callInfoBinding + "|acme|1.0|https://ext.example/a,https://ext.example/b|Bearer t0k3n"
			if got.GetContextId() != want {
				t.Fatalf("handler saw %q, want %q", got.GetContextId(), want)
			}
			if req.GetTenant() != "" {
				t.Fatalf("the client wrote tenant %q into the caller's request", req.GetTenant())
			}
			for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "s"}) {
				if err != nil || ev.GetTask().GetContextId() != want {
					t.Fatalf("stream handler saw %v, %v; want %q", ev, err, want)
				}
			}

			bare := b.dial(t, addr)
			if _, err := bare.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t"}); !errors.Is(err, runtime.ErrExtensionSupportRequired) {
				t.Fatalf("without the required extension: %v, want ExtensionSupportRequired", err)
			}
			old := b.dial(t, addr, runtime.WithProtocolVersion("0.3"), runtime.WithExtensions("https://ext.example/a"))
			if _, err := old.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t"}); !errors.Is(err, runtime.ErrVersionNotSupported) {
				t.Fatalf("A2A-Version 0.3: %v, want VersionNotSupported", err)
			}
			patch := b.dial(t, addr, runtime.WithProtocolVersion("1.0.7"), runtime.WithExtensions("https://ext.example/a"))
			if got, err := patch.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t"}); err != nil || !strings.Contains(got.GetContextId(), "|1.0|") {
				t.Fatalf("A2A-Version 1.0.7: %v, %v; want version 1.0", got, err)
			}
		})
	}
}
