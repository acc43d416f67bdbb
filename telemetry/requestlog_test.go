package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/telemetry"
)

// failing panics in GetTask and SubscribeToTask for the task "panic", and
// fails with an unexpected error for "broken".
type failing struct {
	a2av1.UnimplementedA2AServiceHandler
}

func (failing) GetTask(_ context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	return nil, fail(req.GetId())
}

func (failing) SubscribeToTask(_ context.Context, req *a2av1.SubscribeToTaskRequest, _ runtime.Stream[*a2av1.StreamResponse]) error {
	return fail(req.GetId())
}

func fail(id string) error {
	if id == "panic" {
		panicInHandler()
	}
	return errors.New("the database is down")
}

func panicInHandler() { panic("boom") }

// logLines decodes JSON log lines.
func logLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestRequestLogFailures: each failure is logged once, by the request log
// (the binding leaves it to it), at error level with the cause, and a
// panic with its stack as a list of frames; without the request log the
// binding logs it once, the same way.
func TestRequestLogFailures(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			for _, withLog := range []bool{true, false} {
				reqLog, bindingLog := &logBuffer{}, &logBuffer{}
				opts := []runtime.HandlerOption{runtime.WithLogger(bindingLog.logger())}
				if withLog {
					opts = append(opts, runtime.WithInterceptors(telemetry.RequestLog(reqLog.logger())))
				}
				c := b.dial(t, b.serve(t, failing{}, opts...))
				ctx := context.Background()
				for _, id := range []string{"panic", "broken"} {
					if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id}); !errors.Is(err, runtime.ErrInternal) {
						t.Fatalf("GetTask(%s): %v, want Internal", id, err)
					}
					for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}) {
						if !errors.Is(err, runtime.ErrInternal) {
							t.Fatalf("SubscribeToTask(%s): %v, want Internal", id, err)
						}
					}
				}
				logged, silent := reqLog, bindingLog
				if !withLog {
					logged, silent = bindingLog, reqLog
				}
				if s := silent.String(); s != "" {
					t.Fatalf("request log %v: a failure was logged twice:\n%s", withLog, s)
				}
				lines := logLines(t, logged.String())
				if len(lines) != 4 {
					t.Fatalf("request log %v: %d lines, want one per call:\n%s", withLog, len(lines), logged)
				}
				for i, l := range lines {
					if l["level"] != "ERROR" {
						t.Errorf("line %d: level %v, want ERROR", i, l["level"])
					}
					// The binding's own line has the cause apart.
					errText, _ := l["error"].(string)
					if cause, ok := l["cause"].(string); ok {
						errText += ": " + cause
					}
					stack, hasStack := l["stack"].([]any)
					if i%2 == 0 && i < 2 || i == 1 { // the panics: GetTask and SubscribeToTask of "panic"
						if !strings.Contains(errText, "handler panicked: boom") || strings.Contains(errText, "\n") {
							t.Errorf("line %d: error %q, want the panic on one line", i, errText)
						}
						if !hasStack || len(stack) == 0 || !strings.Contains(stack[0].(string), "panicInHandler") {
							t.Errorf("line %d: stack %v, want frames starting at panicInHandler", i, l["stack"])
						}
					} else {
						if !strings.Contains(errText, "the database is down") || hasStack {
							t.Errorf("line %d: error %q, stack %v; want the cause and no stack", i, errText, hasStack)
						}
					}
				}
				if withLog {
					for i, l := range lines {
						if l["msg"] != "a2a call" || l["outcome"] != "Internal" || l["binding"] != b.name || l["taskId"] == nil {
							t.Errorf("request log line %d: %v", i, l)
						}
					}
				}
			}
		})
	}
}

