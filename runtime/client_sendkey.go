package runtime

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Idempotent sends, the client's side (docs/bindings.md "Idempotent
// sends"): every SendMessage and SendStreamingMessage carries an
// Idempotency-Key (a new random one per call, newSendKey, unless the
// caller gave one with WithIdempotencyKey), so a send whose connection
// broke before the answer can be sent again without a second task: the
// transport does that itself, at most WithSendRetries times, only when the
// connection failed (never for an answer of the agent, whatever its
// error), and for a stream only before its first event (later breaks are
// the stream's own to resume; both are done by the stream's loop,
// clientConfig.resumable).

// IdempotencyKeyHeader is the service parameter that carries a send's
// idempotency key: the HTTP header on JSON-RPC and HTTP+JSON, the metadata
// idempotency-key on gRPC (A2A #1893's proposal).
const IdempotencyKeyHeader = "Idempotency-Key"

// DefaultSendRetries is how many times a transport sends a message again
// whose connection broke before the answer, unless WithSendRetries says
// otherwise.
const DefaultSendRetries = 2

// sendRetryBackoff is the pause before the first resend; it doubles for
// each further one.
const sendRetryBackoff = 50 * time.Millisecond

// WithoutIdempotencyKeys makes the transport send SendMessage and
// SendStreamingMessage without an Idempotency-Key, and never send one
// again after a broken connection (an agent could not tell the retry from
// a new message). A key given with WithIdempotencyKey is still sent.
func WithoutIdempotencyKeys() ClientOption {
	return func(c *clientConfig) { c.noSendKeys, c.sendRetries = true, 0 }
}

// WithSendRetries sets how many times a SendMessage (or a
// SendStreamingMessage before its first event) whose connection broke
// before the answer is sent again with the same Idempotency-Key
// (DefaultSendRetries; n <= 0: never).
func WithSendRetries(n int) ClientOption {
	return func(c *clientConfig) {
		if !c.noSendKeys {
			c.sendRetries = max(n, 0)
		}
	}
}

type (
	idempotencyKeyCtx struct{} // the caller's key (WithIdempotencyKey)
	sentKeyCtx        struct{} // the key a send goes out with (sendKey)
)

// WithIdempotencyKey returns a context whose SendMessage and
// SendStreamingMessage calls carry key as their Idempotency-Key instead of
// a new one: a program that sends the same message again itself (after a
// restart, say) gives both calls the same key.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKeyCtx{}, key)
}

// idempotencyKeyOf is the key the caller gave the sends made with ctx, or
// "".
func idempotencyKeyOf(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKeyCtx{}).(string)
	return k
}

// sentKeyOf is the Idempotency-Key a transport sends with the call made
// with ctx, or "" (not a send, or keys off).
func sentKeyOf(ctx context.Context) string {
	if c := sendOf(ctx); c != nil {
		return c.key
	}
	return ""
}

// sentKeyHeader is sentKeyOf as the value of an HTTP header (nil for ""):
// one slice per send, shared by its attempts.
func sentKeyHeader(ctx context.Context) []string {
	if c := sendOf(ctx); c != nil && c.key != "" {
		return c.keyValues[:]
	}
	return nil
}

// sendRetriesOf is how many times a stream of op made with ctx is sent
// again when its connection broke before the first event: 0 unless op is a
// send that went through sendKey.
func sendRetriesOf(ctx context.Context, op *Operation) int {
	if c := sendOf(ctx); c != nil && isSend(op) {
		return c.retries
	}
	return 0
}

// sendOf is the send ctx is the context of (sendKey), or nil.
func sendOf(ctx context.Context) *sendContext {
	c, _ := ctx.Value(sentKeyCtx{}).(*sendContext)
	return c
}

// sendContext is the context a send goes out with: its parent, the key
// (none when the transport's headers carry it), how many times the send may
// be sent again, and the bytes of a key made for it, in one allocation (a
// context.WithValue would cost three for the key alone: the context, the
// string boxed in an interface, and the key's bytes).
type sendContext struct {
	context.Context
	key       string
	keyValues [1]string // key, as an HTTP header's values
	retries   int
	buf       [sendKeyLen]byte // a new key's bytes (newSendKey)
}

