package telemetry_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// sdkTracing samples every span and exports them in batches to memory.
func sdkTracing(b *testing.B) *sdktrace.TracerProvider {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(exp))
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				exp.Reset()
			}
		}
	}()
	b.Cleanup(func() { close(stop); _ = tp.Shutdown(context.Background()) })
	return tp
}

// BenchmarkBareSpan is the floor of any tracing with the SDK: one span
// with the attributes of a call's server span, started and ended, without
// an interceptor (compare BenchmarkInterceptors/server/sdk-tracing).
func BenchmarkBareSpan(b *testing.B) {
	for _, tc := range []struct {
		name string
		tp   func(b *testing.B) *sdktrace.TracerProvider
	}{
		{"noexport", func(*testing.B) *sdktrace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
		}},
		{"inmemory", sdkTracing},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tr := tc.tp(b).Tracer("bench")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, span := tr.Start(ctx, "lf.a2a.v1.A2AService/SendMessage", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
					attribute.String("rpc.system.name", "grpc"), attribute.String("rpc.method", "lf.a2a.v1.A2AService/SendMessage"),
					attribute.String("a2a.protocol.binding", "GRPC"), attribute.String("a2a.protocol.version", "1.0"),
					attribute.String("network.peer.address", "127.0.0.1")))
				span.SetAttributes(attribute.String("a2a.task.id", "t"), attribute.String("a2a.context.id", "c"))
				span.End()
			}
		})
	}
}

// BenchmarkInterceptors is the cost of the interceptors themselves around
// a handler that answers at once, with the default (no-op) providers: what
// they add to every call when telemetry is off.
//
//	go test -run '^$' -bench Interceptors -benchmem ./telemetry/
func BenchmarkInterceptors(b *testing.B) {
	op := &a2av1.NewA2AServiceRuntime(a2av1.UnimplementedA2AServiceHandler{}).Desc.Operations[0]
	resp := &a2av1.SendMessageResponse{}
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{TaskId: "t"}}
	final := func(context.Context, *runtime.CallInfo, proto.Message) (proto.Message, error) { return resp, nil }
	for _, side := range []struct {
		name   string
		client bool
	}{{"server", false}, {"client", true}} {
		for _, tc := range []struct {
			name string
			ic   []runtime.Interceptor
		}{
			{"tracing", []runtime.Interceptor{telemetry.Tracing()}},
			{"metrics", []runtime.Interceptor{telemetry.Metrics()}},
			{"both", []runtime.Interceptor{telemetry.Tracing(), telemetry.Metrics()}},
			{"sdk-noexport", []runtime.Interceptor{telemetry.Tracing(telemetry.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))))}},
			{"sdk-tracing", []runtime.Interceptor{telemetry.Tracing(telemetry.WithTracerProvider(sdkTracing(b)))}},
			{"sdk-metrics", []runtime.Interceptor{telemetry.Metrics(telemetry.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))}},
		} {
			b.Run(side.name+"/"+tc.name, func(b *testing.B) {
				f := runtime.UnaryFunc(final)
				for i := len(tc.ic) - 1; i >= 0; i-- {
					f = tc.ic[i].WrapUnary(f)
				}
				call := &runtime.CallInfo{Operation: op, Binding: runtime.BindingGRPC, Version: "1.0", Header: http.Header{}, Client: side.client}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := f(ctx, call, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestNoopAllocatesNothing: with no-op providers the interceptors add no
// allocation to a call, on either side (the fast path of Tracing and
// Metrics).
func TestNoopAllocatesNothing(t *testing.T) {
	op := &a2av1.NewA2AServiceRuntime(a2av1.UnimplementedA2AServiceHandler{}).Desc.Operations[0]
	resp := &a2av1.SendMessageResponse{}
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{TaskId: "t"}}
	opts := []telemetry.Option{telemetry.WithTracerProvider(tracenoop.NewTracerProvider()), telemetry.WithMeterProvider(metricnoop.NewMeterProvider())}
	f := runtime.UnaryFunc(func(context.Context, *runtime.CallInfo, proto.Message) (proto.Message, error) { return resp, nil })
	f = telemetry.Metrics(opts...).WrapUnary(f)
	f = telemetry.Tracing(opts...).WrapUnary(f)
	for _, client := range []bool{false, true} {
		call := &runtime.CallInfo{Operation: op, Binding: runtime.BindingGRPC, Version: "1.0", Header: http.Header{}, Client: client}
		if n := testing.AllocsPerRun(100, func() { _, _ = f(context.Background(), call, req) }); n != 0 {
			t.Errorf("client %v: %v allocations per call, want 0", client, n)
		}
	}
}
