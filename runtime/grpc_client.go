package runtime

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"iter"
	goruntime "runtime"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"
)

// WithGRPCDialOptions adds grpc-go dial options to the connection that
// NewGRPCTransport opens: transport or per-RPC credentials, interceptors,
// keepalive, a custom dialer… They are applied after the transport's own, so
// grpc.WithTransportCredentials here replaces the TLS choice made from the
// URL (see ParseGRPCTarget). The HTTP bindings and
// NewGRPCTransportFromConn ignore them.
func WithGRPCDialOptions(opts ...grpc.DialOption) ClientOption {
	return func(cfg *clientConfig) { cfg.grpcDialOptions = append(cfg.grpcDialOptions, opts...) }
}

// GRPCTransport is the ClientTransport of the gRPC binding (A2A §10). Every
// call carries the a2a-version metadata, one comma-joined a2a-extensions entry
// when extensions are configured, and the WithHeader entries under their
// lower-cased names (WithHeader("Authorization", …) becomes authorization).
// A WithClientTenant tenant is put into every request whose tenant field is
// empty; the caller's message is cloned for that, never modified.
// WithMaxResponseBytes limits each received message (grpc.MaxCallRecvMsgSize).
//
// Errors come back as described for grpcCallError: A2A errors as *Error
// (ErrorInfo reason first, then the gRPC code; message, metadata and
// BadRequest violations kept, and the status reachable through
// status.Code/status.FromError), the caller's cancellation as the context
// error, and connection failures as grpc-go reports them.
//
// A GRPCTransport is safe for concurrent use.
type GRPCTransport struct {
	cc       grpc.ClientConnInterface
	cfg      *clientConfig
	md       []string // outgoing metadata, key/value pairs
	callOpts []grpc.CallOption
	chains   *clientChains // nil without interceptors

	owned     *grpc.ClientConn // the connection NewGRPCTransport opened, or nil
	closeOnce sync.Once
	closeErr  error
}

var _ BidiTransport = (*GRPCTransport)(nil)

// NewGRPCTransport opens a gRPC client connection to the interface URL
// target (any form ParseGRPCTarget accepts) and returns a transport over it.
// The connection is established lazily, on the first call; errors here are
// about the URL or the dial options.
//
// The transport owns the connection: Close releases it, and it is also
// closed when the transport becomes unreachable. To share one connection
// between clients, or to manage it yourself, use NewGRPCTransportFromConn.
func NewGRPCTransport(target string, opts ...ClientOption) (*GRPCTransport, error) {
	cfg := newClientConfig(opts)
	t, err := ParseGRPCTarget(target)
	if err != nil {
		return nil, err
	}
	creds := insecure.NewCredentials()
	if t.TLS {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	dial := append([]grpc.DialOption{grpc.WithTransportCredentials(creds)}, cfg.grpcDialOptions...)
	cc, err := grpc.NewClient(t.Target, dial...)
	if err != nil {
		return nil, fmt.Errorf("a2a: gRPC client for %q: %w", target, err)
	}
	tr := newGRPCTransport(cc, cfg)
	tr.owned = cc
	// A client dropped without Close must not keep its connection (and
	// grpc-go's goroutines) forever.
	goruntime.AddCleanup(tr, func(cc *grpc.ClientConn) { _ = cc.Close() }, cc)
	return tr, nil
}

// NewGRPCTransportFromConn returns a transport over an existing connection
// (a *grpc.ClientConn, or anything implementing grpc.ClientConnInterface).
// The caller keeps ownership: Close does not close cc.
func NewGRPCTransportFromConn(cc grpc.ClientConnInterface, opts ...ClientOption) *GRPCTransport {
	return newGRPCTransport(cc, newClientConfig(opts))
}

func newGRPCTransport(cc grpc.ClientConnInterface, cfg *clientConfig) *GRPCTransport {
	limit := cfg.maxResponseBytes
	if limit > int64(maxInt) {
		limit = int64(maxInt)
	}
	t := &GRPCTransport{
		cc:       cc,
		cfg:      cfg,
		md:       cfg.outgoingMetadata(),
		callOpts: []grpc.CallOption{grpc.MaxCallRecvMsgSize(int(limit))},
	}
	t.chains = cfg.newClientChains(BindingGRPC, grpcPeer(cc), t.unary, t.stream)
	if t.chains != nil {
		t.chains.addBidi(cfg.interceptors, t.bidi) // grpc_requests.go
	}
	return t
}

// grpcPeer names the agent of a connection for CallInfo.Peer.
func grpcPeer(cc grpc.ClientConnInterface) string {
	if c, ok := cc.(*grpc.ClientConn); ok {
		return c.Target()
	}
	return ""
}

const maxInt = int(^uint(0) >> 1)

// Close closes the connection NewGRPCTransport opened; calls in flight fail.
// It does nothing for a transport built with NewGRPCTransportFromConn.
// Calling it again returns the first result.
func (t *GRPCTransport) Close() error {
	t.closeOnce.Do(func() {
		if t.owned != nil {
			t.closeErr = t.owned.Close()
		}
	})
	return t.closeErr
}

// serverStreamDesc describes every server-streaming call to grpc-go.
var serverStreamDesc = grpc.StreamDesc{ServerStreams: true}

// Unary implements ClientTransport.
func (t *GRPCTransport) Unary(ctx context.Context, op *Operation, req, resp proto.Message) error {
	if t.chains != nil && clientCallFrom(ctx) == nil {
		return t.cfg.interceptUnary(ctx, t.chains, op, req, resp)
	}
	return t.unary(ctx, op, req, resp)
}

// unary is Unary without the interceptors (or inside them).
func (t *GRPCTransport) unary(ctx context.Context, op *Operation, req, resp proto.Message) error {
	// t must outlive the call: the cleanup of NewGRPCTransport closes the
	// connection as soon as t is unreachable, which it would be once its
	// fields are loaded.
	defer goruntime.KeepAlive(t)
	u := &grpcUnaryCall{}
	opts := append(u.opts[:0], t.callOpts...)
	opts = append(opts, grpc.Trailer(&u.trailer))
	record := wantsResponseMetadata(ctx)
	if record {
		opts = append(opts, grpc.Header(&u.header))
	}
	err := t.cc.Invoke(t.outgoingContext(ctx), op.Procedure, t.request(req), resp, opts...)
	if record {
		// Presented as headers when read (most calls never look).
		recordResponseHeaderMD(ctx, u.header)
		recordResponseTrailerMD(ctx, u.trailer)
	}
	if err != nil {
		return withTrailerChallenges(grpcCallError(ctx, op.Name, err), u.trailer)
	}
	return nil
}

// grpcUnaryCall is what grpc-go fills in during a unary call, with the call
// options that ask it to, in one allocation.
type grpcUnaryCall struct {
	header, trailer metadata.MD
	opts            [3]grpc.CallOption // GRPCTransport.callOpts, Trailer, Header
}

// Stream implements ClientTransport. Stopping the iteration early cancels
// the call, which ends the server's handler.
func (t *GRPCTransport) Stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return t.cfg.resumable(ctx, op, req, newResp, t)
}

