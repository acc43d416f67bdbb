package runtime

import (
	"context"
	"iter"
	"net/http"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The client side of a call: the CallInfo client interceptors see, the
// chains that run them, and the response metadata a caller can capture.

// ResponseMetadata receives the headers and trailers of the answers to the
// client calls made with a context from WithResponseMetadata. For a stream,
// Header is set before the first event is yielded and Trailer once the
// stream ended.
type ResponseMetadata struct {
	mu              sync.Mutex
	header, trailer http.Header
}

// WithResponseMetadata returns a context whose client calls record the
// headers (gRPC: header metadata) and trailers of their answer in the
// returned ResponseMetadata, on every binding:
//
//	ctx, md := runtime.WithResponseMetadata(ctx)
//	task, err := client.GetTask(ctx, req)
//	fmt.Println(md.Extensions()) // the extensions the agent activated
//
// When several calls share the context, the last answer wins.
func WithResponseMetadata(ctx context.Context) (context.Context, *ResponseMetadata) {
	md := &ResponseMetadata{}
	return context.WithValue(ctx, responseMetadataKey{}, md), md
}

type responseMetadataKey struct{}

// Header returns the response headers, or nil before they arrived.
func (m *ResponseMetadata) Header() http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.header
}

// Trailer returns the response trailers, or nil before the call ended or
// when the answer had none.
func (m *ResponseMetadata) Trailer() http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.trailer
}

// Extensions returns the extensions the agent activated for the call: the
// A2A-Extensions response header (gRPC: header or trailer metadata), split
// and deduplicated.
func (m *ResponseMetadata) Extensions() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return activatedIn(m.header, m.trailer)
}

// activatedIn reads the A2A-Extensions of a response's header, else of its
// trailer.
func activatedIn(header, trailer http.Header) []string {
	if exts := ParseExtensions(serviceParamValues(header, paramExtensions, canonicalExtensions)); len(exts) > 0 {
		return exts
	}
	return ParseExtensions(serviceParamValues(trailer, paramExtensions, canonicalExtensions))
}

type clientCallKey struct{}

// clientCallFrom returns the CallInfo of the intercepted client call ctx
// belongs to, or nil.
func clientCallFrom(ctx context.Context) *CallInfo {
	c, _ := ctx.Value(clientCallKey{}).(*CallInfo)
	return c
}

// recordResponseHeader hands the headers of an answer to the client call's
// CallInfo and to the ResponseMetadata of ctx, when there are any.
func recordResponseHeader(ctx context.Context, h http.Header) {
	if call := clientCallFrom(ctx); call != nil {
		call.mu.Lock()
		call.respHeader = h
		call.mu.Unlock()
	}
	if md, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata); ok {
		md.mu.Lock()
		md.header, md.trailer = h, nil
		md.mu.Unlock()
	}
}

// recordResponseTrailer is recordResponseHeader for trailers.
func recordResponseTrailer(ctx context.Context, t http.Header) {
	if len(t) == 0 {
		return
	}
	if call := clientCallFrom(ctx); call != nil {
		call.mu.Lock()
		call.respTrailer = t
		call.mu.Unlock()
	}
	if md, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata); ok {
		md.mu.Lock()
		md.trailer = t
		md.mu.Unlock()
	}
}

// wantsResponseMetadata reports whether anyone records the response
// metadata of calls made with ctx (so gRPC streams wait for the header).
func wantsResponseMetadata(ctx context.Context) bool {
	if clientCallFrom(ctx) != nil {
		return true
	}
	_, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata)
	return ok
}

// clientChains are the intercepted calls of a transport; nil without
// interceptors.
type clientChains struct {
	binding, peer string
	unary         UnaryFunc
	stream        StreamFunc
}

// newClientChains wraps a transport's own unary and stream calls in the
// configured interceptors. The response message (unary) and its
// constructor (streams) travel in the CallInfo.
func (c *clientConfig) newClientChains(binding, peer string,
	unary func(ctx context.Context, op *Operation, req, resp proto.Message) error,
	stream func(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error],
) *clientChains {
	if len(c.interceptors) == 0 {
		return nil
	}
	return &clientChains{
		binding: binding,
		peer:    peer,
		unary: chainUnary(c.interceptors, func(ctx context.Context, call *CallInfo, req proto.Message) (proto.Message, error) {
			if err := unary(ctx, call.Operation, req, call.resp); err != nil {
				return nil, err
			}
			return call.resp, nil
		}),
		stream: chainStream(c.interceptors, func(ctx context.Context, call *CallInfo, req proto.Message, send func(proto.Message) error) error {
			for m, err := range stream(ctx, call.Operation, req, call.newResp) {
				if err != nil {
					return err
				}
				if err := send(m); err != nil {
					return err
				}
			}
			return nil
		}),
	}
}

// newCall describes a client call to the interceptors: Header holds every
// header the transport will send besides its own Content-Type and Accept.
func (c *clientConfig) newCall(ch *clientChains, op *Operation, req proto.Message) *CallInfo {
	h := make(http.Header, len(c.header)+2)
	c.setHeaders(h)
	tenant := c.tenant
	if req != nil && req.ProtoReflect().IsValid() {
		if fd := req.ProtoReflect().Descriptor().Fields().ByName("tenant"); fd != nil && fd.Kind() == protoreflect.StringKind {
			if v := req.ProtoReflect().Get(fd).String(); v != "" {
				tenant = v
			}
		}
	}
	return &CallInfo{
		Operation:  op,
		Binding:    ch.binding,
		Version:    c.protocolVersion,
		Extensions: append([]string(nil), c.extensions...),
		Tenant:     tenant,
		Header:     h,
		Peer:       ch.peer,
		Client:     true,
	}
}

// interceptUnary runs a unary call through the chains.
func (c *clientConfig) interceptUnary(ctx context.Context, ch *clientChains, op *Operation, req, resp proto.Message) error {
	call := c.newCall(ch, op, req)
	call.resp = resp
	out, err := ch.unary(context.WithValue(ctx, clientCallKey{}, call), call, req)
	if err != nil {
		return err
	}
	if out != nil && out != resp { // an interceptor answered with a message of its own
		proto.Reset(resp)
		proto.Merge(resp, out)
	}
	return nil
}

// interceptStream runs a streaming call through the chains.
func (c *clientConfig) interceptStream(ctx context.Context, ch *clientChains, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		call := c.newCall(ch, op, req)
		call.newResp = newResp
		stopped := false
		err := ch.stream(context.WithValue(ctx, clientCallKey{}, call), call, req, func(m proto.Message) error {
			if stopped || !yield(m, nil) {
				stopped = true
				return ErrStreamStopped
			}
			return nil
		})
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

// sendHeaders puts the headers of a client call on an outgoing request:
// those of the intercepted call in ctx, which interceptors may have
// changed, else the configured ones.
func (c *clientConfig) sendHeaders(ctx context.Context, h http.Header) {
	call := clientCallFrom(ctx)
	if call == nil {
		c.setHeaders(h)
		return
	}
	for k, v := range call.Header {
		h[k] = append([]string(nil), v...)
	}
}
