package server_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

func TestSendMessageIDs(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		a := sendTask(t, e.c, "hello")
		bb := sendTask(t, e.c, "hello")
		if a.GetId() == "" || a.GetContextId() == "" || a.GetId() == bb.GetId() || a.GetContextId() == bb.GetContextId() {
			t.Fatalf("generated ids: %q/%q and %q/%q; want non-empty, distinct", a.GetId(), a.GetContextId(), bb.GetId(), bb.GetContextId())
		}
		m := userMsg("hello")
		m.ContextId = "my-context"
		c := send(t, e.c, &a2av1.SendMessageRequest{Message: m}).GetTask()
		if c.GetContextId() != "my-context" {
			t.Fatalf("contextId %q, want the client's my-context kept", c.GetContextId())
		}
		h := c.GetHistory()
		if len(h) != 1 || h[0].GetMessageId() != m.GetMessageId() || h[0].GetTaskId() != c.GetId() || h[0].GetContextId() != "my-context" {
			t.Fatalf("history %v, want the user message with the task's ids", h)
		}
	})
}

func TestSendMessageErrors(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		done := sendTask(t, e.c, "hello")
		waiting := sendTask(t, e.c, "input")
		wrongCtx := followUp("x", waiting.GetId())
		wrongCtx.ContextId = "another-context"
		for _, tc := range []struct {
			name string
			req  *a2av1.SendMessageRequest
			want *runtime.Error
		}{
			{"terminal task", &a2av1.SendMessageRequest{Message: followUp("again", done.GetId())}, runtime.ErrUnsupportedOperation},
			{"unknown task", &a2av1.SendMessageRequest{Message: followUp("x", "no-such-task")}, runtime.ErrTaskNotFound},
			{"context mismatch", &a2av1.SendMessageRequest{Message: wrongCtx}, runtime.ErrInvalidParams},
			{"negative historyLength", &a2av1.SendMessageRequest{Message: userMsg("hello"),
				Configuration: &a2av1.SendMessageConfiguration{HistoryLength: ptr[int32](-1)}}, runtime.ErrInvalidParams},
		} {
			_, err := e.c.SendMessage(ctxT(t), tc.req)
			wantCode(t, tc.name, err, tc.want)
			_, err = collect(e.c.SendStreamingMessage(ctxT(t), tc.req))
			wantCode(t, tc.name+" (stream)", err, tc.want)
		}
		// The refused messages changed nothing.
		if got := waitState(t, e.c, waiting.GetId(), a2av1.TaskState_TASK_STATE_INPUT_REQUIRED); len(got.GetHistory()) != 1 {
			t.Fatalf("a refused follow-up reached the history: %v", got.GetHistory())
		}
	})
}

// TestSendMessageRefusesInvalidClientMessages: a part without content and a
// client message with the agent's role are refused with InvalidParams naming
// the field, on every binding and for both send rpcs (issue 13).
func TestSendMessageRefusesInvalidClientMessages(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		waiting := sendTask(t, e.c, "input")
		emptyPart := userMsg("hello")
		emptyPart.Parts = append(emptyPart.Parts, &a2av1.Part{}, &a2av1.Part{MediaType: "text/plain", Filename: "x.txt"})
		agentRole := userMsg("hello")
		agentRole.Role = a2av1.Role_ROLE_AGENT
		agentFollowUp := followUp("x", waiting.GetId())
		agentFollowUp.Role = a2av1.Role_ROLE_AGENT
		emptyFollowUp := followUp("x", waiting.GetId())
		emptyFollowUp.Parts = []*a2av1.Part{{}}
		for _, tc := range []struct {
			name   string
			msg    *a2av1.Message
			fields []string
		}{
			{"parts with no content", emptyPart, []string{"message.parts[1]", "message.parts[2]"}},
			{"agent role", agentRole, []string{"message.role"}},
			{"agent role in a follow-up", agentFollowUp, []string{"message.role"}},
			{"empty part in a follow-up", emptyFollowUp, []string{"message.parts[0]"}},
		} {
			req := &a2av1.SendMessageRequest{Message: tc.msg}
			_, err := e.c.SendMessage(ctxT(t), req)
			wantViolations(t, tc.name, err, tc.fields)
			_, err = collect(e.c.SendStreamingMessage(ctxT(t), req))
			wantViolations(t, tc.name+" (stream)", err, tc.fields)
		}
		if got := waitState(t, e.c, waiting.GetId(), a2av1.TaskState_TASK_STATE_INPUT_REQUIRED); len(got.GetHistory()) != 1 {
			t.Fatalf("a refused follow-up reached the history: %v", got.GetHistory())
		}
	})
}