// streamOnce opens one stream of op, through the interceptors.
func (t *GRPCTransport) streamOnce(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	if t.chains != nil && clientCallFrom(ctx) == nil {
		return t.cfg.interceptStream(ctx, t.chains, op, req, newResp)
	}
	return t.stream(ctx, op, req, newResp)
}

// stream is Stream without the interceptors (or inside them).
func (t *GRPCTransport) stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		defer goruntime.KeepAlive(t) // see unary
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		cs, err := t.cc.NewStream(t.outgoingContext(ctx), &serverStreamDesc, op.Procedure, t.callOpts...)
		if err != nil {
			yield(nil, grpcCallError(ctx, op.Name, err))
			return
		}
		// io.EOF from SendMsg means the server already ended the call;
		// RecvMsg then reports its status.
		if err := cs.SendMsg(t.request(req)); err != nil && !errors.Is(err, io.EOF) {
			yield(nil, grpcCallError(ctx, op.Name, err))
			return
		}
		if err := cs.CloseSend(); err != nil {
			yield(nil, grpcCallError(ctx, op.Name, err))
			return
		}
		receiveAnswers(ctx, op, cs, newResp, nil, false, yield)
	}
}

// receiveAnswers yields the answers of a gRPC stream until it ends (after
// the first when oneAnswer), recording its header and trailer metadata
// when the caller asked for them. failure, when not nil, says why the
// call was canceled on the caller's side; that is reported instead of the
// stream's end.
func receiveAnswers(ctx context.Context, op *Operation, cs grpc.ClientStream, newResp func() proto.Message, failure func() error, oneAnswer bool, yield func(proto.Message, error) bool) {
	recordMD := wantsResponseMetadata(ctx)
	if recordMD {
		// Header waits for the answer's header (or its end).
		if h, err := cs.Header(); err == nil {
			recordResponseHeaderMD(ctx, h)
		}
	}
	for {
		m := newResp()
		if err := cs.RecvMsg(m); err != nil {
			// The trailer exists once RecvMsg has failed (io.EOF
			// included); reading it earlier, when the caller stops
			// before the end, races with grpc-go closing the stream.
			if recordMD {
				recordResponseTrailerMD(ctx, cs.Trailer())
			}
			if failure != nil {
				if failed := failure(); failed != nil {
					yield(nil, failed) // why the call was canceled
					return
				}
			}
			if !errors.Is(err, io.EOF) {
				yield(nil, withTrailerChallenges(grpcCallError(ctx, op.Name, err), cs.Trailer()))
			}
			return
		}
		if oneAnswer {
			if recordMD {
				recordResponseTrailerMD(ctx, cs.Trailer())
			}
			yield(m, nil)
			return
		}
		if !yield(m, nil) {
			return
		}
	}
}

// request returns the message to send for req: req itself, or a copy with
// the configured tenant filled in. A nil request is sent as an empty message
// (zero bytes, which every message type decodes as its empty value).
func (t *GRPCTransport) request(req proto.Message) proto.Message {
	if req == nil {
		req = &emptypb.Empty{}
	}
	fd := t.cfg.tenantToFill(req)
	if fd == nil {
		return req
	}
	var m protoreflect.Message
	if req.ProtoReflect().IsValid() {
		m = proto.Clone(req).ProtoReflect()
	} else { // a typed nil message
		m = req.ProtoReflect().New()
	}
	m.Set(fd, protoreflect.ValueOfString(t.cfg.tenant))
	return m.Interface()
}
