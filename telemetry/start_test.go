package telemetry_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// startSampler records the attributes spans start with.
type startSampler struct {
	mu    sync.Mutex
	attrs [][]attribute.KeyValue
}

func (s *startSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	s.mu.Lock()
	s.attrs = append(s.attrs, p.Attributes)
	s.mu.Unlock()
	return sdktrace.AlwaysSample().ShouldSample(p)
}

func (*startSampler) Description() string { return "startSampler" }

// TestSpanStartAttributes: spans start with the attributes the semantic
// conventions give samplers (a client's per target, however its calls
// alternate between targets) and end with all of them.
func TestSpanStartAttributes(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	sampler := &startSampler{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSyncer(exp))
	ic := telemetry.Tracing(telemetry.WithTracerProvider(tp))
	op := &a2av1.NewA2AServiceRuntime(a2av1.UnimplementedA2AServiceHandler{}).Desc.Operations[0]
	resp := &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: &a2av1.Task{Id: "task-1", ContextId: "ctx-1"}}}
	f := ic.WrapUnary(func(context.Context, *runtime.CallInfo, proto.Message) (proto.Message, error) { return resp, nil })
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{ContextId: "ctx-1"}}
	peers := []struct{ peer, host, port string }{
		{"http://agent-a.example:8080", "agent-a.example", "8080"},
		{"dns:///agent-b.example:443", "agent-b.example", "443"},
		{"agent-d.example", "agent-d.example", ""},
		{"agent-c.example:9090", "agent-c.example", "9090"},
	}
	for i := range 9 {
		p := peers[i%len(peers)]
		exp.Reset()
		sampler.attrs = nil
		call := &runtime.CallInfo{Operation: op, Binding: runtime.BindingGRPC, Version: "1.0", Header: http.Header{}, Client: true, Peer: p.peer}
		if _, err := f(context.Background(), call, req); err != nil {
			t.Fatal(err)
		}
		if call.Header.Get("traceparent") == "" {
			t.Errorf("%s: no traceparent sent", p.peer)
		}
		start := map[attribute.Key]string{semconv.RPCSystemNameKey: "grpc", semconv.RPCMethodKey: "lf.a2a.v1.A2AService/SendMessage", semconv.ServerAddressKey: p.host}
		if p.port != "" {
			start[semconv.ServerPortKey] = p.port
		}
		if len(sampler.attrs) != 1 || len(sampler.attrs[0]) != len(start) {
			t.Fatalf("%s: started with %v, want %v", p.peer, sampler.attrs, start)
		}
		wantAttrs(t, p.peer+" start", sampler.attrs[0], start)
		spans := exp.GetSpans()
		if len(spans) != 1 {
			t.Fatalf("%s: %d spans", p.peer, len(spans))
		}
		end := map[attribute.Key]string{telemetry.AttrBinding: "GRPC", telemetry.AttrVersion: "1.0", telemetry.AttrTaskID: "task-1", telemetry.AttrContextID: "ctx-1"}
		for k, v := range start {
			end[k] = v
		}
		if len(spans[0].Attributes) != len(end) {
			t.Errorf("%s: ended with %v, want %v", p.peer, spans[0].Attributes, end)
		}
		wantAttrs(t, p.peer+" end", spans[0].Attributes, end)
	}
}
