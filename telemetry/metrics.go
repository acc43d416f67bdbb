package telemetry

import (
	"context"
	"iter"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/internal/idle"
	"github.com/a2agen/a2agen/internal/respmeta"
	"github.com/a2agen/a2agen/runtime"
)

// The instruments of calls. The durations follow the semantic conventions
// for RPC metrics; the others have no counterpart there.
const (
	// MetricServerDuration and MetricClientDuration are histograms of call
	// durations in seconds (a stream lasts until its last event), with
	// rpc.system.name, rpc.method and, for failed calls, error.type. Their
	// counts are the calls by operation, binding and outcome.
	MetricServerDuration = "rpc.server.call.duration"
	MetricClientDuration = "rpc.client.call.duration"
	// MetricServerStreams and MetricClientStreams count the streams open
	// now (up-down counters), by rpc.system.name and rpc.method.
	MetricServerStreams = "a2a.server.active_streams"
	MetricClientStreams = "a2a.client.active_streams"
	// MetricServerStreamEvents and MetricClientStreamEvents count the
	// events streams carried, by rpc.system.name and rpc.method.
	MetricServerStreamEvents = "a2a.server.stream.events"
	MetricClientStreamEvents = "a2a.client.stream.events"
	// MetricServerStreamRequests and MetricClientStreamRequests count the
	// requests of calls whose client streams them (SendLiveMessage): those
	// the agent received, those clients sent; by rpc.system.name and
	// rpc.method.
	MetricServerStreamRequests = "a2a.server.stream.requests"
	MetricClientStreamRequests = "a2a.client.stream.requests"
)

// durationBuckets are the bucket boundaries the semantic conventions
// recommend for RPC durations, in seconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// Metrics returns an interceptor that measures every call it wraps: the
// duration histogram (whose count is the number of calls by operation,
// binding and outcome), the streams open, and the events they carry. It
// works on servers and clients alike.
func Metrics(opts ...Option) runtime.Interceptor {
	m := newConfig(opts).meter()
	var x metrics
	x.server.duration = histogram(m, MetricServerDuration, "Duration of the A2A calls the agent served.")
	x.client.duration = histogram(m, MetricClientDuration, "Duration of the A2A calls made by clients.")
	x.server.streams = upDown(m, MetricServerStreams, "{stream}", "Streams the agent is serving.")
	x.client.streams = upDown(m, MetricClientStreams, "{stream}", "Streams clients are reading.")
	x.server.events = counter(m, MetricServerStreamEvents, "{event}", "Events the agent sent on streams.")
	x.client.events = counter(m, MetricClientStreamEvents, "{event}", "Events clients received on streams.")
	x.server.requests = counter(m, MetricServerStreamRequests, "{request}", "Requests the agent received on streams of requests.")
	x.client.requests = counter(m, MetricClientStreamRequests, "{request}", "Requests clients sent on streams of requests.")
	return &x
}

type metrics struct {
	server, client callInstruments
	ops            opCache
}

type callInstruments struct {
	duration metric.Float64Histogram
	streams  metric.Int64UpDownCounter
	events   metric.Int64Counter
	requests metric.Int64Counter
}

func (m *metrics) side(call *runtime.CallInfo) *callInstruments {
	if call.Client {
		return &m.client
	}
	return &m.server
}

// IgnoresResponseMetadata implements respmeta.Ignorer: the interceptor
// never reads the response metadata of client calls, so the gRPC transport
// need not capture it for it.
func (*metrics) IgnoresResponseMetadata(respmeta.Unread) {}

// Idle implements idle.Interceptor: with a no-op provider the interceptor
// would only pass the call on, so the runtime leaves it out.
func (m *metrics) Idle(ctx context.Context, client bool, _ idle.Token) bool {
	if client {
		return !m.client.duration.Enabled(ctx)
	}
	return !m.server.duration.Enabled(ctx)
}

func (m *metrics) WrapUnary(next runtime.UnaryFunc) runtime.UnaryFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
		if !m.side(call).duration.Enabled(ctx) { // a no-op provider
			return next(ctx, call, req)
		}
		start := time.Now()
		resp, err := next(ctx, call, req)
		m.record(ctx, call, m.ops.get(call), start, err)
		return resp, err
	}
}

func (m *metrics) WrapStream(next runtime.StreamFunc) runtime.StreamFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
		if !m.side(call).duration.Enabled(ctx) { // a no-op provider
			return next(ctx, call, req, send)
		}
		return m.measureStream(ctx, call, nil, send, func(_ iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
			return next(ctx, call, req, send)
		})
	}
}

// measureStream measures a streaming call that run makes: the stream
// counted open while it runs, the events it sends through the send run
// gets, its duration and outcome. reqs are the requests of a call whose
// client streams them (nil for another): run gets them counted.
func (m *metrics) measureStream(ctx context.Context, call *runtime.CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error,
	run func(reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error) error {
	in := m.side(call)
	start := time.Now()
	a := m.ops.get(call)
	in.streams.Add(ctx, 1, a.add...)
	if reqs != nil {
		reqs = countRequests(reqs, func() { in.requests.Add(ctx, 1, a.add...) })
	}
	err := run(reqs, func(msg proto.Message) error {
		in.events.Add(ctx, 1, a.add...)
		return send(msg)
	})
	in.streams.Add(ctx, -1, a.add...)
	m.record(ctx, call, a, start, err)
	return err
}

// record measures a finished call.
func (m *metrics) record(ctx context.Context, call *runtime.CallInfo, a *opAttrs, start time.Time, err error) {
	d := time.Since(start).Seconds()
	h := m.side(call).duration
	o := okOutcome
	if err != nil {
		o = outcomeOf(ctx, call, err)
	}
	if o.errorType == "" {
		h.Record(ctx, d, a.record...)
		return
	}
	attrs := make([]attribute.KeyValue, 0, len(a.base)+1)
	attrs = append(append(attrs, a.base...), semconv.ErrorTypeKey.String(o.errorType))
	h.Record(ctx, d, metric.WithAttributes(attrs...))
}

// The constructors of instruments. An invalid name or option is a bug of
// this package; the SDK then still returns a working no-op instrument.

func histogram(m metric.Meter, name, desc string) metric.Float64Histogram {
	h, _ := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	return h
}

func upDown(m metric.Meter, name, unit, desc string) metric.Int64UpDownCounter {
	c, _ := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	return c
}

func counter(m metric.Meter, name, unit, desc string) metric.Int64Counter {
	c, _ := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	return c
}
