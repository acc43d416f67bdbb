package telemetry_test

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// headerAgent answers SendMessage with a task and records the traceparent
// header of each call.
type headerAgent struct {
	a2av1.UnimplementedA2AServiceHandler
	mu          sync.Mutex
	traceparent []string
}

func (a *headerAgent) SendMessage(ctx context.Context, _ *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	info, _ := runtime.CallInfoFromContext(ctx)
	a.mu.Lock()
	a.traceparent = append(a.traceparent, info.Header.Get("traceparent"))
	a.mu.Unlock()
	return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: &a2av1.Task{Id: "t-1", ContextId: "c-1",
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}}}, nil
}

func (a *headerAgent) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.traceparent[len(a.traceparent)-1]
}

// TestIdleInterceptorsFollowTheGlobalProvider: with OpenTelemetry's global
// providers the interceptors leave a call alone while those are no-ops
// (the runtime then skips them), yet still pass on the trace context of a
// caller's own instrumentation, and trace every call as soon as a program
// sets a provider, after the interceptors were made, on every binding.
//
// It needs the global provider as a program starts (unset), which other
// tests of the package set: it runs in a process of its own.
func TestIdleInterceptorsFollowTheGlobalProvider(t *testing.T) {
	if os.Getenv("TELEMETRY_IDLE_TEST") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestIdleInterceptorsFollowTheGlobalProvider$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "TELEMETRY_IDLE_TEST=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	t.Cleanup(func() { otel.SetTracerProvider(tracenoop.NewTracerProvider()) })
	agent := &headerAgent{}
	hopts := []runtime.HandlerOption{runtime.WithInterceptors(telemetry.Tracing(), telemetry.Metrics())}
	copts := []runtime.ClientOption{runtime.WithClientInterceptors(telemetry.Tracing(), telemetry.Metrics())}
	clients := map[string]a2av1.A2AServiceClient{}
	jsonrpc := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(agent, hopts...))
	t.Cleanup(jsonrpc.Close)
	clients["JSONRPC"] = a2av1.NewA2AServiceJSONRPCClient(jsonrpc.URL, copts...)
	rest := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(agent, hopts...))
	t.Cleanup(rest.Close)
	clients["HTTP+JSON"] = a2av1.NewA2AServiceRESTClient(rest.URL, copts...)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gs, agent, hopts...)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	clients["GRPC"] = a2av1.NewA2AServiceGRPCClientFromConn(cc, copts...)
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m-1", Role: a2av1.Role_ROLE_USER,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hi"}}}}}

	// A span of the caller's own instrumentation, while ours is off.
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	own := trace.ContextWithSpanContext(context.Background(), sc)
	for name, c := range clients {
		if _, err := c.SendMessage(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tp := agent.last(); tp != "" {
			t.Errorf("%s, tracing off: the server got traceparent %q, want none", name, tp)
		}
		if _, err := c.SendMessage(own, req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tp, want := agent.last(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; tp != want {
			t.Errorf("%s, tracing off, a span of the caller's: the server got traceparent %q, want %q", name, tp, want)
		}
	}

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	otel.SetTracerProvider(tp)
	for name, c := range clients {
		exp.Reset()
		if _, err := c.SendMessage(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		spans := exp.GetSpans()
		if len(spans) != 2 {
			t.Fatalf("%s, a provider set: %d spans (%v), want a server and a client span", name, len(spans), spanNames(spans))
		}
		if spans[0].SpanContext.TraceID() != spans[1].SpanContext.TraceID() {
			t.Errorf("%s: the client and server spans are in different traces", name)
		}
		if agent.last() == "" {
			t.Errorf("%s, a provider set: the server got no traceparent", name)
		}
	}
}
