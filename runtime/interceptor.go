package runtime

import (
	"context"
	"errors"
	"iter"

	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/internal/idle"
)

// Interceptors wrap calls, on the server around the handler and on the
// client around the transport, the same way on every binding: one
// interceptor written against UnaryFunc and StreamFunc serves JSON-RPC,
// HTTP+JSON and gRPC alike, and works on both sides (CallInfo.Client tells
// which side it is on).
//
// Order: interceptors run in the order they are given, the first one
// outermost. On the server the first sees the call first and its outcome
// last; on the client likewise (the first one sees the request first, then
// the response or each stream event last).
//
// On the server the chain runs for every call whose operation is known,
// after the service parameters were read and the caller authenticated: ctx
// carries the CallInfo and the caller's Identity (IdentityFromContext), req
// is the decoded, validated request. A call refused before its handler
// (unsupported version, missing extension, refused credentials, a request
// that does not decode or lacks required fields) goes through the chain
// too, so that logs and metrics see it: next then returns that error
// without calling the handler, and req is the request as far as it
// decoded. A panic in the handler reaches the interceptors as an Internal
// error, and so does a panic in an interceptor reach the interceptors
// outside it (its cause a PanicError with the stack).
//
// On the client the chain runs around each call of a transport: call.Header
// holds the headers about to be sent (an interceptor may add to it, e.g. a
// traceparent), and after next returns — for streams, before the first
// event is passed on — call.ResponseHeader() holds the answer's headers
// (gRPC: header metadata) and, once the call ended, ResponseTrailer() its
// trailers.

// UnaryFunc is one step of a unary call: it takes the request and returns
// the response or an error.
type UnaryFunc func(ctx context.Context, call *CallInfo, req proto.Message) (proto.Message, error)

// StreamFunc is one step of a server-streaming call: it passes each event
// of the stream to send and returns how the stream ended (nil: normally).
// send returns an error when the stream cannot go on (the client went
// away, or on the client side the caller stopped reading); the function
// should then return it.
type StreamFunc func(ctx context.Context, call *CallInfo, req proto.Message, send func(proto.Message) error) error

// Interceptor wraps the unary and the streaming calls of a handler or a
// client. See InterceptorFuncs for one built from functions.
type Interceptor interface {
	WrapUnary(next UnaryFunc) UnaryFunc
	WrapStream(next StreamFunc) StreamFunc
}

// InterceptorFuncs is an Interceptor made of two functions; a nil function
// leaves that kind of call as it is.
type InterceptorFuncs struct {
	Unary  func(next UnaryFunc) UnaryFunc
	Stream func(next StreamFunc) StreamFunc
	// Bidi wraps the calls whose client streams its requests
	// (interceptor_bidi.go); nil: Stream wraps them, seeing the empty
	// request.
	Bidi func(next BidiFunc) BidiFunc
}

// WrapUnary implements Interceptor.
func (f InterceptorFuncs) WrapUnary(next UnaryFunc) UnaryFunc {
	if f.Unary == nil {
		return next
	}
	return f.Unary(next)
}

// WrapStream implements Interceptor.
func (f InterceptorFuncs) WrapStream(next StreamFunc) StreamFunc {
	if f.Stream == nil {
		return next
	}
	return f.Stream(next)
}

// WithInterceptors adds interceptors to a binding's handler; they wrap the
// handler's calls in the order given (the first one outermost), after the
// ones added before. Give the same interceptors to every binding of an
// agent.
func WithInterceptors(interceptors ...Interceptor) HandlerOption {
	return func(c *handlerConfig) { c.interceptors = appendInterceptors(c.interceptors, interceptors) }
}

// WithClientInterceptors adds interceptors to a client transport, in the
// order given (the first one outermost), after the ones added before.
func WithClientInterceptors(interceptors ...Interceptor) ClientOption {
	return func(c *clientConfig) { c.interceptors = appendInterceptors(c.interceptors, interceptors) }
}

func appendInterceptors(dst, add []Interceptor) []Interceptor {
	for _, i := range add {
		if i != nil {
			dst = append(dst, i)
		}
	}
	return dst
}

// chainUnary wraps f in interceptors, the first one outermost.
func chainUnary(interceptors []Interceptor, f UnaryFunc) UnaryFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		f = interceptors[i].WrapUnary(f)
	}
	return f
}

// chainStream wraps f in interceptors, the first one outermost.
func chainStream(interceptors []Interceptor, f StreamFunc) StreamFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		f = interceptors[i].WrapStream(f)
	}
	return f
}

// chainServerUnary is chainUnary for a handler: a panic in an interceptor
// becomes an Internal error (a PanicError) at that interceptor's boundary,
// as one in the handler does, so that the interceptors outside it (the
// request log) see the failure and every binding answers it alike.
func chainServerUnary(interceptors []Interceptor, f UnaryFunc) UnaryFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		next := interceptors[i].WrapUnary(f)
		f = func(ctx context.Context, call *CallInfo, req proto.Message) (resp proto.Message, err error) {
			defer recoverInterceptor(&err)
			return next(ctx, call, req)
		}
	}
	return f
}

// recoverInterceptor is recoverHandler at an interceptor's boundary: the
// layers inside it already turned their panics into errors, so a panic
// here is the interceptor's ("interceptor panicked: …").
func recoverInterceptor(err *error) {
	if p := recover(); p != nil {
		*err = panicked(p, "interceptor")
	}
}

