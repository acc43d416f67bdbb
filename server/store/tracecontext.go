package store

// TraceContext is the W3C trace context (https://www.w3.org/TR/trace-context/)
// of the write that queued a push delivery: the values of the traceparent
// and tracestate headers, kept with the delivery so that the webhook request
// continues the trace of the call that produced the event, whichever
// process sends it and however much later. The store keeps the two strings
// as they are and never parses them; the server fills them in through
// server.WithTraceContext (package telemetry does), and both are empty when
// tracing is off.
type TraceContext struct {
	// Parent is the traceparent value, e.g.
	// "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".
	Parent string
	// State is the tracestate value (vendor data), often empty.
	State string
}
