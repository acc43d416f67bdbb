package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	goruntime "runtime"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Calls whose client streams its requests (bidirectional and
// client-streaming rpcs, Operation.ClientStreaming) on the gRPC binding,
// the one binding A2A defines them on. Both sides go through the same steps
// as the other rpcs: service parameters and authentication once per call,
// the checks of a request (values, depth, REQUIRED fields, tenant) on every
// request, the interceptors (BidiFunc, or WrapStream for an interceptor
// without WrapBidi), the error table, activated extensions, and the message
// size limits (grpc.MaxRecvMsgSize on the server, WithMaxResponseBytes on
// the client), which grpc-go applies to each message. Like the server
// streams, such a call has no deadline of its own: the client's (its
// context) ends it, and the server's keepalive settings find a vanished
// peer (host.Limits.StreamKeepAlive).

// serveRequestStream serves one call of an endpoint whose client streams
// its requests.
func (s *grpcService) serveRequestStream(ep *Endpoint, ss grpc.ServerStream) error {
	c := &grpcCall{s: s, ep: ep}
	ctx := c.admit(ss.Context())
	c.info.track()
	defer c.info.finish()
	if c.refusal != nil {
		return c.refuse(ctx, ss.SetTrailer)
	}
	ctx = c.info.attach(ctx)
	in := &grpcRequests{call: c, ctx: ctx, ss: ss}
	st := &grpcServerStream{ctx: ctx, ss: ss, info: c.info}
	err := grpcCallRequestStream(ctx, s.cfg, ep, c.info, in.all, st.send)
	st.finish()
	if err == nil {
		return nil
	}
	if unread := in.unreadable(); unread != nil && errors.Is(err, unread) {
		return unread // grpc-go's own answer, as for a unary request it cannot read
	}
	return s.fail(ctx, ep, err)
}

// grpcRequests reads the requests of one call as the handler ranges over
// them.
type grpcRequests struct {
	call *grpcCall
	ctx  context.Context
	ss   grpc.ServerStream

	mu     sync.Mutex
	n      int   // requests read
	unread error // grpc-go's status for a request it could not read (decoding, size)
}

// all yields each request that passed its checks; a refused one, a request
// grpc-go could not read, or the end of the call by the client is yielded
// as an error and ends the iteration.
func (r *grpcRequests) all(yield func(proto.Message, error) bool) {
	for {
		req := grpcRequest{Message: r.call.ep.NewRequest()}
		err := r.ss.RecvMsg(&req)
		switch {
		case errors.Is(err, io.EOF): // the client closed its side
			return
		case err != nil && r.ctx.Err() != nil:
			yield(nil, fmt.Errorf("a2a: request stream ended by the client: %w", r.ctx.Err()))
			return
		case err != nil:
			r.mu.Lock()
			r.unread = err
			r.mu.Unlock()
			yield(nil, err)
			return
		}
		r.mu.Lock()
		first := r.n == 0
		r.n++
		r.mu.Unlock()
		var info *CallInfo
		if first {
			info = r.call.info
		}
		if e := r.call.checked(&req, info); e != nil {
			yield(nil, e)
			return
		}
		if !yield(req.Message, nil) {
			return
		}
	}
}

func (r *grpcRequests) unreadable() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unread
}

// grpcCallRequestStream is grpcCallUnary for endpoints whose client streams
// its requests.
func grpcCallRequestStream(ctx context.Context, cfg *handlerConfig, ep *Endpoint, info *CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) (err error) {
	defer recoverAbort(&err)
	return cfg.callRequestStream(ctx, ep, info, reqs, send)
}

// Bidi implements BidiTransport: the call starts when ranging starts, reqs
// is ranged over on a goroutine of its own and each request sent as it is
// yielded (then the client's side is closed), and the responses are yielded
// as they arrive. Stopping the iteration early cancels the call; reqs is
// then told to stop (its yield returns false) at its next request.
func (t *GRPCTransport) Bidi(ctx context.Context, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	if t.chains != nil && clientCallFrom(ctx) == nil {
		return t.cfg.interceptBidi(ctx, t.chains, op, reqs, newResp)
	}
	return t.bidi(ctx, op, reqs, newResp)
}

// bidi is Bidi without the interceptors (or inside them).
func (t *GRPCTransport) bidi(ctx context.Context, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		defer goruntime.KeepAlive(t) // see unary
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		desc := &grpc.StreamDesc{ClientStreams: true, ServerStreams: op.ServerStreaming}
		cs, err := t.cc.NewStream(t.outgoingContext(ctx), desc, op.Procedure, t.callOpts...)
		if err != nil {
			yield(nil, grpcCallError(ctx, op.Name, err))
			return
		}
		sender := &grpcRequestSender{t: t, op: op, ctx: ctx, cs: cs, cancel: cancel}
		go sender.run(reqs)
		// A client-streaming rpc has one answer.
		receiveAnswers(ctx, op, cs, newResp, sender.failure, !op.ServerStreaming, yield)
	}
}

// grpcRequestSender sends the requests of one call from the caller's
// iterator, on a goroutine of its own.
type grpcRequestSender struct {
	t      *GRPCTransport
	op     *Operation
	ctx    context.Context
	cs     grpc.ClientStream
	cancel context.CancelFunc

	mu     sync.Mutex
	failed error // the request stream's own error, which canceled the call
}

func (s *grpcRequestSender) run(reqs iter.Seq2[proto.Message, error]) {
	for m, err := range reqs {
		if err != nil { // an interceptor refused to send
			s.fail(err)
			return
		}
		if err := s.cs.SendMsg(s.t.request(m)); err != nil {
			// io.EOF: the server ended the call, or the caller stopped;
			// the receiving side reports the status. Anything else (a
			// request over the server's size limit, say) ends the call.
			if !errors.Is(err, io.EOF) {
				s.fail(grpcCallError(s.ctx, s.op.Name, err))
			}
			return
		}
	}
	_ = s.cs.CloseSend() // fails only when the stream already ended
}

func (s *grpcRequestSender) fail(err error) {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = err
	}
	s.mu.Unlock()
	s.cancel()
}

func (s *grpcRequestSender) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
