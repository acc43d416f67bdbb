package telemetry

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/internal/respmeta"
	"github.com/a2agen/a2agen/runtime"
)

// RequestLog returns an interceptor that writes one line per call to l:
//
//	level=INFO msg="a2a call" binding=JSONRPC method=SendMessage tenant=acme
//	  taskId=… contextId=… outcome=OK duration=1.8ms peer=10.0.0.7:52114
//	  caller=ada events=3 traceId=… spanId=…
//
// taskId and contextId are those the request names, else those of the
// answer or a stream's first event: a message refused before its task
// exists, or answered directly, is logged without a taskId, although the
// default server had picked one for the task it would have created.
//
// outcome is OK, the A2A error's code name (TaskNotFound, Internal, …), or
// Canceled / DeadlineExceeded when the call's context ended; events is
// given for streams (and requests for the client's stream of requests of
// SendLiveMessage: those received, on the client those sent), caller for authenticated callers, traceId and spanId
// when the call is traced (put Tracing before RequestLog). A failed call
// adds error — an Internal error with the cause the client never saw — and,
// for a handler's panic, stack: the frames as a list, so that a JSON log
// keeps one frame per element instead of one escaped string.
//
// Levels: INFO for calls that succeeded or that the agent refused (the
// caller's error), WARN for a passed deadline and, on the client side, for
// every failure, ERROR for failures of the agent (Internal,
// InvalidAgentResponse, MethodNotFound).
//
// Each failure is logged once: the interceptor is a runtime.FailureLogger,
// so the binding does not log the failures it reports again. On the
// client side the message is "a2a client call". A nil l uses slog.Default().
func RequestLog(l *slog.Logger) runtime.Interceptor {
	if l == nil {
		l = slog.Default()
	}
	return &requestLog{logger: l}
}

type requestLog struct {
	logger *slog.Logger
}

// LogsFailures implements runtime.FailureLogger.
func (r *requestLog) LogsFailures() bool { return true }

// IgnoresResponseMetadata implements respmeta.Ignorer: the interceptor
// never reads the response metadata of client calls, so the gRPC transport
// need not capture it for it.
func (*requestLog) IgnoresResponseMetadata(respmeta.Unread) {}

func (r *requestLog) WrapUnary(next runtime.UnaryFunc) runtime.UnaryFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
		start := time.Now()
		resp, err := next(ctx, call, req)
		r.log(ctx, call, req, resp, err, start, -1, -1)
		return resp, err
	}
}

func (r *requestLog) WrapStream(next runtime.StreamFunc) runtime.StreamFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
		start := time.Now()
		var (
			n     atomic.Int64
			first atomic.Pointer[proto.Message]
		)
		err := next(ctx, call, req, func(m proto.Message) error {
			if n.Add(1) == 1 {
				first.Store(&m)
			}
			return send(m)
		})
		var resp proto.Message
		if p := first.Load(); p != nil {
			resp = *p
		}
		r.log(ctx, call, req, resp, err, start, int(n.Load()), -1)
		return err
	}
}

func (r *requestLog) log(ctx context.Context, call *runtime.CallInfo, req, resp proto.Message, err error, start time.Time, events, requests int) {
	d := time.Since(start)
	o := okOutcome
	if err != nil {
		o = outcomeOf(ctx, call, err)
	}
	level, msg := logLevel(call, o)
	if !r.logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs, slog.String("binding", call.Binding.String()), slog.String("method", call.Operation.Name))
	attrs = appendNonEmpty(attrs, "tenant", call.Tenant)
	// The ids the caller sent, else those of the answer (a new task, or
	// the context of a direct reply): never ids of a task that does not
	// exist.
	taskID, contextID := requestIDs(req)
	if taskID == "" && resp != nil {
		taskID, contextID = responseIDs(resp)
	}
	attrs = appendNonEmpty(attrs, "taskId", taskID)
	attrs = appendNonEmpty(attrs, "contextId", contextID)
	attrs = append(attrs, slog.String("outcome", o.name), slog.Duration("duration", d))
	attrs = appendNonEmpty(attrs, "peer", call.Peer)
	if id, ok := runtime.IdentityFromContext(ctx); ok && !call.Client {
		attrs = appendNonEmpty(attrs, "caller", id.Subject)
	}
	if events >= 0 {
		attrs = append(attrs, slog.Int("events", events))
	}
	if requests >= 0 {
		attrs = append(attrs, slog.Int("requests", requests))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		attrs = append(attrs, slog.String("traceId", sc.TraceID().String()), slog.String("spanId", sc.SpanID().String()))
	}
	if err != nil && o.name != "OK" {
		attrs = appendError(attrs, err)
	}
	r.logger.LogAttrs(ctx, level, msg, attrs...)
}

// logLevel is the level and message of a call's line: a client call that
// failed is a warning; a server call that failed because of the agent an
// error, or a warning when only its context ended; anything else info.
func logLevel(call *runtime.CallInfo, o outcome) (slog.Level, string) {
	switch {
	case call.Client && o.errorType != "":
		return slog.LevelWarn, "a2a client call"
	case call.Client:
		return slog.LevelInfo, "a2a client call"
	case o.fault && o.ctxEnd:
		return slog.LevelWarn, "a2a call"
	case o.fault:
		return slog.LevelError, "a2a call"
	}
	return slog.LevelInfo, "a2a call"
}

// appendNonEmpty adds the attribute key=v unless v is empty.
func appendNonEmpty(attrs []slog.Attr, key, v string) []slog.Attr {
	if v == "" {
		return attrs
	}
	return append(attrs, slog.String(key, v))
}

// appendError adds the error's text, and the stack of a panic.
func appendError(attrs []slog.Attr, err error) []slog.Attr {
	attrs = append(attrs, slog.String("error", errorText(err)))
	var pe *runtime.PanicError
	if errors.As(err, &pe) {
		attrs = append(attrs, slog.Any("stack", pe.Stack()))
	}
	return attrs
}