// Value implements context.Context: itself for sendOf, the parent's values
// otherwise.
func (c *sendContext) Value(k any) any {
	if _, ok := k.(sentKeyCtx); ok {
		return c
	}
	return c.Context.Value(k)
}

// withSend returns ctx carrying key as the key its send goes out with ("":
// none of its own) and retries as how many times it may be sent again.
func withSend(ctx context.Context, key string, retries int) context.Context {
	return &sendContext{Context: ctx, key: key, keyValues: [1]string{key}, retries: retries}
}

// withNewSendKey is withSend with a new key (newSendKey) in the context's
// own bytes.
func withNewSendKey(ctx context.Context, retries int) context.Context {
	c := &sendContext{Context: ctx, retries: retries}
	newSendKey(&c.buf)
	// c.buf is never written again: the string may share its bytes.
	c.key = unsafe.String(&c.buf[0], len(c.buf))
	c.keyValues[0] = c.key
	return c
}

// isSend reports whether op sends a message (A2A's SendMessage and
// SendStreamingMessage).
func isSend(op *Operation) bool {
	return op != nil && !op.ClientStreaming && (op.Name == "SendMessage" || op.Name == "SendStreamingMessage")
}

// sendConfig is what ClosableTransport learns from the transports of this
// package: their client options.
type sendConfig interface{ clientOptions() *clientConfig }

func (t *jsonrpcTransport) clientOptions() *clientConfig { return t.cfg }
func (t *restTransport) clientOptions() *clientConfig    { return t.cfg }
func (t *GRPCTransport) clientOptions() *clientConfig    { return t.cfg }

// sendKey returns the context a send goes out with (its key and its
// retries in it, for the transport: sentKeyOf, sendRetriesOf) and how many
// times it may be sent again; ok is false for a call that is not a send, or
// a transport that sends no keys.
func sendKey(ctx context.Context, t ClientTransport, op *Operation) (context.Context, int, bool) {
	if !isSend(op) {
		return ctx, 0, false
	}
	sc, ok := t.(sendConfig)
	if !ok {
		return ctx, 0, false
	}
	cfg := sc.clientOptions()
	key := idempotencyKeyOf(ctx)
	switch {
	case len(cfg.header[IdempotencyKeyHeader]) > 0: // WithHeader: every call sends it already
		return withSend(ctx, "", cfg.sendRetries), cfg.sendRetries, true
	case key != "":
		return withSend(ctx, key, cfg.sendRetries), cfg.sendRetries, true
	case cfg.noSendKeys:
		return ctx, 0, false
	}
	return withNewSendKey(ctx, cfg.sendRetries), cfg.sendRetries, true
}

// unarySend makes a SendMessage call, sending it again with the same key
// when its connection broke.
func unarySend(ctx context.Context, t ClientTransport, op *Operation, req, resp proto.Message, retries int) error {
	for attempt := 0; ; attempt++ {
		err := t.Unary(ctx, op, req, resp)
		if err == nil || attempt >= retries || !connectionBroke(ctx, err) {
			return err
		}
		proto.Reset(resp)
		if !pause(ctx, attempt) {
			return err
		}
	}
}

// pause waits before resend attempt+1; false when ctx ended first.
func pause(ctx context.Context, attempt int) bool {
	return sleep(ctx, sendRetryBackoff<<attempt)
}

// sleep waits for d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// connectionBroke reports whether err says the connection to the agent
// failed (refused, reset, closed before the whole answer arrived), rather
// than that the agent answered with an error, the caller gave up or the
// answer could not be read.
func connectionBroke(ctx context.Context, err error) bool {
	if answeredOrAbandoned(ctx, err) {
		return false
	}
	var gs interface{ GRPCStatus() *status.Status }
	if errors.As(err, &gs) {
		return gs.GRPCStatus().Code() == codes.Unavailable
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return !ne.Timeout()
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// answeredOrAbandoned reports whether a call's error is the agent's answer
// (an *Error) or the caller's giving up (its context ended), which neither
// sending again nor resuming can change.
func answeredOrAbandoned(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var e *Error
	return errors.As(err, &e)
}
