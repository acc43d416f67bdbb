package telemetry

import (
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2agen/a2agen/runtime"
)

// rpcSystem is the rpc.system.name of a binding. The semantic conventions
// name "jsonrpc" and "grpc"; HTTP+JSON, a REST mapping of the same rpcs
// with no system name of its own there, is "http"; a custom binding is its
// name, lower-cased. a2a.protocol.binding carries the binding as agent
// cards name it.
func rpcSystem(b runtime.Binding) string {
	if spec, ok := runtime.BindingSpecOf(b); ok {
		return spec.RPCSystem
	}
	return strings.ToLower(b.String())
}

// rpcMethod is the rpc.method of an operation: its fully-qualified name,
// "lf.a2a.v1.A2AService/SendMessage" (the gRPC procedure without its
// leading slash). It is also the name of the call's spans.
func rpcMethod(op *runtime.Operation) string {
	if p := strings.TrimPrefix(op.Procedure, "/"); p != "" {
		return p
	}
	return op.Name
}

// opAttrs are the attributes every span and measurement of one operation on
// one binding starts with, computed once.
type opAttrs struct {
	method string // rpc.method, the span name
	base   []attribute.KeyValue
	set    attribute.Set // of base (metrics of successful calls)
	// The options of measurements of successful calls and of streams.
	record []metric.RecordOption
	add    []metric.AddOption
	// serverStart are the options that start a server span (its kind and
	// base); a client span's add the target (tracing.clientStart).
	serverStart []trace.SpanStartOption
	// clientStart: those of the target client spans last started with.
	clientStart atomic.Pointer[clientStart]
}

// opCache computes opAttrs once per operation and binding; the zero value
// is ready. The hot path is one lock-free load.
type opCache struct {
	byBinding [3]sync.Map // *runtime.Operation → *opAttrs, by Binding.Index
}

func (c *opCache) get(call *runtime.CallInfo) *opAttrs {
	i := call.Binding.Index()
	if i >= 0 {
		if v, ok := c.byBinding[i].Load(call.Operation); ok {
			return v.(*opAttrs)
		}
	}
	a := &opAttrs{method: rpcMethod(call.Operation)}
	a.base = []attribute.KeyValue{
		semconv.RPCSystemNameKey.String(rpcSystem(call.Binding)),
		semconv.RPCMethodKey.String(a.method),
	}
	a.set = attribute.NewSet(a.base...)
	a.record = []metric.RecordOption{metric.WithAttributeSet(a.set)}
	a.add = []metric.AddOption{metric.WithAttributeSet(a.set)}
	a.serverStart = []trace.SpanStartOption{serverKind, trace.WithAttributes(a.base...)}
	if i < 0 { // an unknown binding: not worth caching
		return a
	}
	v, _ := c.byBinding[i].LoadOrStore(call.Operation, a)
	return v.(*opAttrs)
}