// chainServerStream is chainServerUnary for streaming calls.
func chainServerStream(interceptors []Interceptor, f StreamFunc) StreamFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		next := interceptors[i].WrapStream(f)
		f = func(ctx context.Context, call *CallInfo, req proto.Message, send func(proto.Message) error) (err error) {
			defer recoverInterceptor(&err)
			return next(ctx, call, req, send)
		}
	}
	return f
}

// serverChain is the intercepted calls of one endpoint of a handler.
type serverChain struct {
	unary  UnaryFunc
	stream StreamFunc
	bidi   BidiFunc // interceptor_bidi.go
}

// newHandlerConfigFor is newHandlerConfig for a handler of svc: with
// interceptors, it builds the intercepted call of every endpoint once.
func newHandlerConfigFor(svc *Service, opts []HandlerOption) *handlerConfig {
	c := newHandlerConfig(opts)
	if c.supportedVersions == nil {
		c.supportedVersions = svc.Desc.ProtocolVersions
	}
	c.setVersionView(svc) // version_view.go
	c.chains = c.serverChains(svc)
	c.idle = idle.NewChain(c.interceptors)
	c.failuresLogged = logsFailures(c.interceptors) // failure.go
	return c
}

// serverChains builds the intercepted call of every endpoint of svc; nil
// without interceptors.
func (c *handlerConfig) serverChains(svc *Service) map[*Endpoint]*serverChain {
	if len(c.interceptors) == 0 {
		return nil
	}
	chains := make(map[*Endpoint]*serverChain, len(svc.Endpoints))
	for _, ep := range svc.Endpoints {
		if ep.IsClientStreaming() {
			chains[ep] = &serverChain{bidi: chainServerBidi(c.interceptors, func(ctx context.Context, _ *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
				return callRequestStreamSafely(ctx, ep, reqs, send)
			})}
			continue
		}
		if ep.IsStreaming() {
			chains[ep] = &serverChain{stream: chainServerStream(c.interceptors, func(ctx context.Context, _ *CallInfo, req proto.Message, send func(proto.Message) error) error {
				return callStreamSafely(ctx, ep, req, send)
			})}
		} else {
			chains[ep] = &serverChain{unary: chainServerUnary(c.interceptors, func(ctx context.Context, _ *CallInfo, req proto.Message) (proto.Message, error) {
				return callUnarySafely(ctx, ep, req)
			})}
		}
	}
	return chains
}

// callUnaryIntercepted serves a unary call through the interceptors of the
// handler, or straight to the endpoint without any (or when all of them say
// they are idle for the call: telemetry's with no-op providers). A panic in
// the handler becomes an Internal error. callUnary (version_view.go) calls it
// in the view of the call's version.
func (c *handlerConfig) callUnaryIntercepted(ctx context.Context, ep *Endpoint, info *CallInfo, req proto.Message) (proto.Message, error) {
	if c.chains == nil || c.idle.Idle(ctx, false) {
		return callUnarySafely(ctx, ep, req)
	}
	resp, err := c.chains[ep].unary(ctx, info, req)
	if err != nil && c.failuresLogged {
		info.failureLogged = true
	}
	return resp, err
}

// callStreamIntercepted is callUnaryIntercepted for streaming calls.
func (c *handlerConfig) callStreamIntercepted(ctx context.Context, ep *Endpoint, info *CallInfo, req proto.Message, send func(proto.Message) error) error {
	if c.chains == nil || c.idle.Idle(ctx, false) {
		return callStreamSafely(ctx, ep, req, send)
	}
	err := c.chains[ep].stream(ctx, info, req, send)
	if err != nil && c.failuresLogged {
		info.failureLogged = true
	}
	return err
}

// rejected runs the interceptors of a handler for a call refused before its
// handler, with e as the outcome, and returns the error to answer (e, or
// what an interceptor made of it). Without interceptors it returns e.
// info may be nil (the service parameters were refused): the interceptors
// then see a CallInfo with the operation, binding and headers only.
func (c *handlerConfig) rejected(ctx context.Context, binding Binding, ep *Endpoint, info *CallInfo, header map[string][]string, req proto.Message, e *Error) *Error {
	if len(c.interceptors) == 0 {
		return e
	}
	if info == nil {
		info = &CallInfo{Operation: ep.Operation, Binding: binding, Header: header}
	}
	if req == nil {
		req = ep.NewRequest()
	}
	ctx = WithCallInfo(ctx, info)
	var err error
	refusedSend := func(proto.Message) error { return errStreamClosed }
	switch {
	case ep.IsClientStreaming():
		err = chainServerBidi(c.interceptors, func(context.Context, *CallInfo, iter.Seq2[proto.Message, error], func(proto.Message) error) error {
			return e
		})(ctx, info, noRequests, refusedSend)
	case ep.IsStreaming():
		err = chainServerStream(c.interceptors, func(context.Context, *CallInfo, proto.Message, func(proto.Message) error) error {
			return e
		})(ctx, info, req, refusedSend)
	default:
		_, err = chainServerUnary(c.interceptors, func(context.Context, *CallInfo, proto.Message) (proto.Message, error) {
			return nil, e
		})(ctx, info, req)
	}
	if err == nil { // an interceptor claimed success for a refused call
		return e
	}
	return c.withDefaultChallenges(ErrorOrInternal(err))
}

// ErrStreamStopped is what send returns on the client side once the caller
// stopped ranging over the stream; interceptors see it as the outcome of a
// stream the caller ended early (not a failure of the agent).
var ErrStreamStopped = errors.New("a2a: the caller stopped reading the stream")
