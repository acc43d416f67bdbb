package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
)

// orphan stores a task as a server instance that has stopped would leave
// it: in state, with runner's execution record.
func orphan(t *testing.T, st store.Store, id string, state a2av1.TaskState, runner string, lease time.Time, hookURL string) {
	t.Helper()
	task := &a2av1.Task{Id: id, ContextId: "ctx-" + id,
		Status:  &a2av1.TaskStatus{State: state, Timestamp: timestamppb.Now()},
		History: []*a2av1.Message{userMsg("slow 60000")}}
	c := store.Creation{Record: store.Record{Task: task, Runner: runner, LeaseUntil: lease}}
	if hookURL != "" {
		c.PushConfigs = []store.PushConfig{{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{TaskId: id, Id: "hook", Url: hookURL}}}
	}
	if _, _, err := st.CreateTask(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// TestRecoveryOfOrphanedTasks: a server starting on a store that holds the
// execution records of an instance that stopped settles its SUBMITTED and
// WORKING tasks as FAILED — at once when that instance ran on this host and
// its process is gone, after its lease otherwise — and their webhooks get
// the final event. Interrupted tasks and tasks of live instances stay.
func TestRecoveryOfOrphanedTasks(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		st := store.NewMemory()
		hook := newWebhook(t)
		self := store.NewRunnerID()
		goneHere := store.RunnerHost(self) + "/2147483646/0/dead"
		orphan(t, st, "gone-here", a2av1.TaskState_TASK_STATE_WORKING, goneHere, time.Now().Add(time.Hour), hook.URL)
		orphan(t, st, "lease-over", a2av1.TaskState_TASK_STATE_SUBMITTED, "elsewhere/1/x", time.Now().Add(-time.Second), "")
		orphan(t, st, "lease-soon-over", a2av1.TaskState_TASK_STATE_WORKING, "elsewhere/2/y", time.Now().Add(1500*time.Millisecond), "")
		orphan(t, st, "alive", a2av1.TaskState_TASK_STATE_WORKING, "elsewhere/3/z", time.Now().Add(time.Hour), "")
		orphan(t, st, "waiting", a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, goneHere, time.Now().Add(-time.Hour), "")
		sender := push.NewSender(push.AllowPrivateNetworks())
		t.Cleanup(func() { _ = sender.Close(ctxT(t)) })
		e := newEnv(t, b, nil, nil, server.WithStore(st), server.WithPushSender(sender), server.WithRunLease(time.Second))

		failed := waitState(t, e.c, "gone-here", a2av1.TaskState_TASK_STATE_FAILED)
		if msg := server.MessageText(failed.GetStatus().GetMessage()); !strings.Contains(msg, "agent stopped") {
			t.Fatalf("status message %q, want one saying the agent stopped", msg)
		}
		evs := hook.waitN(t, 1)
		if got := describeAll(evs); len(got) != 1 || got[0] != "status FAILED+msg" {
			t.Fatalf("webhook of the orphaned task got %q, want its FAILED update", got)
		}
		waitState(t, e.c, "lease-over", a2av1.TaskState_TASK_STATE_FAILED)
		waitState(t, e.c, "lease-soon-over", a2av1.TaskState_TASK_STATE_FAILED)
		for id, want := range map[string]a2av1.TaskState{"alive": a2av1.TaskState_TASK_STATE_WORKING, "waiting": a2av1.TaskState_TASK_STATE_INPUT_REQUIRED} {
			got, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: id})
			if err != nil || got.GetStatus().GetState() != want {
				t.Fatalf("task %s: %v, %v; want it left %s", id, got.GetStatus().GetState(), err, short(want))
			}
		}
	})
}

// TestRunsKeepTheirLease: a task this server executes is never taken for an
// orphan while it runs, however short the lease: the server renews it.
func TestRunsKeepTheirLease(t *testing.T) {
	st := store.NewMemory()
	e := newEnv(t, bindings[0], nil, nil, server.WithStore(st), server.WithRunLease(time.Second))
	resp := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("slow 2500"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	id := resp.GetTask().GetId()
	// Another instance looking for orphans all along must find none.
	other := store.NewRunnerID() + "-other"
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		recs, err := st.StaleRuns(context.Background(), other, time.Now(), 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			t.Fatalf("task %s (runner %s, lease until %v) looks orphaned while it runs", r.Task.GetId(), r.Runner, r.LeaseUntil)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if done := waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_COMPLETED); done.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatal("the task did not complete")
	}
}

// resumer is the echo agent declaring itself resumable.
type resumer struct{ echo.Agent }

func (*resumer) Resumable() bool { return true }

// TestRecoveryResumesResumableExecutors: an orphaned task of a Resumable
// executor runs again (its last client message, Request.Task set) instead
// of failing.
func TestRecoveryResumesResumableExecutors(t *testing.T) {
	st := store.NewMemory()
	self := store.NewRunnerID()
	orphan(t, st, "resume-me", a2av1.TaskState_TASK_STATE_WORKING, store.RunnerHost(self)+"/2147483646/0/dead", time.Now().Add(time.Hour), "")
	e := newEnv(t, bindings[0], &resumer{echo.Agent{ChunkInterval: time.Millisecond}}, nil, server.WithStore(st))
	done := waitState(t, e.c, "resume-me", a2av1.TaskState_TASK_STATE_COMPLETED)
	if got := artifactText(t, done); got != "Echo: slow 60000" {
		t.Fatalf("resumed task's artifact %q, want the echo of its message (a follow-up turn)", got)
	}
}
