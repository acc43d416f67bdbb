package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
)

// Plumbing shared by the HTTP binding routers (JSON-RPC and HTTP+JSON):
// calling handlers without letting a panic escape, logging the failures a
// client never sees the cause of, and writing complete responses.

// callUnarySafely calls a unary endpoint and turns a panic into an Internal
// error carrying the panic value and stack (logged, never sent).
func callUnarySafely(ctx context.Context, ep *Endpoint, msg proto.Message) (resp proto.Message, err error) {
	defer recoverHandler(&err)
	return ep.CallUnary(ctx, msg)
}

// callStreamSafely is callUnarySafely for streaming endpoints.
func callStreamSafely(ctx context.Context, ep *Endpoint, msg proto.Message, send func(proto.Message) error) (err error) {
	defer recoverHandler(&err)
	return ep.CallStream(ctx, msg, send)
}

// recoverHandler converts a handler panic into an error.
func recoverHandler(err *error) {
	if p := recover(); p != nil {
		*err = panicked(p, "")
	}
}

// panicked is the Internal error of a recovered panic with value p, whose
// cause is a PanicError with the stack (what names what panicked; "" for
// the handler). http.ErrAbortHandler keeps its net/http meaning (abort the
// response silently) and is re-raised. Called by the deferred function
// that recovered (recover must be called there).
func panicked(p any, what string) error {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	pe := newPanicError(p, 3) // failure.go; the stack starts at the panic whatever the depth
	pe.what = what
	return Internal(pe)
}

// handlerError converts what a handler returned into the *Error to send and
// logs errors the client does not see the cause of. A call whose client went
// away, or whose gRPC deadline passed, is logged at debug level only:
// nothing is wrong with the server. An HTTP request has no client deadline,
// so a deadline on its context is the agent's own (a middleware's): the
// client still waits and gets "deadline exceeded" (timeoutError), and the
// failure is logged at error level.
func (c *handlerConfig) handlerError(ctx context.Context, binding Binding, ep *Endpoint, err error) *Error {
	e := ErrorOrInternal(err)
	if e == nil { // a typed nil *Error returned as a non-nil error
		err = fmt.Errorf("handler returned a nil *Error as its error")
		e = Internal(err)
	}
	if e.code != CodeInternal && e.code != CodeInvalidAgentResponse {
		return c.withDefaultChallenges(e) // auth.go
	}
	e = timeoutError(e, err) // callctx.go
	level := slog.LevelError
	if ctxErr := ctx.Err(); ctxErr != nil && (binding == BindingGRPC || errors.Is(ctxErr, context.Canceled)) {
		level = slog.LevelDebug
	}
	if info, ok := CallInfoFromContext(ctx); ok && info.failureLogged {
		return e // an interceptor logged it (failure.go)
	}
	attrs := []slog.Attr{slog.String("binding", binding.String()), slog.String("method", ep.Operation.Name), slog.Any("error", err)}
	if e.cause != nil && e.cause != err {
		attrs = append(attrs, slog.Any("cause", e.cause))
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		attrs = append(attrs, slog.Any("stack", pe.Stack()))
	}
	c.logger.LogAttrs(ctx, level, "a2a: "+binding.String()+" handler failed", attrs...)
	return e
}

// writeBody writes a complete response of the given media type made of
// parts, with its Content-Length (none when trailers were declared) and the
// extensions the handler activated, within the write timeout
// (WithWriteTimeout; 0: none).
func writeBody(w http.ResponseWriter, timeout time.Duration, status int, contentType string, info *CallInfo, parts ...[]byte) {
	if timeout > 0 {
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Now().Add(timeout)) // ErrNotSupported: no deadline
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h := w.Header()
	if _, declared := h["Trailer"]; declared {
		// An HTTP middleware declared trailers: without a Content-Length
		// the answer is chunked on HTTP/1.1, the only way they reach the
		// client.
		h["Content-Type"] = []string{contentType}
	} else {
		setTwoHeaders(h, "Content-Type", contentType, "Content-Length", strconv.Itoa(n))
	}
	setActivatedExtensions(h, info)
	w.WriteHeader(status)
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return // the client is gone; nothing to do
		}
	}
}

// setTwoHeaders sets two headers (canonical names) with their values in one
// allocation instead of one per header.
func setTwoHeaders(h http.Header, k1, v1, k2, v2 string) {
	vals := []string{v1, v2}
	h[k1], h[k2] = vals[0:1:1], vals[1:2:2]
}

// setActivatedExtensions echoes the extensions the handler activated.
func setActivatedExtensions(h http.Header, info *CallInfo) {
	if info == nil {
		return
	}
	if exts := info.ActivatedExtensions(); len(exts) > 0 {
		h.Set(paramExtensions, strings.Join(exts, ","))
	}
}
