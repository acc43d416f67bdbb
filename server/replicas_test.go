package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// Two server instances sharing one store stand in for two replicas of an
// agent here (the store carries tasks and events between them; the
// instances signal each other). Replicas in separate processes on a shared
// database are tested with the PostgreSQL store.

// waiter is an executor that reports WORKING, then waits for a follow-up
// ("done" completes the task) or for its context to end, whose cause it
// reports.
type waiter struct {
	started chan string
	stopped chan error
}

func newWaiter() *waiter {
	return &waiter{started: make(chan string, 10), stopped: make(chan error, 10)}
}

func (w *waiter) Execute(ctx context.Context, req *server.Request, ev *server.Events) error {
	if req.Task != nil { // a new turn after input
		return ev.Complete(server.AgentMessage("got " + req.Text()))
	}
	if req.Text() == "input" {
		return ev.InputRequired(server.AgentMessage("say more"))
	}
	if err := ev.Working(); err != nil {
		return err
	}
	w.started <- req.TaskID
	for {
		select {
		case m := <-req.FollowUps():
			if server.MessageText(m) == "done" {
				return ev.Complete(server.AgentMessage("finished after a follow-up"))
			}
		case <-ctx.Done():
			w.stopped <- context.Cause(ctx)
			return ctx.Err()
		}
	}
}

func replicaPair(t *testing.T) (a, b *env, wa, wb *waiter) {
	st := store.NewMemory()
	wa, wb = newWaiter(), newWaiter()
	a = newEnv(t, bindings[0], wa, nil, server.WithStore(st))
	b = newEnv(t, bindings[1], wb, nil, server.WithStore(st))
	return a, b, wa, wb
}

// TestCancelReachesTheRunningReplica: a cancel sent to the instance that
// does not run the task stops the execution on the one that does.
func TestCancelReachesTheRunningReplica(t *testing.T) {
	a, b, wa, _ := replicaPair(t)
	resp := send(t, a.c, &a2av1.SendMessageRequest{Message: userMsg("work"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	id := resp.GetTask().GetId()
	select {
	case <-wa.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the execution did not start")
	}
	start := time.Now()
	task, err := b.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: id})
	if err != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatalf("CancelTask on the other replica = %v, %v", task.GetStatus().GetState(), err)
	}
	select {
	case cause := <-wa.stopped:
		if !errors.Is(cause, server.ErrCanceled) {
			t.Fatalf("execution stopped with cause %v, want ErrCanceled", cause)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("the execution stopped %v after the cancel, want within 1s", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the execution on the other replica was not stopped")
	}
}

// TestFollowUpReachesTheRunningReplica: a follow-up sent to the other
// instance arrives on the execution's FollowUps; one for a task waiting for
// input starts its next turn; and a blocking call on the receiving instance
// returns the outcome either way.
func TestFollowUpReachesTheRunningReplica(t *testing.T) {
	a, b, wa, _ := replicaPair(t)
	resp := send(t, a.c, &a2av1.SendMessageRequest{Message: userMsg("work"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	id := resp.GetTask().GetId()
	<-wa.started
	got := send(t, b.c, &a2av1.SendMessageRequest{Message: followUp("done", id)}).GetTask()
	if got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED ||
		server.MessageText(got.GetStatus().GetMessage()) != "finished after a follow-up" {
		t.Fatalf("blocking follow-up on the other replica returned %v %q, want COMPLETED by the execution on the first",
			got.GetStatus().GetState(), server.MessageText(got.GetStatus().GetMessage()))
	}

	waiting := sendTask(t, a.c, "input")
	if waiting.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
		t.Fatalf("task %v, want INPUT_REQUIRED", waiting.GetStatus().GetState())
	}
	got = send(t, b.c, &a2av1.SendMessageRequest{Message: followUp("more", waiting.GetId())}).GetTask()
	if got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || server.MessageText(got.GetStatus().GetMessage()) != "got more" {
		t.Fatalf("follow-up of a waiting task on the other replica: %v %q, want COMPLETED \"got more\"",
			got.GetStatus().GetState(), server.MessageText(got.GetStatus().GetMessage()))
	}
}
