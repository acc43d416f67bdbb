package runtime

import "context"

// AfterResponse arranges for f to run once the binding serving the call of
// ctx is done with its answer: on JSON-RPC and HTTP+JSON after the response
// has been encoded and written (or the stream has ended), on gRPC when the
// handler returns (grpc-go encodes the response afterwards, as protobuf,
// which costs a fraction of JSON). A handler that holds a resource for what
// its answer costs — a slot bounding concurrent listings, say — releases it
// here, so that the encoding of a large response counts too. f runs once,
// also when the call fails. It reports false outside a served call (no
// CallInfo in ctx, or a client's), when f will never run: the caller then
// releases at once.
func AfterResponse(ctx context.Context, f func()) bool {
	info, ok := CallInfoFromContext(ctx)
	if !ok || info.Client {
		return false
	}
	info.mu.Lock()
	defer info.mu.Unlock()
	if info.finished {
		return false
	}
	info.after = append(info.after, f)
	return true
}

// finish runs the functions AfterResponse registered; bindings defer it
// where they create the call's CallInfo. info may be nil.
func (c *CallInfo) finish() {
	if c == nil {
		return
	}
	c.mu.Lock()
	after := c.after
	c.after, c.finished = nil, true
	c.mu.Unlock()
	for _, f := range after {
		f()
	}
}
