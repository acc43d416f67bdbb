package telemetry

import (
	"net/http"
	"net/textproto"
)

// headerCarrier is propagation.HeaderCarrier without the cost of
// canonicalising the keys the W3C propagators use on every call: CallInfo
// headers (gRPC metadata included) have canonical keys, so the common keys
// are looked up as they are.
type headerCarrier http.Header

// canonicalKey is textproto.CanonicalMIMEHeaderKey, allocation-free for the
// keys of the W3C propagators.
func canonicalKey(key string) string {
	switch key {
	case "traceparent":
		return "Traceparent"
	case "tracestate":
		return "Tracestate"
	case "baggage":
		return "Baggage"
	}
	return textproto.CanonicalMIMEHeaderKey(key)
}

// Get implements propagation.TextMapCarrier.
func (c headerCarrier) Get(key string) string {
	if v := c[canonicalKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values implements propagation.ValuesGetter.
func (c headerCarrier) Values(key string) []string { return c[canonicalKey(key)] }

// Set implements propagation.TextMapCarrier.
func (c headerCarrier) Set(key, value string) { c[canonicalKey(key)] = []string{value} }

// Keys implements propagation.TextMapCarrier.
func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
