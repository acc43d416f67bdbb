package runtime

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/a2agen/a2agen/internal/idle"
	"github.com/a2agen/a2agen/internal/respmeta"
	"google.golang.org/grpc/metadata"
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
	// gRPC metadata not yet presented as headers (see CallInfo).
	headerMD, trailerMD metadata.MD
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
	m.convert()
	return m.header
}

// Trailer returns the response trailers, or nil before the call ended or
// when the answer had none.
func (m *ResponseMetadata) Trailer() http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.convert()
	return m.trailer
}

// Extensions returns the extensions the agent activated for the call: the
// A2A-Extensions response header (gRPC: header or trailer metadata), split
// and deduplicated.
func (m *ResponseMetadata) Extensions() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.convert()
	return activatedIn(m.header, m.trailer)
}

// convert presents the gRPC metadata recorded since the last read as
// headers; m.mu is held.
func (m *ResponseMetadata) convert() {
	if m.headerMD != nil {
		m.header, m.headerMD = headerFromMetadata(m.headerMD), nil
	}
	if m.trailerMD != nil {
		m.trailer, m.trailerMD = headerFromMetadata(m.trailerMD), nil
	}
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

// clientCallContext is the context an intercepted client call runs with:
// its parent with the call's CallInfo as the value of clientCallKey (what
// context.WithValue would give, in the same allocation as the CallInfo and
// the backing array of its header values).
type clientCallContext struct {
	context.Context
	call CallInfo
	vals [2]string // the header values, when they fit
}

// Value implements context.Context.
func (c *clientCallContext) Value(key any) any {
	if _, ok := key.(clientCallKey); ok {
		return &c.call
	}
	return c.Context.Value(key)
}

// String names the context for debugging, like context.WithValue's.
func (c *clientCallContext) String() string {
	return fmt.Sprint(c.Context) + ".WithValue(a2a client call)"
}

// recordResponseHeader hands the headers of an answer to the client call's
// CallInfo and to the ResponseMetadata of ctx, when there are any.
func recordResponseHeader(ctx context.Context, h http.Header) {
	if call := clientCallFrom(ctx); call != nil {
		call.mu.Lock()
		call.respHeader, call.respHeaderMD = h, nil
		call.mu.Unlock()
	}
	if md, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata); ok {
		md.mu.Lock()
		md.header, md.trailer = h, nil
		md.headerMD, md.trailerMD = nil, nil
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
		call.respTrailer, call.respTrailerMD = t, nil
		call.mu.Unlock()
	}
	if md, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata); ok {
		md.mu.Lock()
		md.trailer, md.trailerMD = t, nil
		md.mu.Unlock()
	}
}

// recordResponseHeaderMD is recordResponseHeader for gRPC header metadata,
// which becomes an http.Header only when read. md must not change
// afterwards (grpc-go hands out a copy).
func recordResponseHeaderMD(ctx context.Context, md metadata.MD) {
	if len(md) == 0 { // presented as a nil header
		md = nil
	}
	if call := clientCallFrom(ctx); call != nil {
		call.mu.Lock()
		call.respHeader, call.respHeaderMD = nil, md
		call.mu.Unlock()
	}
	if m, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata); ok {
		m.mu.Lock()
		m.header, m.trailer = nil, nil
		m.headerMD, m.trailerMD = md, nil
		m.mu.Unlock()
	}
}

// recordResponseTrailerMD is recordResponseTrailer for gRPC trailer
// metadata.
func recordResponseTrailerMD(ctx context.Context, md metadata.MD) {
	if !hasHeaderKeys(md) {
		return
	}
	if call := clientCallFrom(ctx); call != nil {
		call.mu.Lock()
		call.respTrailer, call.respTrailerMD = nil, md
		call.mu.Unlock()
	}
	if m, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata); ok {
		m.mu.Lock()
		m.trailer, m.trailerMD = nil, md
		m.mu.Unlock()
	}
}

// wantsResponseMetadata reports whether anyone may read the response
// metadata of calls made with ctx: an interceptor of the call, or a
// ResponseMetadata (so that the gRPC transport asks for the header, and
// streams wait for it).
func wantsResponseMetadata(ctx context.Context) bool {
	if call := clientCallFrom(ctx); call != nil && call.metadataRead {
		return true
	}
	_, ok := ctx.Value(responseMetadataKey{}).(*ResponseMetadata)
	return ok
}

