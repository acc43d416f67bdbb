package telemetry

import (
	"context"
	"encoding/hex"
	"net/http"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
)

// The trace context of a call in its common form — a W3C traceparent,
// version 00, without tracestate or baggage — is read and written here,
// without the default propagator's interfaces (a composite of Trace
// Context and Baggage, each looking up its headers through a carrier):
// the same headers for a quarter of the instructions. Anything else (a
// configured propagator, tracestate, baggage, another version, a value the
// strict form below refuses) goes through the propagator, which decides.

// traceparentLen is the length of a version 00 traceparent:
// 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>.
const traceparentLen = 2 + 1 + 32 + 1 + 16 + 1 + 2

// injectW3C sets call's traceparent for the span context sc of ctx's span
// and reports true, or reports false when the propagator has to do it (a
// tracestate, or baggage in ctx).
func injectW3C(ctx context.Context, sc trace.SpanContext, h http.Header) bool {
	if !sc.IsValid() {
		return true // nothing to send, as the propagator would
	}
	if sc.TraceState().Len() > 0 || baggage.FromContext(ctx).Len() > 0 {
		return false
	}
	var b [traceparentLen]byte
	b[0], b[1], b[2] = '0', '0', '-'
	tid, sid := sc.TraceID(), sc.SpanID()
	hex.Encode(b[3:35], tid[:])
	b[35] = '-'
	hex.Encode(b[36:52], sid[:])
	b[52] = '-'
	// Only the flags the specification defines: sampled and random.
	flags := [1]byte{byte(sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom))}
	hex.Encode(b[53:55], flags[:])
	h["Traceparent"] = []string{string(b[:])}
	return true
}

// extractW3C returns ctx with the caller's span context from h, when h
// carries a traceparent in the strict form and nothing else of the
// propagator's; ok false means the propagator has to read h.
func extractW3C(ctx context.Context, h http.Header) (_ context.Context, ok bool) {
	vs := h["Traceparent"]
	if len(vs) != 1 || len(h["Tracestate"]) > 0 || len(h["Baggage"]) > 0 {
		return ctx, false
	}
	sc, ok := parseTraceparent(vs[0])
	if !ok || !sc.IsValid() { // an all-zero id: let the propagator refuse it
		return ctx, false
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc), true
}

// parseTraceparent reads a traceparent of version 00 in the strict form:
// lowercase hexadecimal ids, and only the flags the specification defines.
func parseTraceparent(s string) (trace.SpanContext, bool) {
	if len(s) != traceparentLen || s[0] != '0' || s[1] != '0' || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return trace.SpanContext{}, false
	}
	var scc trace.SpanContextConfig
	var flags [1]byte
	if !lowerHex(scc.TraceID[:], s[3:35]) || !lowerHex(scc.SpanID[:], s[36:52]) || !lowerHex(flags[:], s[53:55]) || flags[0] > 3 {
		return trace.SpanContext{}, false
	}
	scc.TraceFlags = trace.TraceFlags(flags[0])
	scc.Remote = true
	return trace.NewSpanContext(scc), true
}

// lowerHex decodes the lowercase hexadecimal src into dst (len(src) =
// 2·len(dst)); false for any other character (the specification forbids
// uppercase).
func lowerHex(dst []byte, src string) bool {
	var bad byte
	for i := range dst {
		hi, lo := hexValue[src[2*i]], hexValue[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0x0f
	}
	return bad&0xf0 == 0
}

// hexValue is the value of a lowercase hexadecimal digit, 0xff for every
// other byte: one load per character, where a comparison chain costs a
// branch or two (a third of the cost of reading a traceparent).
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()
