package runtime

import (
	"fmt"
	"net/http"
	"strconv"
)

// Resuming a stream (A2A 1.1 draft, resumable streams): the generation of the
// last event a client received, sent back with SubscribeToTask so that the
// server replays what followed it. The HTTP bindings carry it in the SSE
// Last-Event-ID header (what a browser's EventSource sends by itself when
// it reconnects); gRPC, which has no SSE, in the metadata key
// MetadataLastEventID. A handler reads it from CallInfo.Header with
// LastEventID, whichever the binding.

const (
	// HeaderLastEventID is the SSE request header naming the id of the last
	// event received.
	HeaderLastEventID = "Last-Event-ID"
	// MetadataLastEventID is the gRPC metadata key that carries the same
	// value (gRPC metadata keys are lower case).
	MetadataLastEventID = "a2a-last-event-id"
)

// maxLastEventIDLen is the longest value read: an int64 has at most 19
// digits.
const maxLastEventIDLen = 19

// ParseLastEventID reads a Last-Event-ID value: a generation, written in
// decimal digits only (no sign, no spaces, at most 19 digits), that fits an
// int64.
func ParseLastEventID(v string) (int64, error) {
	if v == "" {
		return 0, fmt.Errorf("a2a: %s is empty; send the id of the last event received (a generation, decimal digits) or leave the header out", HeaderLastEventID)
	}
	if len(v) > maxLastEventIDLen {
		return 0, fmt.Errorf("a2a: %s has %d characters; a generation has at most %d decimal digits", HeaderLastEventID, len(v), maxLastEventIDLen)
	}
	for i := range len(v) {
		if v[i] < '0' || v[i] > '9' {
			return 0, fmt.Errorf("a2a: %s %q is not a generation: only decimal digits are allowed", HeaderLastEventID, v)
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("a2a: %s %q is not a generation: %w", HeaderLastEventID, v, err)
	}
	return n, nil
}

// LastEventID returns the generation a request resumes after: its
// Last-Event-ID header or, on gRPC, its a2a-last-event-id metadata (either
// is read on any binding; gRPC metadata is presented as headers). ok is
// false when the request carries neither. Two values, or a value
// ParseLastEventID refuses, is InvalidParams naming the header.
func LastEventID(h http.Header) (gen int64, ok bool, err error) {
	name := HeaderLastEventID
	vs := h.Values(HeaderLastEventID)
	if len(vs) == 0 {
		name = MetadataLastEventID
		vs = h.Values(MetadataLastEventID)
	}
	switch len(vs) {
	case 0:
		return 0, false, nil
	case 1:
	default:
		return 0, false, InvalidParams(fmt.Sprintf("%s was sent %d times; send it once", name, len(vs)),
			FieldViolation{Field: name, Description: "one value: the generation of the last event received"})
	}
	gen, perr := ParseLastEventID(vs[0])
	if perr != nil {
		return 0, false, InvalidParams(perr.Error(), FieldViolation{Field: name, Description: "the generation of the last event received, in decimal digits"})
	}
	return gen, true, nil
}
