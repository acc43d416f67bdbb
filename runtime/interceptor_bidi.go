package runtime

import (
	"context"
	"iter"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/emptypb"
)

// BidiFunc is one step of a call whose client sends a stream of requests: a
// bidirectional rpc (A2A's SendLiveMessage) or a client-streaming one
// (Operation.ClientStreaming). reqs yields the requests in order (on the
// server as they arrive and pass their checks; on the client as the caller
// produces them, on a goroutine of the transport's), and the step passes
// each response to send (once for a client-streaming rpc). On the client
// side send and reqs run on different goroutines: an interceptor that
// counts both keeps its own counts safe.
type BidiFunc func(ctx context.Context, call *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error

// BidiInterceptor is an Interceptor that also wraps calls whose client
// streams its requests. An interceptor without WrapBidi still sees those
// calls, through WrapStream, as server-streaming calls whose request is the
// empty request message: their responses, outcome, CallInfo and headers,
// but not their requests. So telemetry, logs and authorisation written for
// the existing rpcs cover the new kind without a change.
type BidiInterceptor interface {
	Interceptor
	WrapBidi(next BidiFunc) BidiFunc
}

// WrapBidi implements BidiInterceptor: Bidi when set, else Stream (as for
// any interceptor without WrapBidi), else nothing.
func (f InterceptorFuncs) WrapBidi(next BidiFunc) BidiFunc {
	switch {
	case f.Bidi != nil:
		return f.Bidi(next)
	case f.Stream != nil:
		return bidiThroughStream(f.Stream, next)
	}
	return next
}

// wrapBidi wraps next in interceptor i.
func wrapBidi(i Interceptor, next BidiFunc) BidiFunc {
	if b, ok := i.(BidiInterceptor); ok {
		return b.WrapBidi(next)
	}
	return bidiThroughStream(i.WrapStream, next)
}

// bidiThroughStream runs a call whose client streams its requests through
// an interceptor of server streams: the interceptor is given the empty
// request message, and the requests travel past it in the CallInfo.
func bidiThroughStream(wrap func(StreamFunc) StreamFunc, next BidiFunc) BidiFunc {
	stream := wrap(func(ctx context.Context, call *CallInfo, _ proto.Message, send func(proto.Message) error) error {
		return next(ctx, call, call.requests, send)
	})
	return func(ctx context.Context, call *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
		call.requests = reqs // the chain is entered once per call, in order
		return stream(ctx, call, emptyRequest(call.Operation), send)
	}
}

// emptyRequest is an empty message of the operation's request type, or an
// empty google.protobuf.Empty when that type is not registered.
func emptyRequest(op *Operation) proto.Message {
	if op != nil {
		if mt, err := protoregistry.GlobalTypes.FindMessageByName(op.Request); err == nil {
			return mt.New().Interface()
		}
	}
	return &emptypb.Empty{}
}

// chainBidi wraps f in interceptors, the first one outermost.
func chainBidi(interceptors []Interceptor, f BidiFunc) BidiFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		f = wrapBidi(interceptors[i], f)
	}
	return f
}

// chainServerBidi is chainServerStream for calls whose client streams its
// requests.
func chainServerBidi(interceptors []Interceptor, f BidiFunc) BidiFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		next := wrapBidi(interceptors[i], f)
		f = func(ctx context.Context, call *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) (err error) {
			defer recoverInterceptor(&err)
			return next(ctx, call, reqs, send)
		}
	}
	return f
}

// callRequestStream is callStream (version_view.go) for endpoints whose
// client streams its requests: the call is served in the view of its
// negotiated version — an rpc the version lacks refused, each request read
// with the version's meaning, each response as the version sees it (one of
// a kind it lacks not sent), an error it lacks mapped to one it knows.
func (c *handlerConfig) callRequestStream(ctx context.Context, ep *Endpoint, info *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
	var cv *callView
	if c.views != nil && info != nil {
		cv = c.views[viewKey{ep, info.Version}]
	}
	if cv == nil {
		return errorAsOf(c.callRequestStreamIntercepted(ctx, ep, info, reqs, send), info)
	}
	if cv.refused != nil {
		return cv.refused
	}
	stripped := func(yield func(proto.Message, error) bool) {
		for m, err := range reqs {
			if err == nil {
				cv.req.strip(m)
			}
			if !yield(m, err) {
				return
			}
		}
	}
	viewed := func(m proto.Message) error {
		out, drop := cv.view(m)
		if drop {
			return nil
		}
		return send(out)
	}
	return errorAsOf(c.callRequestStreamIntercepted(ctx, ep, info, stripped, viewed), info)
}

// callRequestStreamIntercepted is callStreamIntercepted for endpoints whose
// client streams its requests.
func (c *handlerConfig) callRequestStreamIntercepted(ctx context.Context, ep *Endpoint, info *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
	if c.chains == nil || c.idle.Idle(ctx, false) {
		return callRequestStreamSafely(ctx, ep, reqs, send)
	}
	err := c.chains[ep].bidi(ctx, info, reqs, send)
	if err != nil && c.failuresLogged {
		info.failureLogged = true
	}
	return err
}

// noRequests is the request stream of a call refused before its handler.
func noRequests(func(proto.Message, error) bool) {}
