package runtime

import "context"

// AfterResponse arranges for f to run once the binding serving the call of
// ctx is done with its answer: on JSON-RPC and HTTP+JSON after the response
// has been encoded and written (or the stream has ended), on gRPC when the
// handler returns (grpc-go encodes the response afterwards, as protobuf,
// which costs a fraction of JSON). A handler that holds a resource for what
// its answer costs — a slot bounding concurrent listings, say — releases it
// here, so that the encoding of a large response counts too. f runs once,
// also when the call fails. It reports false, and f will never run, outside
// a call a binding serves (no CallInfo in ctx, a client's, or one a program
// or test made with WithCallInfo): the caller then releases at once.
func AfterResponse(ctx context.Context, f func()) bool {
	info, ok := CallInfoFromContext(ctx)
	if !ok || info.Client {
		return false
	}
	info.mu.Lock()
	defer info.mu.Unlock()
	if !info.tracked || info.finished {
		return false
	}
	info.after = append(info.after, f)
	return true
}

// track marks c as the CallInfo of a call whose binding runs finish once it
// is done with the call: bindings call info.track() and defer info.finish()
// where they create the call's CallInfo (a method value returned instead
// would cost an allocation per call). c may be nil.
func (c *CallInfo) track() {
	if c != nil {
		c.mu.Lock()
		c.tracked = true
		c.mu.Unlock()
	}
}

// finish runs the functions AfterResponse registered. c may be nil.
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
