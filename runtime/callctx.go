package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// How the end of a call's context is reported, on both sides.
//
// Server: a handler that gives up because its call's context ended returns
// ctx.Err() or an error wrapping it. That is not a failure of the agent:
// gRPC answers DEADLINE_EXCEEDED or CANCELED, like any gRPC server (see
// grpcContextStatus), and nothing is logged above debug level. The HTTP
// bindings have no client deadline; see timeoutError for what they answer.
//
// Client: when the caller's context is over, a failed call reports the
// context's error whatever the agent answered (see callerContextError).

// callerContextErr returns the error of a caller's context that is over:
// ctx.Err(), or context.DeadlineExceeded once the deadline has passed by the
// clock even though ctx's timer has not fired yet. An answer can arrive in
// that gap — the agent's copy of the deadline (gRPC's grpc-timeout, or a
// deadline of its own) may end the call first — and must still be reported
// as the caller's deadline. nil while the caller still waits.
func callerContextErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// callerContextError is what a client transport of binding reports for err,
// the failure of a call of op, made with ctx: when the caller's context is
// over, an error wrapping its context error (so that errors.Is(err,
// context.DeadlineExceeded) or errors.Is(err, context.Canceled) holds), even
// when the agent's answer — an A2A error, an HTTP or gRPC status — arrived
// before the transport noticed; otherwise err unchanged.
func callerContextError(ctx context.Context, binding Binding, op *Operation, err error) error {
	if err == nil {
		return nil
	}
	ctxErr := callerContextErr(ctx)
	if ctxErr == nil || errors.Is(err, ctxErr) {
		return err
	}
	return fmt.Errorf("a2a: %s %s: %w", binding.Title(), op.Name, ctxErr)
}

// callerContextYield wraps the yield function of a transport's stream so
// that the error it passes on goes through callerContextError.
func callerContextYield(ctx context.Context, binding Binding, op *Operation, yield func(proto.Message, error) bool) func(proto.Message, error) bool {
	return func(m proto.Message, err error) bool {
		return yield(m, callerContextError(ctx, binding, op, err))
	}
}

// handlerContextErr returns the error of the call's context when a handler
// failed because that context ended: the context is over and err is (or
// wraps) context.DeadlineExceeded or context.Canceled without being an A2A
// error of its own (an *Error other than Internal). nil otherwise.
func handlerContextErr(ctx context.Context, err error) error {
	ctxErr := ctx.Err()
	if ctxErr == nil || err == nil {
		return nil
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return nil
	}
	if e := ErrorOrInternal(err); e != nil && e.code != CodeInternal {
		return nil
	}
	return ctxErr
}

// grpcContextStatus is the status of a gRPC call whose handler gave up
// because the call's context ended with ctxErr: DEADLINE_EXCEEDED or
// CANCELED with the context's message and no details (no ErrorInfo: it is
// not an A2A error but the end of the call, which is what gRPC clients,
// grpc-go's included, expect; a client whose deadline passed reports its
// own context error anyway). The handler's error is only logged, at debug
// level (handlerError).
func grpcContextStatus(ctxErr error) error {
	return status.FromContextError(ctxErr).Err()
}

// timeoutError is the *Error the bindings send for a handler that returned
// context.DeadlineExceeded (or an error wrapping it) that is not the end of
// a gRPC call's own context: on the HTTP bindings, whose requests carry no
// client deadline, it comes from a deadline of the agent (the handler's own
// timeout, or a server middleware's), and on gRPC from a deadline the
// handler set itself.
//
// It stays an A2A error — InternalError: JSON-RPC -32603, HTTP 500
// INTERNAL, gRPC INTERNAL, each with its ErrorInfo (reason
// INTERNAL_ERROR) — because the A2A error table (docs/bindings.md) has no timeout
// error: its system errors are InternalError with 500, or 503 when
// temporary, and the client did not run out of time, the agent did. 504
// (what the official Go SDK sends for a deadline) means a gateway that timed
// out waiting for an upstream server, and DEADLINE_EXCEEDED without
// ErrorInfo would read as the caller's own deadline. Only the message says
// what happened ("deadline exceeded"); the cause stays in the logs.
func timeoutError(e *Error, err error) *Error {
	if e.code != CodeInternal || e.message != "" || !errors.Is(err, context.DeadlineExceeded) {
		return e
	}
	c := *e
	c.message = "deadline exceeded"
	return &c
}