func wantViolations(t *testing.T, what string, err error, fields []string) {
	t.Helper()
	wantCode(t, what, err, runtime.ErrInvalidParams)
	var got []string
	for _, v := range runtime.ErrorOrInternal(err).FieldViolations() {
		got = append(got, v.Field)
	}
	if !slices.Equal(got, fields) {
		t.Fatalf("%s: field violations %q, want %q (%v)", what, got, fields, err)
	}
	if msg := runtime.ErrorOrInternal(err).Message(); !strings.HasPrefix(msg, fields[0]+": ") {
		t.Fatalf("%s: message %q does not name %s", what, msg, fields[0])
	}
}

func TestSendMessageReturnImmediately(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		resp := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("slow 60000"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		task := resp.GetTask()
		if st := task.GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_SUBMITTED && st != a2av1.TaskState_TASK_STATE_WORKING {
			t.Fatalf("returnImmediately gave state %v, want SUBMITTED or WORKING", st)
		}
		if _, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()}); err != nil {
			t.Fatal(err)
		}
		// A direct reply is not affected by returnImmediately.
		resp = send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("message hi"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		if resp.GetMessage() == nil {
			t.Fatalf("got %v, want the direct reply", resp)
		}
	})
}

// TestReturnImmediatelyByDefault: under WithReturnImmediatelyByDefault a
// request without configuration returns the running task; without the
// option the same request blocks until the task is settled.
func TestReturnImmediatelyByDefault(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil, server.WithReturnImmediatelyByDefault())
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("slow 60000")}).GetTask()
		if st := task.GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_SUBMITTED && st != a2av1.TaskState_TASK_STATE_WORKING {
			t.Fatalf("default returnImmediately gave state %v, want SUBMITTED or WORKING", st)
		}
		if _, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()}); err != nil {
			t.Fatal(err)
		}

		blocking := newEnv(t, b, nil, nil)
		task = send(t, blocking.c, &a2av1.SendMessageRequest{Message: userMsg("slow 20")}).GetTask()
		if st := task.GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("spec default gave state %v, want COMPLETED (blocking)", st)
		}
	})
}

func TestSendMessageHistoryLength(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		first := sendTask(t, e.c, "input")
		for _, tc := range []struct {
			hl   *int32
			want int
		}{{nil, 3}, {ptr[int32](0), 0}, {ptr[int32](1), 1}, {ptr[int32](2), 2}, {ptr[int32](50), 3}} {
			// Each follow-up completes the task, so start a fresh one each time.
			task := first
			if tc.hl != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
				task = sendTask(t, e.c, "input")
			}
			got := send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("answer", task.GetId()),
				Configuration: &a2av1.SendMessageConfiguration{HistoryLength: tc.hl}}).GetTask()
			if len(got.GetHistory()) != tc.want {
				t.Fatalf("historyLength %v: %d messages, want %d", deref(tc.hl), len(got.GetHistory()), tc.want)
			}
			if tc.want > 0 && got.GetHistory()[len(got.GetHistory())-1].GetParts()[0].GetText() != "answer" {
				t.Fatalf("historyLength %v: the last message is not the newest", deref(tc.hl))
			}
			// GetTask applies it the same way and the stored task is untouched.
			full, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId(), HistoryLength: tc.hl})
			if err != nil || len(full.GetHistory()) != tc.want {
				t.Fatalf("GetTask historyLength %v: %d messages, %v; want %d", deref(tc.hl), len(full.GetHistory()), err, tc.want)
			}
		}
	})
}

func deref(p *int32) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// followUpExecutor works until it receives a follow-up on Request.FollowUps,
// then completes with an artifact naming it.
func followUpExecutor(received chan<- string) server.Executor {
	return server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		select {
		case m := <-req.FollowUps():
			received <- server.MessageText(m)
			if err := ev.Artifact(server.TextArtifact("", "got: "+server.MessageText(m))); err != nil {
				return err
			}
			return ev.Complete(nil)
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// TestMessageToWorkingTask: a message for a task that is still working is
// never rejected; it joins the history and reaches the running execution.
func TestMessageToWorkingTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		received := make(chan string, 1)
		e := newEnv(t, b, followUpExecutor(received), nil)
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("start"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		got := send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("more", task.GetId())}).GetTask()
		if <-received != "more" {
			t.Fatal("the execution did not receive the follow-up")
		}
		if got.GetId() != task.GetId() || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || artifactText(t, got) != "got: more" {
			t.Fatalf("follow-up answered %v, want the same task COMPLETED by the running execution", got)
		}
		if h := got.GetHistory(); len(h) != 2 || h[1].GetParts()[0].GetText() != "more" {
			t.Fatalf("history %v, want both user messages", h)
		}
	})
}

