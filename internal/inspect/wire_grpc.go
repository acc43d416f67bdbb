package inspect

import (
	"context"
	"errors"
	"io"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// grpcNote says what the body of a gRPC entry is: the wire carries protobuf
// binary, shown in its ProtoJSON form.
const grpcNote = "protobuf binary on the wire; shown as ProtoJSON"

// grpcDialOptions record gRPC calls: method, metadata as sent (the
// credential entries masked), each message, the response header and
// trailer, and the status.
func (r *recorder) grpcDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(r.unary),
		grpc.WithChainStreamInterceptor(r.stream),
	}
}

func (r *recorder) grpcRequest(ctx context.Context, method, target string, msg any) *callTag {
	tag := callTagFrom(ctx)
	md, _ := metadata.FromOutgoingContext(ctx)
	r.record(WireEntry{
		Call: tag.id, Binding: "GRPC", Direction: "request", Operation: tag.operation, Method: method, URL: target,
		Header: r.mask.header(http.Header(md)), Body: r.protoBody(msg), Note: grpcNote, CLI: tag.cli,
	})
	return tag
}

func (r *recorder) protoBody(msg any) string {
	m, ok := msg.(proto.Message)
	if !ok {
		return ""
	}
	b, err := protojson.MarshalOptions{Multiline: false}.Marshal(m)
	if err != nil {
		return "(not printable: " + err.Error() + ")"
	}
	return shownBody(b, r.mask)
}

func (r *recorder) grpcStatus(tag *callTag, method string, err error, header, trailer metadata.MD, body any) {
	st := status.Convert(err)
	md := metadata.Join(header, trailer)
	e := WireEntry{
		Call: tag.id, Binding: "GRPC", Direction: "response", Operation: tag.operation, Method: method,
		Status: st.Code().String(), Header: r.mask.header(http.Header(md)),
	}
	if err != nil {
		e.Status += ": " + r.mask.text(st.Message())
		if len(st.Details()) > 0 {
			e.Body = r.protoBody(st.Proto())
		}
	} else if body != nil {
		e.Body = r.protoBody(body)
		e.Note = grpcNote
	}
	r.record(e)
}

func (r *recorder) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	tag := r.grpcRequest(ctx, method, cc.Target(), req)
	var header, trailer metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Header(&header), grpc.Trailer(&trailer))...)
	var body any
	if err == nil {
		body = reply
	}
	r.grpcStatus(tag, method, err, header, trailer, body)
	return err
}

func (r *recorder) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		r.grpcStatus(callTagFrom(ctx), method, err, nil, nil, nil)
		return nil, err
	}
	return &recordedStream{ClientStream: cs, rec: r, ctx: ctx, method: method, target: cc.Target()}, nil
}

// recordedStream records the request of a server-streaming call when it
// is sent, each message received, and the status at the end.
type recordedStream struct {
	grpc.ClientStream
	rec            *recorder
	ctx            context.Context
	method, target string
	tag            *callTag
	opened         bool
}

func (s *recordedStream) SendMsg(m any) error {
	s.tag = s.rec.grpcRequest(s.ctx, s.method, s.target, m)
	return s.ClientStream.SendMsg(m)
}

func (s *recordedStream) RecvMsg(m any) error {
	if s.tag == nil {
		s.tag = callTagFrom(s.ctx)
	}
	err := s.ClientStream.RecvMsg(m)
	if !s.opened && err == nil {
		s.opened = true
		h, _ := s.ClientStream.Header()
		s.rec.record(WireEntry{Call: s.tag.id, Binding: "GRPC", Direction: "response", Operation: s.tag.operation, Method: s.method,
			Status: "stream opened", Header: s.rec.mask.header(http.Header(h))})
	}
	switch {
	case err == nil:
		s.rec.record(WireEntry{Call: s.tag.id, Binding: "GRPC", Direction: "event", Operation: s.tag.operation, Method: s.method, Body: s.rec.protoBody(m), Note: grpcNote})
	case errors.Is(err, io.EOF):
		s.rec.grpcStatus(s.tag, s.method, nil, nil, s.ClientStream.Trailer(), nil)
	default:
		s.rec.grpcStatus(s.tag, s.method, err, nil, s.ClientStream.Trailer(), nil)
	}
	return err
}
