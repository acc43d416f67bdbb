package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/internal/idle"
	"github.com/a2agen/a2agen/internal/respmeta"
	"github.com/a2agen/a2agen/runtime"
)

// Tracing returns an interceptor that traces every call it wraps, following
// the OpenTelemetry semantic conventions for RPC spans: on the server a
// span of kind server per call, continuing the trace context the caller
// sent (W3C traceparent in the HTTP headers or gRPC metadata); on the
// client a span of kind client whose context is sent with the call. Both
// are named after the rpc ("lf.a2a.v1.A2AService/SendMessage") and carry
// rpc.system.name, rpc.method, the A2A attributes (a2a.task.id,
// a2a.context.id, a2a.tenant, a2a.protocol.binding, a2a.protocol.version)
// and the peer's address; a failed call adds error.type (the A2A reason,
// e.g. TASK_NOT_FOUND) and rpc.response.status_code (the binding's code),
// and every stream event becomes a span event (and, for a live call, every
// request the client streamed: bidi.go). The span's status is Error for a
// failed client call, and on the server for failures of the agent
// (Internal, InvalidAgentResponse, MethodNotFound, a passed deadline), not
// for requests the agent refused.
//
// Give it first among the interceptors, so that the others (the request
// log) see its span in the context.
func Tracing(opts ...Option) runtime.Interceptor {
	c := newConfig(opts)
	t := &tracing{tracer: c.tracer(), prop: c.propagator, w3c: c.w3cOnly}
	switch c.tracerProvider.(type) {
	case tracenoop.TracerProvider, *tracenoop.TracerProvider:
		t.noop = true
	}
	t.global = c.tracerProvider == unsetTracerProvider
	return t
}

type tracing struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	w3c    bool // prop is the default propagator (w3c.go)
	ops    opCache
	// noop: the provider is a no-op; global: it is OpenTelemetry's global
	// provider, a no-op until a program sets one (see off).
	noop, global bool
	// targets caches the start options of client spans, by targetKey.
	targets sync.Map
}

// unsetTracerProvider is OpenTelemetry's global tracer provider as it is
// before a program sets one: it makes only non-recording spans, and hands
// out the set provider once there is one. nil when a provider was set
// before this package was initialised.
var unsetTracerProvider = func() trace.TracerProvider {
	tp := otel.GetTracerProvider()
	if fmt.Sprintf("%T", tp) != "*global.tracerProvider" {
		return nil
	}
	return tp
}()

// off reports whether no span of a call can be recorded, so that the call
// needs neither a span nor, on the server, the caller's trace context.
// Calls then cost a flag (a no-op provider) or one atomic load and a type
// switch (the global provider, while none or a no-op one is set).
func (t *tracing) off() bool {
	if t.noop || !t.global {
		return t.noop
	}
	switch tp := otel.GetTracerProvider(); tp.(type) {
	case tracenoop.TracerProvider, *tracenoop.TracerProvider:
		return true
	default:
		return tp == unsetTracerProvider
	}
}

// IgnoresResponseMetadata implements respmeta.Ignorer: the interceptor
// never reads the response metadata of client calls, so the gRPC transport
// need not capture it for it.
func (*tracing) IgnoresResponseMetadata(respmeta.Unread) {}

// Idle implements idle.Interceptor: with no span to record and, on the
// client, no trace context of other instrumentation to pass on, the
// interceptor would only pass the call on, so the runtime leaves it out.
func (t *tracing) Idle(ctx context.Context, client bool, _ idle.Token) bool {
	return t.off() && (!client || !trace.SpanContextFromContext(ctx).IsValid())
}

func (t *tracing) WrapUnary(next runtime.UnaryFunc) runtime.UnaryFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
		if t.off() {
			t.propagate(ctx, call)
			return next(ctx, call, req)
		}
		ctx, span := t.start(ctx, call)
		resp, err := next(ctx, call, req)
		t.end(ctx, span, call, req, resp, err, -1, -1)
		return resp, err
	}
}

func (t *tracing) WrapStream(next runtime.StreamFunc) runtime.StreamFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
		return t.traceStream(ctx, call,
			func(ctx context.Context) error { return next(ctx, call, req, send) },
			func(ctx context.Context, span trace.Span) error {
				// Handlers may send from several goroutines: sendCount is atomic.
				var out sendCount
				err := next(ctx, call, req, out.wrap(send, func(m proto.Message, i int) {
					span.AddEvent("a2a.stream.event", trace.WithAttributes(eventAttrs(m, i)...))
				}))
				t.end(ctx, span, call, req, out.firstResponse(), err, out.count(), -1)
				return err
			})
	}
}

