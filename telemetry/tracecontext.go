package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// ServerOptions returns the options that instrument the default server:
// task state transitions (MetricTaskTransitions, and a span event on the
// span of the write's context), the W3C trace context stored with every
// queued push delivery (server.WithTraceContext, so that the webhook
// request continues the trace of the call that produced the event, from
// whichever replica sends it), and PushOptions for the sender the server
// creates.
func ServerOptions(opts ...Option) []server.Option {
	c := newConfig(opts)
	return []server.Option{
		server.WithTaskObserver(newTaskObserver(c)),
		server.WithTraceContext(traceContextOf),
		server.WithPushOptions(pushOptions(c)...),
	}
}

// traceContextOf is the W3C trace context of ctx's span, whatever the
// configured propagator: what a queued delivery stores.
func traceContextOf(ctx context.Context) store.TraceContext {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return store.TraceContext{}
	}
	c := make(propagation.MapCarrier, 2)
	propagation.TraceContext{}.Inject(ctx, c)
	return store.TraceContext{Parent: c["traceparent"], State: c["tracestate"]}
}
