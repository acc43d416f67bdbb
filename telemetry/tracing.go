package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
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
// and every stream event becomes a span event. The span's status is Error for a
// failed client call, and on the server for failures of the agent
// (Internal, InvalidAgentResponse, MethodNotFound, a passed deadline), not
// for requests the agent refused.
//
// Give it first among the interceptors, so that the others (the request
// log) see its span in the context.
func Tracing(opts ...Option) runtime.Interceptor {
	c := newConfig(opts)
	t := &tracing{tracer: c.tracer(), prop: c.propagator}
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
	ops    opCache
	// noop: the provider is a no-op; global: it is OpenTelemetry's global
	// provider, a no-op until a program sets one (see off).
	noop, global bool
	// targets caches the attributes of the agents clients call, by
	// CallInfo.Peer.
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

func (t *tracing) WrapUnary(next runtime.UnaryFunc) runtime.UnaryFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
		if t.off() {
			t.propagate(ctx, call)
			return next(ctx, call, req)
		}
		ctx, span, known := t.start(ctx, call, req)
		resp, err := next(ctx, call, req)
		t.end(ctx, span, call, resp, err, known, -1)
		return resp, err
	}
}

func (t *tracing) WrapStream(next runtime.StreamFunc) runtime.StreamFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
		if t.off() {
			t.propagate(ctx, call)
			return next(ctx, call, req, send)
		}
		ctx, span, known := t.start(ctx, call, req)
		if !span.IsRecording() {
			err := next(ctx, call, req, send)
			span.End()
			return err
		}
		// Handlers may send from several goroutines.
		var (
			mu    sync.Mutex
			n     int
			first proto.Message
		)
		err := next(ctx, call, req, func(m proto.Message) error {
			mu.Lock()
			i := n
			n++
			if first == nil {
				first = m
			}
			mu.Unlock()
			span.AddEvent("a2a.stream.event", trace.WithAttributes(eventAttrs(m, i)...))
			return send(m)
		})
		mu.Lock()
		events, firstEvent := n, first
		mu.Unlock()
		t.end(ctx, span, call, firstEvent, err, known, events)
		return err
	}
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
// span, whose context goes into the call's headers. known reports whether
// the request named the task.
func (t *tracing) start(ctx context.Context, call *runtime.CallInfo, req proto.Message) (context.Context, trace.Span, bool) {
	a := t.ops.get(call)
	// Every attribute known now is given at the start, where samplers see
	// them, and the span stores them in one allocation.
	n := len(a.base) + 4 // binding, version, up to two of the peer
	if call.Tenant != "" {
		n++
	}
	taskID, contextID := requestIDs(req)
	if taskID != "" {
		n++
	}
	if contextID != "" {
		n++
	}
	attrs := make([]attribute.KeyValue, 0, n)
	attrs = append(attrs, a.base...)
	attrs = append(attrs, AttrBinding.String(call.Binding))
	if call.Version != "" {
		attrs = append(attrs, AttrVersion.String(call.Version))
	}
	if call.Tenant != "" {
		attrs = append(attrs, AttrTenant.String(call.Tenant))
	}
	if taskID != "" {
		attrs = append(attrs, AttrTaskID.String(taskID))
	}
	if contextID != "" {
		attrs = append(attrs, AttrContextID.String(contextID))
	}
	attrs = t.appendPeer(attrs, call)
	var span trace.Span
	if call.Client {
		ctx, span = t.tracer.Start(ctx, a.method, clientKind, trace.WithAttributes(attrs...))
		t.prop.Inject(ctx, headerCarrier(call.Header))
	} else {
		if !trace.SpanContextFromContext(ctx).IsValid() {
			ctx = t.prop.Extract(ctx, headerCarrier(call.Header))
		}
		ctx, span = t.tracer.Start(ctx, a.method, serverKind, trace.WithAttributes(attrs...))
	}
	return ctx, span, taskID != ""
}

var (
	serverKind = trace.WithSpanKind(trace.SpanKindServer)
	clientKind = trace.WithSpanKind(trace.SpanKindClient)
)

// end records how the call ended and ends its span. resp is the response
// (streams: the first event), events the number of stream events (-1 for
// a unary call).
func (t *tracing) end(ctx context.Context, span trace.Span, call *runtime.CallInfo, resp proto.Message, err error, known bool, events int) {
	if !span.IsRecording() {
		span.End()
		return
	}
	o := okOutcome
	if err != nil {
		o = outcomeOf(ctx, call, err)
	}
	var buf [5]attribute.KeyValue
	attrs := buf[:0]
	if err != nil { // success is the span's unset status
		if sc := statusCode(call.Binding, o); sc != "" {
			attrs = append(attrs, semconv.RPCResponseStatusCodeKey.String(sc))
		}
	}
	if !known && resp != nil {
		taskID, contextID := responseIDs(resp)
		if taskID != "" {
			attrs = append(attrs, AttrTaskID.String(taskID))
		}
		if contextID != "" {
			attrs = append(attrs, AttrContextID.String(contextID))
		}
	}
	if events >= 0 {
		attrs = append(attrs, AttrStreamEvents.Int(events))
	}
	if o.errorType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(o.errorType))
	}
	span.SetAttributes(attrs...)
	if err != nil && o.name != "OK" {
		text := errorText(err)
		if o.fault {
			span.SetStatus(codes.Error, text)
		}
		recordException(span, err, text)
	}
	span.End()
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

// appendPeer adds the other side's address: the client's
// (network.peer.address, network.peer.port) on the server, the agent's
// (server.address, server.port) on the client, parsed once per target.
func (t *tracing) appendPeer(attrs []attribute.KeyValue, call *runtime.CallInfo) []attribute.KeyValue {
	if call.Peer == "" {
		return attrs
	}
	if !call.Client {
		// The client's ephemeral port says nothing worth its cost.
		if host, _, err := net.SplitHostPort(call.Peer); err == nil {
			return append(attrs, semconv.NetworkPeerAddressKey.String(host))
		}
		return append(attrs, semconv.NetworkPeerAddressKey.String(call.Peer))
	}
	if v, ok := t.targets.Load(call.Peer); ok {
		return append(attrs, v.([]attribute.KeyValue)...)
	}
	target := targetAttrs(call.Peer)
	t.targets.Store(call.Peer, target)
	return append(attrs, target...)
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