// traceStream runs a streaming call: as pass while tracing is off (a
// client call's trace context passed on) or its span does not record
// (ended when pass returns), else as record, which gets the recording span
// to add the stream's events to and end.
func (t *tracing) traceStream(ctx context.Context, call *runtime.CallInfo, pass func(context.Context) error, record func(context.Context, trace.Span) error) error {
	if t.off() {
		t.propagate(ctx, call)
		return pass(ctx)
	}
	ctx, span := t.start(ctx, call)
	if !span.IsRecording() {
		err := pass(ctx)
		span.End()
		return err
	}
	return record(ctx, span)
}

// propagate passes the trace context of a client call's ctx on while
// tracing is off: a span of other instrumentation (a provider of the
// program's own) still reaches the agent.
func (t *tracing) propagate(ctx context.Context, call *runtime.CallInfo) {
	if call.Client && trace.SpanContextFromContext(ctx).IsValid() {
		t.prop.Inject(ctx, headerCarrier(call.Header))
	}
}

// start begins the span of a call: on the server as a child of the trace
// context the caller sent (unless ctx already has a span, e.g. of an HTTP
// middleware, which then is the parent), on the client as a child of ctx's
// span, whose context goes into the call's headers.
//
// The span starts with the attributes the semantic conventions give
// samplers (rpc.system.name, rpc.method and, on the client,
// server.address and server.port), from options computed once per
// operation and target; every other attribute is added at its end, in one
// SetAttributes. The SDK copies a start's attributes twice (into the span
// config, then into the span) and grows the span's slice for every later
// addition, so per-call values given at the start cost two more
// allocations and ≈1 KB per span.
func (t *tracing) start(ctx context.Context, call *runtime.CallInfo) (context.Context, trace.Span) {
	a := t.ops.get(call)
	var span trace.Span
	if call.Client {
		ctx, span = t.tracer.Start(ctx, a.method, t.clientStart(a, call)...)
		if !t.w3c || !injectW3C(ctx, span.SpanContext(), call.Header) {
			t.prop.Inject(ctx, headerCarrier(call.Header))
		}
	} else {
		if !trace.SpanContextFromContext(ctx).IsValid() {
			ok := false
			if t.w3c {
				ctx, ok = extractW3C(ctx, call.Header)
			}
			if !ok {
				ctx = t.prop.Extract(ctx, headerCarrier(call.Header))
			}
		}
		ctx, span = t.tracer.Start(ctx, a.method, a.serverStart...)
	}
	return ctx, span
}

// clientStart are the start options of a client span of operation a on
// call's target, computed once per operation, binding and target. A
// client calls one target, mostly: the last one's are at hand in a.
func (t *tracing) clientStart(a *opAttrs, call *runtime.CallInfo) []trace.SpanStartOption {
	if last := a.clientStart.Load(); last != nil && last.peer == call.Peer {
		return last.opts
	}
	key := targetKey{a, call.Peer}
	v, ok := t.targets.Load(key)
	if !ok {
		attrs := append(slices.Clip(a.base), targetAttrs(call.Peer)...)
		v, _ = t.targets.LoadOrStore(key, &clientStart{peer: call.Peer, opts: []trace.SpanStartOption{clientKind, trace.WithAttributes(attrs...)}})
	}
	cs := v.(*clientStart)
	a.clientStart.Store(cs)
	return cs.opts
}

// clientStart are the start options of client spans to one target.
type clientStart struct {
	peer string
	opts []trace.SpanStartOption
}

// targetKey identifies the start options of client spans: an operation on
// a binding (its opAttrs) and the client's target.
type targetKey struct {
	op   *opAttrs
	peer string
}

var (
	serverKind = trace.WithSpanKind(trace.SpanKindServer)
	clientKind = trace.WithSpanKind(trace.SpanKindClient)
)

// endAttrs are buffers for the attributes a span gets at its end; the SDK
// copies them, and a buffer handed to it through the Span interface would
// otherwise be allocated per call.
var endAttrs = sync.Pool{New: func() any { return new([maxEndAttrs]attribute.KeyValue) }}

// maxEndAttrs: binding, version, tenant, task and context ids, peer address,
// status code, stream events and requests, error type.
const maxEndAttrs = 10

