package runtime

import (
	"context"
	"errors"
	"io"
	"iter"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
)

// ErrClientClosed is the error of every call made through a client after
// its Close, on every binding: test for it with errors.Is. It is not an A2A
// error (nothing was sent), so it is not a *Error.
var ErrClientClosed = errors.New("a2a: the client is closed")

// ClosableTransport gives a transport the Close every generated client has:
// after Close every call fails with ErrClientClosed before reaching the
// binding, whichever it is, and the wrapped transport is closed when it
// implements io.Closer (the gRPC transport's own connection). Calls in
// flight when Close is called end as the binding ends them. Generated client
// constructors wrap their transport in one; it is safe for concurrent use.
type ClosableTransport struct {
	inner     ClientTransport
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ ClientTransport = (*ClosableTransport)(nil)

// NewClosableTransport wraps t; a t that already is a *ClosableTransport is
// returned as is, so clients sharing it share its closed state.
func NewClosableTransport(t ClientTransport) *ClosableTransport {
	if c, ok := t.(*ClosableTransport); ok {
		return c
	}
	return &ClosableTransport{inner: t}
}

// Unary implements ClientTransport.
func (c *ClosableTransport) Unary(ctx context.Context, op *Operation, req, resp proto.Message) error {
	if c.closed.Load() {
		return ErrClientClosed
	}
	if sctx, retries, ok := sendKey(ctx, c.inner, op); ok { // client_sendkey.go
		return unarySend(sctx, c.inner, op, req, resp, retries)
	}
	return c.inner.Unary(ctx, op, req, resp)
}

// Stream implements ClientTransport.
func (c *ClosableTransport) Stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	if c.closed.Load() {
		return func(yield func(proto.Message, error) bool) { yield(nil, ErrClientClosed) }
	}
	// A send's stream is sent again, with the same key, by the
	// transport's stream loop (clientConfig.resumable), which reads the
	// retries from the context.
	if sctx, _, ok := sendKey(ctx, c.inner, op); ok { // client_sendkey.go
		ctx = sctx
	}
	inner := c.inner.Stream(ctx, op, req, newResp)
	return func(yield func(proto.Message, error) bool) {
		// The request is sent when ranging starts: a client closed between
		// the call and the range sends nothing either.
		if c.closed.Load() {
			yield(nil, ErrClientClosed)
			return
		}
		inner(yield)
	}
}

// Close marks the client closed and closes the wrapped transport if it is
// an io.Closer. Calling it again returns the first result.
func (c *ClosableTransport) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		if cl, ok := c.inner.(io.Closer); ok {
			c.closeErr = cl.Close()
		}
	})
	return c.closeErr
}

// Unwrap returns the wrapped transport.
func (c *ClosableTransport) Unwrap() ClientTransport { return c.inner }