// TestRequestLogLine: on every binding, a refused call and successful ones
// (unary and streaming, on the default server) are logged at info level,
// one line each, with binding, method, tenant, task and context ids,
// outcome, duration, the caller and a stream's events.
func TestRequestLogLine(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			logs := &logBuffer{}
			c := b.dial(t, b.serve(t, failing{}, runtime.WithInterceptors(telemetry.RequestLog(logs.logger()))))
			if _, err := c.CancelTask(context.Background(), &a2av1.CancelTaskRequest{Id: "t1", Tenant: "acme"}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
				t.Fatal(err)
			}
			lines := logLines(t, logs.String())
			if len(lines) != 1 {
				t.Fatalf("%d lines:\n%s", len(lines), logs)
			}
			wantLine(t, lines[0], map[string]any{"level": "INFO", "msg": "a2a call", "binding": b.name, "method": "CancelTask",
				"tenant": "acme", "taskId": "t1", "outcome": "UnsupportedOperation"})

			logs = &logBuffer{}
			subject := func(ctx context.Context, r *runtime.AuthRequest) (context.Context, error) {
				return runtime.WithIdentity(ctx, &runtime.Identity{Subject: "ada"}), nil
			}
			c = b.dial(t, b.serve(t, agent(t, newKit(t)), runtime.WithAuthenticator(subject),
				runtime.WithInterceptors(telemetry.RequestLog(logs.logger()))))
			resp, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: &a2av1.Message{
				MessageId: "m1", ContextId: "ctx-1", Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{server.TextPart("hello")}}})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var streamTask string
			for ev, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: textMessage("m2", "stream 2")}) {
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					streamTask = ev.GetTask().GetId()
				}
				n++
			}
			lines = logLines(t, logs.String())
			if len(lines) != 2 {
				t.Fatalf("%d lines, want one per call:\n%s", len(lines), logs)
			}
			wantLine(t, lines[0], map[string]any{"level": "INFO", "msg": "a2a call", "binding": b.name, "method": "SendMessage",
				"taskId": resp.GetTask().GetId(), "contextId": "ctx-1", "outcome": "OK", "caller": "ada"})
			wantLine(t, lines[1], map[string]any{"level": "INFO", "msg": "a2a call", "binding": b.name, "method": "SendStreamingMessage",
				"taskId": streamTask, "outcome": "OK", "caller": "ada", "events": float64(n)})
			for i, l := range lines {
				if l["error"] != nil || l["tenant"] != nil {
					t.Errorf("line %d of a successful call without tenant: %v", i, l)
				}
			}
		})
	}
}

// wantLine checks the attributes of a request log line, and that it has a
// duration.
func wantLine(t *testing.T, l map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if l[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, l[k], v, l)
		}
	}
	if _, ok := l["duration"].(float64); !ok {
		t.Errorf("duration = %v, want a number", l["duration"])
	}
}

// panickingExecutor panics at once for "panic", and after the task is
// working for "panic later".
func panickingExecutor(_ context.Context, req *server.Request, ev *server.Events) error {
	if req.Text() == "panic later" {
		if err := ev.Working(); err != nil {
			return err
		}
		if err := ev.Artifact(server.TextArtifact("", "half done")); err != nil {
			return err
		}
	}
	panicInExecutor()
	return nil
}

func panicInExecutor() { panic("boom in the skill") }