// end records how the call ended and ends its span. req is the request,
// resp the response
// (streams: the first event), events the number of stream events (-1 for
// a unary call), requests the number of requests of a call whose client
// streams them (-1 for the others).
func (t *tracing) end(ctx context.Context, span trace.Span, call *runtime.CallInfo, req, resp proto.Message, err error, events, requests int) {
	if !span.IsRecording() {
		span.End()
		return
	}
	o := okOutcome
	if err != nil {
		o = outcomeOf(ctx, call, err)
	}
	buf := endAttrs.Get().(*[maxEndAttrs]attribute.KeyValue)
	attrs := buf[:0]
	attrs = append(attrs, AttrBinding.String(call.Binding.String()))
	attrs = appendNonEmptyAttr(attrs, AttrVersion, call.Version)
	attrs = appendNonEmptyAttr(attrs, AttrTenant, call.Tenant)
	taskID, contextID := spanIDs(req, resp)
	attrs = appendNonEmptyAttr(attrs, AttrTaskID, taskID)
	attrs = appendNonEmptyAttr(attrs, AttrContextID, contextID)
	attrs = appendPeer(attrs, call)
	if err != nil { // success is the span's unset status
		if sc := statusCode(call.Binding, o); sc != "" {
			attrs = append(attrs, semconv.RPCResponseStatusCodeKey.String(sc))
		}
	}
	if events >= 0 {
		attrs = append(attrs, AttrStreamEvents.Int(events))
	}
	if requests >= 0 {
		attrs = append(attrs, AttrStreamRequests.Int(requests))
	}
	if o.errorType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(o.errorType))
	}
	span.SetAttributes(attrs...)
	clear(attrs) // let the strings go
	endAttrs.Put(buf)
	if err != nil && o.name != "OK" {
		text := errorText(err)
		if o.fault {
			span.SetStatus(codes.Error, text)
		}
		recordException(span, err, text)
	}
	span.End()
}

// spanIDs are the task and context ids a span records: each the one the
// request named, else the response's (a new task).
func spanIDs(req, resp proto.Message) (taskID, contextID string) {
	taskID, contextID = requestIDs(req)
	if (taskID == "" || contextID == "") && resp != nil {
		rt, rc := responseIDs(resp)
		taskID, contextID = cmp.Or(taskID, rt), cmp.Or(contextID, rc)
	}
	return taskID, contextID
}

// appendNonEmptyAttr adds the attribute key=v unless v is empty.
func appendNonEmptyAttr(attrs []attribute.KeyValue, key attribute.Key, v string) []attribute.KeyValue {
	if v == "" {
		return attrs
	}
	return append(attrs, key.String(v))
}

// errorText describes an error for spans and logs: an A2A error with the
// cause it wraps (which the client never sees: an Internal error's reason).
func errorText(err error) string {
	var e *runtime.Error
	if errors.As(err, &e) && e == err {
		if cause := e.Unwrap(); cause != nil {
			return e.Error() + ": " + cause.Error()
		}
	}
	return err.Error()
}

// recordException adds the exception event of the semantic conventions,
// with the stack of a panic.
func recordException(span trace.Span, err error, text string) {
	attrs := []attribute.KeyValue{
		semconv.ExceptionTypeKey.String(fmt.Sprintf("%T", err)),
		semconv.ExceptionMessageKey.String(text),
	}
	var pe *runtime.PanicError
	if errors.As(err, &pe) {
		attrs = append(attrs, semconv.ExceptionStacktraceKey.String(strings.Join(pe.Stack(), "\n")))
	}
	span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(attrs...))
}

// appendPeer adds the client's address (network.peer.address) on the
// server; the agent's (server.address, server.port) is among a client
// span's start attributes.
func appendPeer(attrs []attribute.KeyValue, call *runtime.CallInfo) []attribute.KeyValue {
	if call.Peer == "" || call.Client {
		return attrs
	}
	// The client's ephemeral port says nothing worth its cost.
	if host, _, err := net.SplitHostPort(call.Peer); err == nil {
		return append(attrs, semconv.NetworkPeerAddressKey.String(host))
	}
	return append(attrs, semconv.NetworkPeerAddressKey.String(call.Peer))
}

// targetAttrs are server.address and server.port of a client's target: an
// agent URL, host:port, or a gRPC target such as dns:///host:port.
func targetAttrs(peer string) []attribute.KeyValue {
	host, port := peer, ""
	if strings.Contains(host, "://") {
		u, err := url.Parse(host)
		if err != nil {
			return nil
		}
		host, port = u.Hostname(), u.Port()
		if u.Scheme == "dns" || host == "" { // gRPC's dns:///host:port
			host = strings.TrimPrefix(u.Path, "/")
			port = ""
		}
	}
	if port == "" {
		if h, p, err := net.SplitHostPort(host); err == nil {
			host, port = h, p
		}
	}
	attrs := []attribute.KeyValue{semconv.ServerAddressKey.String(host)}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPortKey.Int(p))
	}
	return attrs
}
