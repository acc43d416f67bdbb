package runtime

import (
	"context"
	"iter"
	"net/http"
	"sync"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// CallInfo is what a handler can learn about the call it serves, whatever the
// binding: the operation, the negotiated protocol version, the extensions the
// client asked for, the tenant, and the request headers (gRPC metadata is
// presented as headers, so Authorization is read the same way everywhere).
type CallInfo struct {
	Operation *Operation
	Binding   Binding // BindingJSONRPC, BindingHTTPJSON or BindingGRPC
	// Version is the negotiated A2A protocol version, Major.Minor ("1.0").
	Version string
	// Extensions are the extension URIs requested in A2A-Extensions, split on
	// commas, trimmed, repeated headers merged, duplicates removed, in order.
	Extensions []string
	// Tenant is the tenant of the request (params.tenant, the /{tenant} path
	// segment, or the gRPC request field).
	Tenant string
	// Header holds the request headers (or gRPC metadata). On the client
	// side these are the headers about to be sent, service parameters
	// included; an interceptor may add to them.
	Header http.Header
	// Peer is the network address of the other side: the client's on the
	// server, the agent's URL or gRPC target on the client.
	Peer string
	// Client is true when the call is made by a client transport, false
	// when a binding serves it.
	Client bool

	// adapter is the VersionAdapter whose wire form the call came in, or nil.
	adapter *VersionAdapter
	// versionNamed is true when the request carried an A2A-Version (see
	// VersionAdapter.ErrorDataObject).
	versionNamed bool

	mu        sync.Mutex
	activated []string
	// after: what AfterResponse registered; tracked: a binding will run
	// them (finish) once done with the call, finished: it has
	// (callinfo_after.go).
	after             []func()
	tracked, finished bool
	// failureLogged: an interceptor that logs failures saw the call fail
	// (failure.go); set and read by the goroutine serving the call.
	failureLogged bool
	// The response header and trailer of a client call. On gRPC they are
	// kept as the metadata grpc-go delivered (respHeaderMD, respTrailerMD)
	// until first read: most calls never look at them.
	respHeader, respTrailer     http.Header
	respHeaderMD, respTrailerMD metadata.MD
	// The response message of a unary client call, or the constructor of
	// a stream's (client_call.go).
	resp    proto.Message
	newResp func() proto.Message
	// metadataRead: an interceptor of the client call may read its
	// response metadata (client_call.go).
	metadataRead bool
	// requests of a call whose client streams them, handed past an
	// interceptor that sees the call as a server stream
	// (interceptor_bidi.go).
	requests iter.Seq2[proto.Message, error]
	// ctx: the context a binding serves the call with, carrying the
	// CallInfo, allocated with it (attach).
	ctx callInfoContext
}

// ResponseHeader returns the headers of the answer to a client call (gRPC:
// its header metadata), or nil before they arrived and on the server side.
func (c *CallInfo) ResponseHeader() http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return convertedHeader(&c.respHeader, &c.respHeaderMD)
}

// ResponseTrailer returns the trailers of the answer to a client call (gRPC:
// its trailer metadata), or nil before the call ended, when the answer had
// none, and on the server side.
func (c *CallInfo) ResponseTrailer() http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return convertedHeader(&c.respTrailer, &c.respTrailerMD)
}

// convertedHeader returns *h, converted first from the gRPC metadata *md
// when that is still set (which it then no longer is), under the lock.
func convertedHeader(h *http.Header, md *metadata.MD) http.Header {
	if *md != nil {
		*h, *md = headerFromMetadata(*md), nil
	}
	return *h
}

type callInfoKey struct{}

// WithCallInfo returns a context carrying info. Binding routers call it; tests
// of handlers may call it too.
func WithCallInfo(ctx context.Context, info *CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, info)
}

// attach returns ctx carrying c, as WithCallInfo does, without an
// allocation of its own the first time: the context is a field of c. A
// binding attaches the CallInfo it made once per call; a second attach (a
// gRPC interceptor calling the handler again) gets a context of its own,
// so that the first one, which the call's work may keep, never changes.
func (c *CallInfo) attach(ctx context.Context) context.Context {
	if c.ctx.Context != nil {
		return WithCallInfo(ctx, c)
	}
	c.ctx = callInfoContext{Context: ctx, info: c}
	return &c.ctx
}

// callInfoContext is a context carrying a CallInfo (attach): what
// WithCallInfo's context.WithValue makes, inside the CallInfo.
type callInfoContext struct {
	context.Context
	info *CallInfo
}

func (c *callInfoContext) Value(key any) any {
	if key == (callInfoKey{}) {
		return c.info
	}
	return c.Context.Value(key)
}

// CallInfoFromContext returns the CallInfo of the call being served.
func CallInfoFromContext(ctx context.Context) (*CallInfo, bool) {
	info, ok := ctx.Value(callInfoKey{}).(*CallInfo)
	return info, ok
}

// ActivateExtension records that the handler activated extension uri for this
// call; bindings echo activated extensions in the A2A-Extensions response
// header (gRPC: response metadata). It is a no-op outside a call.
//
// The header goes out with the answer's start: for a stream, with its first
// event. On the HTTP bindings an extension activated after that never
// reaches the client (gRPC also sends them all in the trailer), so activate
// before the first Send.
func ActivateExtension(ctx context.Context, uri string) {
	info, ok := CallInfoFromContext(ctx)
	if !ok {
		return
	}
	info.mu.Lock()
	defer info.mu.Unlock()
	for _, u := range info.activated {
		if u == uri {
			return
		}
	}
	info.activated = append(info.activated, uri)
}

// ActivatedExtensions returns the extensions activated so far.
func (c *CallInfo) ActivatedExtensions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.activated...)
}
