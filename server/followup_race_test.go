package server_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// TestFollowUpAsTheTurnEndsTheTask: a follow-up that the server accepted
// while the execution was about to end the task reaches the agent. The
// order is forced, without sleeps: the executor decides to complete, the
// follow-up is accepted (it joins the history and FollowUps), and only then
// does the executor write COMPLETED. That write is refused with
// ErrFollowUpPending, the turn returns, and the next turn gets the
// follow-up as its message; the task ends with the agent's answer to it.
// (Before, the task ended COMPLETED with the follow-up in its history and
// the agent never saw it: the "1 in 30 trials" of issue 13.)
func TestFollowUpAsTheTurnEndsTheTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		decided := make(chan struct{}, 2)
		proceed := make(chan struct{})
		turns := make(chan string, 4)
		completeErrs := make(chan error, 4)
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			turns <- req.Text()
			if err := ev.Working(); err != nil {
				return err
			}
			decided <- struct{}{} // the executor will not look at FollowUps again
			select {
			case <-proceed:
			case <-ctx.Done():
				return ctx.Err()
			}
			err := ev.Complete(server.AgentMessage("done: " + req.Text()))
			completeErrs <- err
			return err
		})
		e := newEnv(t, b, exec, nil)
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("start"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		<-decided
		ack := send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("more", task.GetId()),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		if ack.GetId() != task.GetId() {
			t.Fatalf("follow-up answered task %q, want %q", ack.GetId(), task.GetId())
		}
		close(proceed)

		switch err := <-completeErrs; {
		case err == nil:
			got, _ := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()})
			t.Fatalf("the execution ended the task (%v, history %d messages) without ever getting the accepted follow-up",
				got.GetStatus().GetState(), len(got.GetHistory()))
		case !errors.Is(err, server.ErrFollowUpPending):
			t.Fatalf("Complete with a follow-up waiting: %v, want ErrFollowUpPending", err)
		}
		if <-turns != "start" {
			t.Fatal("first turn is not the first message")
		}
		if got := <-turns; got != "more" {
			t.Fatalf("second turn got %q, want the follow-up", got)
		}
		if err := <-completeErrs; err != nil {
			t.Fatalf("Complete in the second turn: %v", err)
		}
		// The second Complete has been written: the task is final.
		final, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || final.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("GetTask: %v, %v; want COMPLETED", final.GetStatus().GetState(), err)
		}
		if h := final.GetHistory(); len(h) < 2 || server.MessageText(h[1]) != "more" {
			t.Errorf("history %v, want the follow-up after the first message", h)
		}
		if got := server.MessageText(final.GetStatus().GetMessage()); got != "done: more" {
			t.Errorf("final status message %q, want the agent's answer to the follow-up", got)
		}
	})
}

// TestFollowUpAfterTheTaskEnded: a follow-up that comes after the turn
// ended the task is refused, never accepted and dropped.
func TestFollowUpAfterTheTaskEnded(t *testing.T) {
	e := newEnv(t, bindings[0], nil, nil)
	task := sendTask(t, e.c, "hello")
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("task %v, want COMPLETED", task.GetStatus().GetState())
	}
	_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("late", task.GetId())})
	if err == nil {
		t.Fatal("a follow-up to a completed task was accepted")
	}
}
