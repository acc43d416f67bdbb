package runtime

import (
	"context"
	"fmt"
	"iter"

	"google.golang.org/protobuf/proto"
)

// The client side of rpcs whose client sends a stream of requests:
// bidirectional rpcs (A2A's SendLiveMessage) and client-streaming ones.
// Generated client methods take the requests as an iterator, as the
// handler receives them, and return the responses as the server-streaming
// methods do:
//
//	reqs := make(chan *a2av1.StreamRequest, 1)
//	reqs <- first
//	for resp, err := range client.SendLiveMessage(ctx, runtime.Requests(reqs)) {
//		if err != nil {
//			return err
//		}
//		// … read resp; send the next request, or close(reqs) to end
//	}
//
// The call starts when ranging starts. The transport ranges over the
// requests on a goroutine of its own, sending each as it is yielded, and
// closes its side of the call when the iterator returns; the responses are
// yielded as they arrive, so both directions interleave. Breaking out of
// the loop cancels the call. A fixed list of requests is slices.Values(list).
//
// A2A defines such rpcs on gRPC only (Operation.ServedOn): on the JSON-RPC
// and HTTP+JSON clients the call fails with UnsupportedOperation before
// anything is sent.

// BidiTransport is a ClientTransport that carries calls whose client
// streams its requests (Operation.ClientStreaming): the gRPC transport,
// and ClosableTransport over it.
type BidiTransport interface {
	ClientTransport
	// Bidi sends each request of reqs for op as it is yielded and yields
	// each response, decoded into a message from newResp. The iteration
	// ends after the last response, after the first error, or when the
	// caller stops ranging (which cancels the call).
	Bidi(ctx context.Context, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error]
}

// Requests presents a channel as the request iterator of a bidirectional
// or client-streaming call: each value received is sent, and closing the
// channel ends the client's side of the call.
func Requests[Req proto.Message](ch <-chan Req) iter.Seq[Req] {
	return func(yield func(Req) bool) {
		for r := range ch {
			if !yield(r) {
				return
			}
		}
	}
}

// CallBidi is what generated client methods call for a bidirectional rpc.
func CallBidi[Req, Resp proto.Message](ctx context.Context, t ClientTransport, op *Operation, reqs iter.Seq[Req], newResp func() Resp) iter.Seq2[Resp, error] {
	return func(yield func(Resp, error) bool) {
		yieldTyped(yield, callRequestStream(ctx, t, op, reqs, func() proto.Message { return newResp() }))
	}
}

// CallClientStream is what generated client methods call for a
// client-streaming rpc: it sends every request of reqs and returns the one
// response.
func CallClientStream[Req, Resp proto.Message](ctx context.Context, t ClientTransport, op *Operation, reqs iter.Seq[Req], resp Resp) (Resp, error) {
	var zero Resp
	for m, err := range callRequestStream(ctx, t, op, reqs, func() proto.Message { return resp }) {
		if err != nil {
			return zero, err
		}
		return m.(Resp), nil
	}
	return zero, Internal(fmt.Errorf("the %s call ended without a response", op.Name))
}

// callRequestStream runs a call whose client streams its requests through
// t, or refuses it when t does not carry such calls.
func callRequestStream[Req proto.Message](ctx context.Context, t ClientTransport, op *Operation, reqs iter.Seq[Req], newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	bt, ok := t.(BidiTransport)
	if !ok {
		return func(yield func(proto.Message, error) bool) { yield(nil, unsupportedRequestStream(op)) }
	}
	return bt.Bidi(ctx, op, untypedRequests(reqs), newResp)
}

// untypedRequests presents the caller's requests to the transport.
func untypedRequests[Req proto.Message](reqs iter.Seq[Req]) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		for r := range reqs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// unsupportedRequestStream is the error of a call whose client streams its
// requests on a transport that cannot carry it.
func unsupportedRequestStream(op *Operation) *Error {
	kind := "client-streaming"
	if op.ServerStreaming {
		kind = "bidirectional-streaming"
	}
	return UnsupportedOperation(fmt.Sprintf("%s is a %s rpc, which A2A defines on the gRPC binding only: call it over gRPC", op.Name, kind))
}

// Bidi implements BidiTransport: over a transport that carries such calls,
// and failing with UnsupportedOperation over one that does not.
func (c *ClosableTransport) Bidi(ctx context.Context, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	inner, ok := c.inner.(BidiTransport)
	return func(yield func(proto.Message, error) bool) {
		switch {
		case c.closed.Load():
			yield(nil, ErrClientClosed)
		case !ok:
			yield(nil, unsupportedRequestStream(op))
		default:
			inner.Bidi(ctx, op, reqs, newResp)(yield)
		}
	}
}

// addBidi gives the chains of a transport that carries calls whose client
// streams its requests (gRPC) their intercepted form.
func (ch *clientChains) addBidi(interceptors []Interceptor, bidi func(ctx context.Context, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error]) {
	ch.directBidi = bidi
	ch.bidi = chainBidi(interceptors, func(ctx context.Context, call *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
		return sendEach(bidi(ctx, call.Operation, reqs, call.newResp), send)
	})
}

// interceptBidi runs a call whose client streams its requests through the
// chains.
func (c *clientConfig) interceptBidi(ctx context.Context, ch *clientChains, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	if ch.idle.Idle(ctx, true) {
		return ch.directBidi(ctx, op, reqs, newResp)
	}
	return c.streamThrough(ctx, ch, op, nil, newResp, func(cc *clientCallContext, call *CallInfo, send func(proto.Message) error) error {
		return ch.bidi(cc, call, reqs, send)
	})
}
