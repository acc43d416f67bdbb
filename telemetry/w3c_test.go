package telemetry

import (
	"context"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// defaultPropagator is what newConfig uses without WithPropagator.
var defaultPropagator = newConfig(nil).propagator

// extracted is the span context the call's server span continues, with
// the fast path where it applies, as tracing.start reads it.
func extracted(h http.Header) trace.SpanContext {
	ctx, ok := extractW3C(context.Background(), h)
	if !ok {
		ctx = defaultPropagator.Extract(context.Background(), headerCarrier(h))
	}
	return trace.SpanContextFromContext(ctx)
}

// TestExtractW3CAgreesWithThePropagator: the fast path reads every
// traceparent as OpenTelemetry's propagator does, or leaves it to it.
func TestExtractW3CAgreesWithThePropagator(t *testing.T) {
	for _, h := range []http.Header{
		{},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-04"}},
		{"Traceparent": {"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}},
		{"Traceparent": {"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}},
		{"Traceparent": {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"}},
		{"Traceparent": {"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736x00f067aa0ba902b7-01"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, "Tracestate": {"vendor=value"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, "Baggage": {"k=v"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-11111111111111111111111111111111-2222222222222222-01"}},
	} {
		want := trace.SpanContextFromContext(defaultPropagator.Extract(context.Background(), propagation.HeaderCarrier(h)))
		if got := extracted(h); !got.Equal(want) || got.IsRemote() != want.IsRemote() {
			t.Errorf("%v: extracted %v, want %v", h, got, want)
		}
	}
}

func FuzzExtractW3C(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0f")
	f.Fuzz(func(t *testing.T, tp string) {
		h := http.Header{"Traceparent": {tp}}
		want := trace.SpanContextFromContext(defaultPropagator.Extract(context.Background(), propagation.HeaderCarrier(h)))
		if got := extracted(h); !got.Equal(want) || got.IsRemote() != want.IsRemote() {
			t.Errorf("%q: extracted %v, want %v", tp, got, want)
		}
	})
}

// TestInjectW3CAgreesWithThePropagator: the fast path writes the headers
// OpenTelemetry's propagator writes, or leaves the call to it.
func TestInjectW3CAgreesWithThePropagator(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	})
	ts, err := trace.ParseTraceState("vendor=value")
	if err != nil {
		t.Fatal(err)
	}
	member, err := baggage.NewMember("k", "v")
	if err != nil {
		t.Fatal(err)
	}
	bag, err := baggage.New(member)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		fast bool
	}{
		{"no span", context.Background(), true},
		{"unsampled", trace.ContextWithSpanContext(context.Background(), sc), true},
		{"sampled", trace.ContextWithSpanContext(context.Background(), sc.WithTraceFlags(trace.FlagsSampled)), true},
		{"random and a reserved flag", trace.ContextWithSpanContext(context.Background(), sc.WithTraceFlags(0x83)), true},
		{"tracestate", trace.ContextWithSpanContext(context.Background(), sc.WithTraceState(ts)), false},
		{"baggage", baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), sc), bag), false},
	} {
		want := http.Header{}
		defaultPropagator.Inject(tc.ctx, propagation.HeaderCarrier(want))
		got := http.Header{}
		if fast := injectW3C(tc.ctx, trace.SpanContextFromContext(tc.ctx), got); fast != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.name, fast, tc.fast)
			continue
		} else if !fast {
			continue
		}
		if len(got) != len(want) || got.Get("Traceparent") != want.Get("Traceparent") {
			t.Errorf("%s: injected %v, want %v", tc.name, got, want)
		}
	}
}