// TestRequestLogExecutorPanic: on the default server, an executor's panic
// is logged once, with the panic on one line and its stack as a list of
// frames: on the request log line of the call that receives the error
// (the server and the binding say nothing), or, when the task already
// exists and fails (the call succeeds), on the server's own line.
func TestRequestLogExecutorPanic(t *testing.T) {
	checkPanicLine := func(t *testing.T, what string, l map[string]any) {
		t.Helper()
		errText, _ := l["error"].(string)
		if cause, ok := l["cause"].(string); ok { // the binding's line has the cause apart
			errText += ": " + cause
		}
		if !strings.Contains(errText, "executor panicked: boom in the skill") || strings.Contains(errText, "\n") {
			t.Errorf("%s: error %q, want the panic on one line", what, errText)
		}
		stack, _ := l["stack"].([]any)
		if len(stack) == 0 || !strings.Contains(fmt.Sprint(stack[0]), "panicInExecutor") {
			t.Errorf("%s: stack %v, want frames starting at panicInExecutor", what, l["stack"])
		}
	}
	for _, b := range bindings {
		for _, withLog := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/request log %v", b.name, withLog), func(t *testing.T) {
				reqLog, bindingLog, serverLog := &logBuffer{}, &logBuffer{}, &logBuffer{}
				srv, err := server.New(echo.Card(), server.ExecutorFunc(panickingExecutor), server.WithLogger(serverLog.logger()))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
				opts := []runtime.HandlerOption{runtime.WithLogger(bindingLog.logger())}
				// Without the request log the binding logs the failure its
				// client does not see the cause of.
				logged, silent := bindingLog, reqLog
				if withLog {
					opts = append(opts, runtime.WithInterceptors(telemetry.RequestLog(reqLog.logger())))
					logged, silent = reqLog, bindingLog
				}
				c := b.dial(t, b.serve(t, srv, opts...))
				ctx := context.Background()
				msg := func(text string) *a2av1.SendMessageRequest {
					return &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: text, Role: a2av1.Role_ROLE_USER,
						Parts: []*a2av1.Part{server.TextPart(text)}}}
				}

				// Before the task exists: the caller gets Internal.
				if _, err := c.SendMessage(ctx, msg("panic")); !errors.Is(err, runtime.ErrInternal) {
					t.Fatalf("SendMessage(panic): %v, want Internal", err)
				}
				for _, err := range c.SendStreamingMessage(ctx, msg("panic")) {
					if !errors.Is(err, runtime.ErrInternal) {
						t.Fatalf("SendStreamingMessage(panic): %v, want Internal", err)
					}
				}
				lines := logLines(t, logged.String())
				if len(lines) != 2 {
					t.Fatalf("%d log lines, want one per call:\n%s", len(lines), logged)
				}
				for i, l := range lines {
					if l["level"] != "ERROR" || withLog && l["outcome"] != "Internal" {
						t.Errorf("log line %d: %v", i, l)
					}
					checkPanicLine(t, fmt.Sprintf("log line %d", i), l)
				}
				if s := serverLog.String() + silent.String(); s != "" {
					t.Fatalf("the failure was logged again:\n%s", s)
				}

				// Once the task exists: the task fails, the call succeeds,
				// the server logs the panic.
				before := logged.String()
				resp, err := c.SendMessage(ctx, msg("panic later"))
				if err != nil || resp.State() != a2av1.TaskState_TASK_STATE_FAILED {
					t.Fatalf("SendMessage(panic later): %v, %v; want the task FAILED", resp, err)
				}
				lines = logLines(t, serverLog.String())
				if len(lines) != 1 || lines[0]["level"] != "ERROR" {
					t.Fatalf("server log: %d lines, want the executor's failure once:\n%s", len(lines), serverLog)
				}
				checkPanicLine(t, "server log", lines[0])
				// (The request log has its line, of a call that succeeded.)
				after := logLines(t, strings.TrimPrefix(logged.String(), before))
				if withLog && (len(after) != 1 || after[0]["outcome"] != "OK" || after[0]["error"] != nil) || !withLog && len(after) != 0 || silent.String() != "" {
					t.Fatalf("the call that got the FAILED task was logged as:\n%s%s", strings.TrimPrefix(logged.String(), before), silent)
				}
			})
		}
	}
}

// panicky is an interceptor of the program's with a bug: it panics on
// every call.
var panicky = runtime.InterceptorFuncs{
	Unary: func(runtime.UnaryFunc) runtime.UnaryFunc {
		return func(context.Context, *runtime.CallInfo, proto.Message) (proto.Message, error) {
			panicInInterceptor()
			return nil, nil
		}
	},
	Stream: func(runtime.StreamFunc) runtime.StreamFunc {
		return func(context.Context, *runtime.CallInfo, proto.Message, func(proto.Message) error) error {
			panicInInterceptor()
			return nil
		}
	},
}

func panicInInterceptor() { panic("boom in an interceptor") }

// TestRequestLogInterceptorPanic: a panic in a server interceptor is
// handled like one in the handler, the same way on every binding: the
// client gets Internal (on HTTP no longer a cut connection), the
// interceptors outside see the error, and the request log logs it once
// with its stack.
func TestRequestLogInterceptorPanic(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			reqLog, bindingLog := &logBuffer{}, &logBuffer{}
			c := b.dial(t, b.serve(t, failing{}, runtime.WithLogger(bindingLog.logger()),
				runtime.WithInterceptors(telemetry.RequestLog(reqLog.logger()), panicky)))
			ctx := context.Background()
			if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"}); !errors.Is(err, runtime.ErrInternal) {
				t.Fatalf("GetTask: %v, want Internal", err)
			}
			for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "t1"}) {
				if !errors.Is(err, runtime.ErrInternal) {
					t.Fatalf("SubscribeToTask: %v, want Internal", err)
				}
			}
			lines := logLines(t, reqLog.String())
			if len(lines) != 2 {
				t.Fatalf("%d request log lines, want one per call:\n%s", len(lines), reqLog)
			}
			for i, l := range lines {
				errText, _ := l["error"].(string)
				stack, _ := l["stack"].([]any)
				if l["level"] != "ERROR" || l["outcome"] != "Internal" || !strings.Contains(errText, "interceptor panicked: boom in an interceptor") ||
					len(stack) == 0 || !strings.Contains(fmt.Sprint(stack[0]), "panicInInterceptor") {
					t.Errorf("line %d: %v; want Internal at error level with the panic and its stack", i, l)
				}
			}
			if s := bindingLog.String(); s != "" {
				t.Errorf("the binding logged the failure too:\n%s", s)
			}
		})
	}
}
