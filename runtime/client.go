package runtime

import (
	"context"
	"iter"

	"google.golang.org/protobuf/proto"
)

// ClientTransport carries calls of any operation over one binding. Generated
// clients are thin typed wrappers over a transport, so every binding shares one
// client interface: NewJSONRPCTransport, NewRESTTransport and NewGRPCTransport.
type ClientTransport interface {
	// Unary sends req for op and decodes the answer into resp. A2A errors come
	// back as *Error.
	Unary(ctx context.Context, op *Operation, req, resp proto.Message) error
	// Stream sends req for a server-streaming op and yields each response,
	// decoded into a message from newResp. The iteration ends after the last
	// event, after the first error, or when the caller stops ranging (which
	// releases the connection).
	Stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error]
}

// CallUnary is what generated client methods call for a unary rpc.
func CallUnary[Resp proto.Message](ctx context.Context, t ClientTransport, op *Operation, req proto.Message, resp Resp) (Resp, error) {
	if err := t.Unary(ctx, op, req, resp); err != nil {
		var zero Resp
		return zero, err
	}
	return resp, nil
}

// CallStream is what generated client methods call for a server-streaming rpc.
func CallStream[Resp proto.Message](ctx context.Context, t ClientTransport, op *Operation, req proto.Message, newResp func() Resp) iter.Seq2[Resp, error] {
	return func(yield func(Resp, error) bool) {
		yieldTyped(yield, t.Stream(ctx, op, req, func() proto.Message { return newResp() }))
	}
}

// yieldTyped passes the answers of a streaming call on to yield as the
// rpc's own response type; the first error ends them. Callers start the
// call (t.Stream) inside their iteration, so that nothing is sent before
// the caller ranges, and without a closure more per call for that.
func yieldTyped[Resp proto.Message](yield func(Resp, error) bool, answers iter.Seq2[proto.Message, error]) {
	for m, err := range answers {
		if err != nil {
			var zero Resp
			yield(zero, err)
			return
		}
		if !yield(m.(Resp), nil) {
			return
		}
	}
}