// readsResponseMetadata reports whether one of the interceptors may read
// the response metadata of the unary calls (streaming: of the streams) it
// wraps. Only those of this module say they do not (respmeta.Ignorer); an
// InterceptorFuncs without a function for that kind of call does not see
// it at all.
func readsResponseMetadata(interceptors []Interceptor, streaming bool) bool {
	for _, i := range interceptors {
		var f InterceptorFuncs
		switch i := i.(type) {
		case respmeta.Ignorer:
			continue
		case InterceptorFuncs:
			f = i
		case *InterceptorFuncs:
			if i == nil {
				return true
			}
			f = *i
		default:
			return true
		}
		if (streaming && f.Stream != nil) || (!streaming && f.Unary != nil) {
			return true
		}
	}
	return false
}

// clientChains are the intercepted calls of a transport; nil without
// interceptors.
type clientChains struct {
	binding Binding
	peer    string
	header  headerTemplate // the headers every call starts with
	unary   UnaryFunc
	stream  StreamFunc
	// Whether an interceptor may read the response metadata of unary
	// calls, of streams.
	unaryMetadataRead, streamMetadataRead bool
	// idle: the interceptors, if all can say they are idle for a call;
	// such a call goes straight to the transport's own direct calls.
	idle         idle.Chain
	directUnary  func(ctx context.Context, op *Operation, req, resp proto.Message) error
	directStream func(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error]
	// Calls whose client streams its requests, on a transport that
	// carries them (client_requests.go).
	bidi       BidiFunc
	directBidi func(ctx context.Context, op *Operation, reqs iter.Seq2[proto.Message, error], newResp func() proto.Message) iter.Seq2[proto.Message, error]
}

// newClientChains wraps a transport's own unary and stream calls in the
// configured interceptors. The response message (unary) and its
// constructor (streams) travel in the CallInfo.
func (c *clientConfig) newClientChains(binding Binding, peer string,
	unary func(ctx context.Context, op *Operation, req, resp proto.Message) error,
	stream func(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error],
) *clientChains {
	if len(c.interceptors) == 0 {
		return nil
	}
	return &clientChains{
		binding: binding,
		peer:    peer,
		header:  c.headerTemplate(),

		unaryMetadataRead:  readsResponseMetadata(c.interceptors, false),
		streamMetadataRead: readsResponseMetadata(c.interceptors, true),
		idle:               idle.NewChain(c.interceptors),
		directUnary:        unary,
		directStream:       stream,
		unary: chainUnary(c.interceptors, func(ctx context.Context, call *CallInfo, req proto.Message) (proto.Message, error) {
			if err := unary(ctx, call.Operation, req, call.resp); err != nil {
				return nil, err
			}
			return call.resp, nil
		}),
		stream: chainStream(c.interceptors, func(ctx context.Context, call *CallInfo, req proto.Message, send func(proto.Message) error) error {
			return sendEach(stream(ctx, call.Operation, req, call.newResp), send)
		}),
	}
}

// sendEach passes the responses of a transport's stream to send (the
// innermost link of an intercepted stream); the first error of either ends
// it.
func sendEach(resps iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
	for m, err := range resps {
		if err != nil {
			return err
		}
		if err := send(m); err != nil {
			return err
		}
	}
	return nil
}

// newCall describes a client call to the interceptors, in the context the
// call runs with: Header holds every header the transport will send besides
// its own Content-Type and Accept.
func (c *clientConfig) newCall(ctx context.Context, ch *clientChains, op *Operation, req proto.Message) *clientCallContext {
	cc := &clientCallContext{Context: ctx}
	tenant := c.tenant
	if req != nil {
		if m := req.ProtoReflect(); m.IsValid() {
			if fd := m.Descriptor().Fields().ByName("tenant"); fd != nil && fd.Kind() == protoreflect.StringKind {
				if v := m.Get(fd).String(); v != "" {
					tenant = v
				}
			}
		}
	}
	cc.call = CallInfo{
		Operation:  op,
		Binding:    ch.binding,
		Version:    c.protocolVersion,
		Extensions: append([]string(nil), c.extensions...),
		Tenant:     tenant,
		Header:     ch.header.copyInto(cc.vals[:0]),
		Peer:       ch.peer,
		Client:     true,
	}
	if k := sentKeyOf(ctx); k != "" { // a send (client_sendkey.go); interceptors may change the value in place
		cc.call.Header[IdempotencyKeyHeader] = []string{k}
	}
	return cc
}