// TestFollowUpNotTakenStartsNextTurn: a follow-up that arrives while the
// execution is finishing its turn (interrupted) is not lost: it starts the
// next turn.
func TestFollowUpNotTakenStartsNextTurn(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		release := make(chan struct{})
		var mu sync.Mutex
		var turns []string
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			mu.Lock()
			turns = append(turns, req.Text())
			mu.Unlock()
			if req.Task == nil {
				if err := ev.InputRequired(server.AgentMessage("say more")); err != nil {
					return err
				}
				<-release // still running when the follow-up arrives, but not reading it
				return nil
			}
			if err := ev.Artifact(server.TextArtifact("", "turn 2: "+req.Text())); err != nil {
				return err
			}
			return ev.Complete(nil)
		})
		e := newEnv(t, b, exec, nil)
		task := sendTask(t, e.c, "first") // returns at INPUT_REQUIRED while Execute still runs
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
			t.Fatalf("state %v, want INPUT_REQUIRED", task.GetStatus().GetState())
		}
		resp := send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("second", task.GetId()),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		if st := resp.GetTask().GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_SUBMITTED {
			t.Fatalf("after the follow-up the task is %v, want SUBMITTED", st)
		}
		close(release)
		done := waitState(t, e.c, task.GetId(), a2av1.TaskState_TASK_STATE_COMPLETED)
		if got := artifactText(t, done); got != "turn 2: second" {
			t.Fatalf("artifact %q, want the second turn's", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(turns, []string{"first", "second"}) {
			t.Fatalf("turns %q", turns)
		}
	})
}

// TestExecutorOutcomes checks how Execute's return settles the task.
func TestExecutorOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		exec    server.ExecutorFunc
		state   a2av1.TaskState // when a task results
		wantErr *runtime.Error  // when the call fails instead
		msg     string          // status message text expected
	}{
		{"refused before any event", func(context.Context, *server.Request, *server.Events) error {
			return runtime.ContentTypeNotSupported("image/png")
		}, 0, runtime.ErrContentTypeNotSupported, ""},
		{"plain error before any event", func(context.Context, *server.Request, *server.Events) error {
			return errors.New("database down")
		}, 0, runtime.ErrInternal, ""},
		{"nothing at all", func(context.Context, *server.Request, *server.Events) error { return nil },
			0, runtime.ErrInvalidAgentResponse, ""},
		{"nil while working completes", func(_ context.Context, _ *server.Request, ev *server.Events) error {
			return ev.Working()
		}, a2av1.TaskState_TASK_STATE_COMPLETED, nil, ""},
		{"error while working fails, detail hidden", func(_ context.Context, _ *server.Request, ev *server.Events) error {
			if err := ev.Working(); err != nil {
				return err
			}
			return errors.New("secret database password leaked")
		}, a2av1.TaskState_TASK_STATE_FAILED, nil, "the agent failed while working on the task"},
		{"A2A error while working fails with its message", func(_ context.Context, _ *server.Request, ev *server.Events) error {
			if err := ev.Submit(); err != nil {
				return err
			}
			return runtime.InvalidParams("the document is empty")
		}, a2av1.TaskState_TASK_STATE_FAILED, nil, "the document is empty"},
		{"panic fails", func(_ context.Context, _ *server.Request, ev *server.Events) error {
			_ = ev.Working()
			panic("boom")
		}, a2av1.TaskState_TASK_STATE_FAILED, nil, "the agent failed while working on the task"},
		{"events after a terminal state are refused", func(_ context.Context, _ *server.Request, ev *server.Events) error {
			if err := ev.Complete(nil); err != nil {
				return err
			}
			if err := ev.Working(); err == nil {
				return errors.New("Working after Complete succeeded")
			}
			if err := ev.Reply(server.AgentMessage("x")); !errors.Is(err, server.ErrTaskStarted) {
				return errors.New("Reply after the task started did not fail with ErrTaskStarted")
			}
			return nil
		}, a2av1.TaskState_TASK_STATE_COMPLETED, nil, ""},
	}
	forEachBinding(t, func(t *testing.T, b binding) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, b, tc.exec, nil, server.WithLogger(discardLogger()))
				resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("x")})
				if tc.wantErr != nil {
					wantCode(t, "SendMessage", err, tc.wantErr)
					if strings.Contains(err.Error(), "database") {
						t.Fatalf("error %q leaks the executor's error text", err)
					}
					list, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
					if err != nil || list.GetTotalSize() != 0 {
						t.Fatalf("a task was created: %v, %v", list, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				st := resp.GetTask().GetStatus()
				if st.GetState() != tc.state || server.MessageText(st.GetMessage()) != tc.msg {
					t.Fatalf("status %v %q, want %v %q", st.GetState(), server.MessageText(st.GetMessage()), tc.state, tc.msg)
				}
			})
		}
	})
}

