package runtime

import (
	"context"
	"iter"
	"sync"

	"google.golang.org/protobuf/proto"
)

// The server side of rpcs whose client sends a stream of requests:
// bidirectional rpcs (A2A's SendLiveMessage) and client-streaming ones.
// Their handler methods read like the server-streaming ones with the one
// request replaced by an iterator over the requests: the handler ranges
// over them as they arrive and, for a bidirectional rpc, sends its responses
// on a Stream whenever it likes, from the same goroutine or another, so the
// two directions interleave as the rpc needs:
//
//	func (h) SendLiveMessage(ctx context.Context, reqs iter.Seq2[*a2av1.StreamRequest, error], stream runtime.Stream[*a2av1.StreamResponse]) error {
//		for req, err := range reqs {
//			if err != nil {
//				return err // the client's stream failed, or a request was refused
//			}
//			if err := stream.Send(answer(req)); err != nil {
//				return err
//			}
//		}
//		return nil // the client closed its side: the call ends
//	}
//
// An iterator was chosen over a stream object with Recv and Send: it is the
// shape of the server-streaming handlers (and of every client stream of
// this module), ends itself on the client's half-close, and its error
// arrives where the loop already looks.
//
// The requests are checked one by one as on a unary call (values, depth,
// REQUIRED fields, tenant); a request that fails is yielded as the error of
// the iteration, which then ends, and the call ends with that error even
// when the handler returns nil. The iterator can be ranged over once.

// NewBidiEndpoint adapts a typed bidirectional-streaming handler method:
// reqs yields the client's requests in order, stream sends responses.
func NewBidiEndpoint[Req, Resp proto.Message](op *Operation, newReq func() Req, h func(context.Context, iter.Seq2[Req, error], Stream[Resp]) error) *Endpoint {
	return &Endpoint{
		Operation:  op,
		newRequest: func() proto.Message { return newReq() },
		requestStream: func(ctx context.Context, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
			in := &requestStream[Req]{reqs: reqs}
			return in.outcome(h(ctx, in.all, streamFunc[Resp](send)))
		},
	}
}

// NewClientStreamEndpoint adapts a typed client-streaming handler method:
// reqs yields the client's requests in order, and the method answers once
// they ended.
func NewClientStreamEndpoint[Req, Resp proto.Message](op *Operation, newReq func() Req, h func(context.Context, iter.Seq2[Req, error]) (Resp, error)) *Endpoint {
	return &Endpoint{
		Operation:  op,
		newRequest: func() proto.Message { return newReq() },
		requestStream: func(ctx context.Context, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
			in := &requestStream[Req]{reqs: reqs}
			resp, err := h(ctx, in.all)
			if err := in.outcome(err); err != nil {
				return err
			}
			if !resp.ProtoReflect().IsValid() {
				return errNilResponse
			}
			return send(resp)
		},
	}
}

// requestStream presents an untyped request stream to a handler as one of
// Req, and remembers how it failed.
type requestStream[Req proto.Message] struct {
	reqs   iter.Seq2[proto.Message, error]
	mu     sync.Mutex // the handler may range on another goroutine
	failed error
}

func (r *requestStream[Req]) all(yield func(Req, error) bool) {
	for m, err := range r.reqs {
		if err != nil {
			r.mu.Lock()
			r.failed = err
			r.mu.Unlock()
			var zero Req
			yield(zero, err)
			return
		}
		if !yield(m.(Req), nil) {
			return
		}
	}
}

// outcome is how the call ends when the handler returned err: a handler
// that returned nil after its request stream failed (a refused request, the
// client gone) ends it with that failure, so that a refusal always reaches
// the client.
func (r *requestStream[Req]) outcome(err error) error {
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// IsClientStreaming reports whether the endpoint serves an rpc whose client
// sends a stream of requests (bidirectional or client-streaming).
func (e *Endpoint) IsClientStreaming() bool { return e.requestStream != nil }

// CallRequestStream invokes an endpoint whose client streams its requests:
// reqs yields them, send is called for every response (once for a
// client-streaming rpc). It is used by the binding routers.
func (e *Endpoint) CallRequestStream(ctx context.Context, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
	return e.requestStream(ctx, reqs, send)
}

// callRequestStreamSafely is callUnarySafely for such endpoints.
func callRequestStreamSafely(ctx context.Context, ep *Endpoint, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) (err error) {
	defer recoverHandler(&err)
	return ep.CallRequestStream(ctx, reqs, send)
}