// interceptUnary runs a unary call through the chains.
func (c *clientConfig) interceptUnary(ctx context.Context, ch *clientChains, op *Operation, req, resp proto.Message) error {
	if ch.idle.Idle(ctx, true) {
		return ch.directUnary(ctx, op, req, resp)
	}
	cc := c.newCall(ctx, ch, op, req)
	call := &cc.call
	call.resp = resp
	call.metadataRead = ch.unaryMetadataRead
	out, err := ch.unary(cc, call, req)
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
	if ch.idle.Idle(ctx, true) {
		return ch.directStream(ctx, op, req, newResp)
	}
	return c.streamThrough(ctx, ch, op, req, newResp, func(cc *clientCallContext, call *CallInfo, send func(proto.Message) error) error {
		return ch.stream(cc, call, req, send)
	})
}

// streamThrough presents a call whose chain (run) sends each answer as an
// iterator: a consumer that stops early ends the chain with
// ErrStreamStopped, and an error after that is not reported.
func (c *clientConfig) streamThrough(ctx context.Context, ch *clientChains, op *Operation, req proto.Message, newResp func() proto.Message,
	run func(cc *clientCallContext, call *CallInfo, send func(proto.Message) error) error) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		cc := c.newCall(ctx, ch, op, req)
		call := &cc.call
		call.newResp = newResp
		call.metadataRead = ch.streamMetadataRead
		stopped := false
		err := run(cc, call, func(m proto.Message) error {
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

// headerTemplate is the headers every call of a transport starts with
// (clientConfig.setHeaders), kept as a list so that copying and comparing
// them per call iterates no map, and how many values they hold.
type headerTemplate struct {
	fields []headerField
	values int
}

// headerField is one key of a headerTemplate and its values.
type headerField struct {
	key    string
	values []string
}

func (c *clientConfig) headerTemplate() headerTemplate {
	h := make(http.Header, len(c.header)+2)
	c.setHeaders(h)
	t := headerTemplate{fields: make([]headerField, 0, len(h))}
	for k, vs := range h {
		t.fields = append(t.fields, headerField{key: k, values: vs})
		t.values += len(vs)
	}
	slices.SortFunc(t.fields, func(a, b headerField) int { return strings.Compare(a.key, b.key) })
	return t
}

// get returns the template's values of key (a canonical header key).
func (t headerTemplate) get(key string) []string {
	for _, f := range t.fields {
		if f.key == key {
			return f.values
		}
	}
	return nil
}

// copyInto returns a copy of the template whose values live in one array:
// buf when they fit in its capacity. Each key's slice is capped at its
// length, so that appending to one never overwrites the next.
func (t headerTemplate) copyInto(buf []string) http.Header {
	if cap(buf) < t.values {
		buf = make([]string, 0, t.values)
	}
	h := make(http.Header, len(t.fields))
	for _, f := range t.fields {
		if len(f.values) == 0 {
			h[f.key] = nil
			continue
		}
		i := len(buf)
		buf = append(buf, f.values...)
		h[f.key] = buf[i:len(buf):len(buf)]
	}
	return h
}

// same reports whether h holds exactly the template's headers (no
// interceptor changed them).
func (t headerTemplate) same(h http.Header) bool {
	if len(h) != len(t.fields) {
		return false
	}
	for _, f := range t.fields {
		if vs, ok := h[f.key]; !ok || !slices.Equal(vs, f.values) {
			return false
		}
	}
	return true
}

// sendHeaders puts the headers of a client call on an outgoing request:
// those of the intercepted call in ctx, which interceptors may have
// changed, else the configured ones. The request shares the call's value
// slices: it is written before the call returns, and nothing changes them
// meanwhile (an interceptor that does works on its own goroutine's call).
func (c *clientConfig) sendHeaders(ctx context.Context, h http.Header) {
	if call := clientCallFrom(ctx); call == nil {
		c.setHeaders(h)
		if k := sentKeyHeader(ctx); k != nil { // a send (client_sendkey.go)
			h[IdempotencyKeyHeader] = k
		}
	} else {
		for k, v := range call.Header {
			h[k] = v
		}
	}
	if v := resumeAfterHeader(ctx); v != "" {
		h.Set(HeaderLastEventID, v)
	}
}