// TestBlockingCallSurvivesDroppedSubscription: a blocking SendMessage whose
// subscription overflows (buffer of one event, a burst of many) resubscribes
// and still returns the finished task.
func TestBlockingCallSurvivesDroppedSubscription(t *testing.T) {
	exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		for i := range 50 {
			if err := ev.ArtifactChunk(server.TextArtifact("a", "x"), i > 0, i == 49); err != nil {
				return err
			}
		}
		return ev.Complete(nil)
	})
	srv, err := server.New(echoCard(), exec, server.WithStore(store.NewMemory(store.WithSubscriberBuffer(1))))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	for range 20 {
		resp, err := srv.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMsg("go")})
		if err != nil {
			t.Fatal(err)
		}
		task := resp.GetTask()
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(task.GetArtifacts()[0].GetParts()) != 50 {
			t.Fatalf("got %v with %d parts, want COMPLETED with 50", task.GetStatus().GetState(), len(task.GetArtifacts()[0].GetParts()))
		}
	}
}

// TestClientLeavesBeforeTheTaskExists: the task goes on without the client
// that started it, and the subscription made for that client is released.
func TestClientLeavesBeforeTheTaskExists(t *testing.T) {
	release := make(chan struct{})
	exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		<-release
		if err := ev.Working(); err != nil {
			return err
		}
		return ev.Complete(nil)
	})
	srv, err := server.New(echoCard(), exec)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMsg("go")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("SendMessage = %v, want the client's deadline", err)
	}
	close(release)
	for {
		list, err := srv.ListTasks(context.Background(), &a2av1.ListTasksRequest{Status: a2av1.TaskState_TASK_STATE_COMPLETED})
		if err != nil {
			t.Fatal(err)
		}
		if list.GetTotalSize() == 1 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestIncompatibleContentTypes: an executor refusing the client's
// acceptedOutputModes with runtime.IncompatibleContentTypes reaches the
// client on every binding with both lists in the message and the metadata.
func TestIncompatibleContentTypes(t *testing.T) {
	exec := server.ExecutorFunc(func(_ context.Context, req *server.Request, _ *server.Events) error {
		return runtime.IncompatibleContentTypes([]string{"image/png"}, req.AcceptedOutputModes)
	})
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, exec, nil)
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("draw"),
			Configuration: &a2av1.SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain", "application/json"}}})
		wantCode(t, "incompatible modes", err, runtime.ErrContentTypeNotSupported)
		got := runtime.ErrorOrInternal(err)
		if want := "incompatible content types: offered image/png; accepted text/plain, application/json"; got.Message() != want {
			t.Fatalf("message %q, want %q", got.Message(), want)
		}
		if md := got.Metadata(); md["offered"] != "image/png" || md["accepted"] != "text/plain,application/json" {
			t.Fatalf("metadata %v", md)
		}
	})
}

// TestBlockingSendOutlivesItsSmallBuffer: a blocking SendMessage waits on a
// subscription with room for only store.OutcomeSubscriberBuffer events; a
// task that writes many more events at once (50 chunks without a pause)
// overflows it, and the call subscribes again until the task settles,
// answering the complete task.
func TestBlockingSendOutlivesItsSmallBuffer(t *testing.T) {
	srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: -1}, server.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	for range 20 {
		resp, err := srv.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMsg("stream 50")})
		if err != nil {
			t.Fatal(err)
		}
		task := resp.GetTask()
		if st := task.GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("state %s, want COMPLETED", st)
		}
		if n := len(task.GetArtifacts()); n != 1 || len(task.GetArtifacts()[0].GetParts()) != 50 {
			t.Fatalf("artifacts %v, want one with the 50 chunks", task.GetArtifacts())
		}
	}
}
