package telemetry_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/telemetry"
)

// refusingExecutor refuses a message before its task exists, as the
// Executor contract allows (no event, an error returned), or answers it
// directly without a task.
func refusingExecutor(_ context.Context, req *server.Request, ev *server.Events) error {
	switch req.Text() {
	case "invalid":
		return runtime.InvalidParams("the skill wants a city", runtime.FieldViolation{Field: "message.parts[0]", Description: "no city"})
	case "unauthenticated":
		return runtime.Unauthenticated("this skill needs a signed-in caller")
	case "reply":
		return ev.Reply(&a2av1.Message{MessageId: "r1", Parts: []*a2av1.Part{server.TextPart("no task needed")}})
	}
	return ev.Complete(nil)
}

// idsWant are the ids a call's log line (or span) must carry: "" for
// none, "*" for any.
type idsWant struct {
	what, method, outcome string
	taskID, contextID     string
}

// check compares got with w.
func (w idsWant) check(t *testing.T, i int, method, outcome, taskID, contextID string) {
	t.Helper()
	if method != w.method || outcome != w.outcome {
		t.Errorf("call %d (%s): method %q, outcome %q; want %s, %s", i, w.what, method, outcome, w.method, w.outcome)
	}
	if taskID != w.taskID {
		t.Errorf("call %d (%s %s): task id %q, want %q", i, w.method, w.what, taskID, w.taskID)
	}
	if w.contextID == "*" && contextID == "" || w.contextID != "*" && contextID != w.contextID {
		t.Errorf("call %d (%s %s): context id %q, want %q", i, w.method, w.what, contextID, w.contextID)
	}
}

// messagesWithoutTasks serves the default server over refusingExecutor on
// b with the interceptors, twice (once behind an authenticator that
// refuses every caller), and sends it messages that are refused before
// their task exists, answered directly, sent to a task that does not
// exist, and that make a task, by SendMessage and SendStreamingMessage.
// It returns what each call's ids must be, in the order of the calls.
func messagesWithoutTasks(t *testing.T, b binding, interceptors ...runtime.Interceptor) []idsWant {
	t.Helper()
	srv, err := server.New(echo.Card(), server.ExecutorFunc(refusingExecutor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	denyAll := func(context.Context, *runtime.AuthRequest) (context.Context, error) {
		return nil, runtime.Unauthenticated("no credentials")
	}
	open := b.dial(t, b.serve(t, srv, runtime.WithInterceptors(interceptors...)))
	closed := b.dial(t, b.serve(t, srv, runtime.WithAuthenticator(denyAll), runtime.WithInterceptors(interceptors...)))
	ctx := context.Background()
	send := func(text string) *a2av1.SendMessageRequest {
		return &a2av1.SendMessageRequest{Message: textMessage(text, text)}
	}

	var wants []idsWant
	for _, c := range []struct {
		client   a2av1.A2AServiceClient
		text     string
		sentinel error
		outcome  string
	}{
		{open, "invalid", runtime.ErrInvalidParams, "InvalidParams"},
		{open, "unauthenticated", runtime.ErrUnauthenticated, "Unauthenticated"},
		{closed, "anything", runtime.ErrUnauthenticated, "Unauthenticated"},
	} {
		if _, err := c.client.SendMessage(ctx, send(c.text)); !errors.Is(err, c.sentinel) {
			t.Fatalf("SendMessage(%s): %v, want %v", c.text, err, c.sentinel)
		}
		for _, err := range c.client.SendStreamingMessage(ctx, send(c.text)) {
			if !errors.Is(err, c.sentinel) {
				t.Fatalf("SendStreamingMessage(%s): event or error %v, want %v", c.text, err, c.sentinel)
			}
		}
		wants = append(wants, idsWant{what: c.text, method: "SendMessage", outcome: c.outcome},
			idsWant{what: c.text, method: "SendStreamingMessage", outcome: c.outcome})
	}

	// A direct reply: no task either, but the reply's context id (the
	// server's) is in the answer.
	resp, err := open.SendMessage(ctx, send("reply"))
	if err != nil || resp.GetMessage() == nil {
		t.Fatalf("SendMessage(reply): %v, %v; want a message", resp, err)
	}
	for ev, err := range open.SendStreamingMessage(ctx, send("reply")) {
		if err != nil || ev.GetMessage() == nil {
			t.Fatalf("SendStreamingMessage(reply): %v, %v; want a message", ev, err)
		}
	}
	wants = append(wants, idsWant{what: "reply", method: "SendMessage", outcome: "OK", contextID: resp.GetMessage().GetContextId()},
		idsWant{what: "reply", method: "SendStreamingMessage", outcome: "OK", contextID: "*"})

	// A follow-up names its task, even one that does not exist.
	missing := textMessage("m-missing", "hello")
	missing.TaskId = "no-such-task"
	if _, err := open.SendMessage(ctx, &a2av1.SendMessageRequest{Message: missing}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("SendMessage to a missing task: %v, want TaskNotFound", err)
	}
	wants = append(wants, idsWant{what: "follow-up", method: "SendMessage", outcome: "TaskNotFound", taskID: "no-such-task"})

	// A task that exists: its ids, from the answer and from the stream's
	// first event.
	done, err := open.SendMessage(ctx, send("done"))
	if err != nil {
		t.Fatal(err)
	}
	var streamed *a2av1.Task
	for ev, err := range open.SendStreamingMessage(ctx, send("done")) {
		if err != nil {
			t.Fatal(err)
		}
		if streamed == nil {
			streamed = ev.GetTask()
		}
	}
	return append(wants, idsWant{what: "task", method: "SendMessage", outcome: "OK", taskID: done.GetTask().GetId(), contextID: done.GetTask().GetContextId()},
		idsWant{what: "task", method: "SendStreamingMessage", outcome: "OK", taskID: streamed.GetId(), contextID: streamed.GetContextId()})
}

// TestRequestLogIDsOfMessagesWithoutTasks: on every binding, a message
// refused before its task exists (by the skill, with InvalidParams or
// Unauthenticated, or by the binding's authenticator) or answered directly
// is logged without a task id, and without a context id the caller did not
// send and the answer does not carry: no task by the id the server picked
// for it ever exists. A call that names a task, or whose answer or
// first stream event carries one, is logged with it.
func TestRequestLogIDsOfMessagesWithoutTasks(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			logs := &logBuffer{}
			wants := messagesWithoutTasks(t, b, telemetry.RequestLog(logs.logger()))
			lines := logLines(t, logs.String())
			if len(lines) != len(wants) {
				t.Fatalf("%d lines, want %d (one per call):\n%s", len(lines), len(wants), logs)
			}
			for i, w := range wants {
				l := lines[i]
				str := func(k string) string { s, _ := l[k].(string); return s }
				w.check(t, i, str("method"), str("outcome"), str("taskId"), str("contextId"))
			}
		})
	}
}
