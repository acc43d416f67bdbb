package runtime

import (
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Idempotent sends, the client's side (docs/bindings.md "Idempotent
// sends"): every SendMessage and SendStreamingMessage carries an
// Idempotency-Key (a new UUID per call, unless the caller gave one with
// WithIdempotencyKey), so a send whose connection broke before the answer
// can be sent again without a second task: the transport does that itself,
// at most WithSendRetries times, only when the connection failed (never
// for an answer of the agent, whatever its error), and for a stream only
// before its first event (later breaks are the stream's own to resume).

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
	k, _ := ctx.Value(sentKeyCtx{}).(string)
	return k
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

// sendKey returns the context a send goes out with (its key in it) and how
// many times it may be sent again; ok is false for a call that is not a
// send, or a transport that sends no keys.
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
		return ctx, cfg.sendRetries, true
	case key != "":
		return context.WithValue(ctx, sentKeyCtx{}, key), cfg.sendRetries, true
	case cfg.noSendKeys:
		return ctx, 0, false
	}
	return context.WithValue(ctx, sentKeyCtx{}, NewUUID()), cfg.sendRetries, true
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

// streamSend makes a SendStreamingMessage call, sending it again with the
// same key when its connection broke before the first event.
func streamSend(ctx context.Context, t ClientTransport, op *Operation, req proto.Message, newResp func() proto.Message, retries int) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		for attempt := 0; ; attempt++ {
			got := false
			var failed error
			for m, err := range t.Stream(ctx, op, req, newResp) {
				if err != nil {
					failed = err
					break
				}
				got = true
				if !yield(m, nil) {
					return
				}
			}
			if failed == nil {
				return
			}
			if got || attempt >= retries || !connectionBroke(ctx, failed) || !pause(ctx, attempt) {
				yield(nil, failed)
				return
			}
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
