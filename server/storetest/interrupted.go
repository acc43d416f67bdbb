package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// InterruptedTTL is the TTL RunInterruptedRetention gives its stores.
const InterruptedTTL = time.Hour

// Clock is the settable clock of RunInterruptedRetention.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// RunInterruptedRetention checks the retention of interrupted tasks: a task
// that has been INPUT_REQUIRED or AUTH_REQUIRED for longer than its TTL
// (counted from its status timestamp, which the server sets when it writes
// the status) is gone — reads, listings, subscriptions, updates and push
// configs answer as for a task that never existed — while tasks that are
// running, or that left the interrupted state in time, stay. newStore
// returns an empty store whose interrupted-task TTL is InterruptedTTL and
// whose clock is clock.Now.
func RunInterruptedRetention(t *testing.T, newStore func(t *testing.T, clock *Clock) store.Store) {
	ctx := context.Background()
	clock := &Clock{t: base}
	s := newStore(t, clock)

	mustCreate(t, s, "", "", newTask("input", "c", inputReq, 0))
	mustCreate(t, s, "", "", newTask("working", "c", working, 0))
	auth := newTask("auth", "c", submitted, 0)
	mustCreate(t, s, "", "", auth)
	auth = next(auth, a2av1.TaskState_TASK_STATE_AUTH_REQUIRED, 30*time.Minute)
	mustUpdate(t, s, "", auth, 1)
	resumed := newTask("resumed", "c", inputReq, 0)
	mustCreate(t, s, "", "", resumed)
	mustUpdate(t, s, "", next(resumed, working, 50*time.Minute), 1)
	must(t, s.SavePushConfig(ctx, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: "input", Id: "p", Url: "https://example.com/hook"})), "SavePushConfig(input)")

	listed := func(want ...string) {
		t.Helper()
		// Every task is in context "c": the listing by it (counted
		// apart by stores that keep counts per context) is the same.
		for _, q := range []store.Query{{Limit: 10}, {ContextID: "c", Limit: 10}} {
			page := mustList(t, ctx, s, "", q)
			if got := ids(page.Records); !equalIDs(got, want) || page.Total != len(want) {
				t.Fatalf("ListTasks(context %q) at %v: %v (total %d), want %v", q.ContextID, clock.Now().Sub(base), got, page.Total, want)
			}
		}
	}
	gone := func(id string) {
		t.Helper()
		_, err := s.Task(ctx, "", id)
		wantErr(t, "Task("+id+") after its TTL", err, store.ErrNotFound)
		_, _, err = s.Subscribe(ctx, "", id, store.FollowEvents)
		wantErr(t, "Subscribe("+id+") after its TTL", err, store.ErrNotFound)
		_, err = s.PushConfig(ctx, "", id, "p")
		wantErr(t, "PushConfig("+id+") after its TTL", err, store.ErrNotFound)
		err = s.SavePushConfig(ctx, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: id, Id: "q", Url: "https://example.com/hook"}))
		wantErr(t, "SavePushConfig("+id+") after its TTL", err, store.ErrNotFound)
	}

	clock.set(base.Add(InterruptedTTL - time.Minute))
	listed("resumed", "auth", "working", "input")
	must(t, errOf(s.PushConfig(ctx, "", "input", "p")), "PushConfig(input) within its TTL")

	// One hour after it asked for input, "input" is gone; "auth" asked
	// later and stays, as do the tasks that are not interrupted.
	clock.set(base.Add(InterruptedTTL + time.Minute))
	gone("input")
	listed("resumed", "auth", "working")
	must(t, errOf(s.Task(ctx, "", "auth")), "Task(auth) within its TTL")
	// A write (which sweeps) changes nothing of that.
	mustCreate(t, s, "", "", newTask("later", "c", working, InterruptedTTL+time.Minute))
	gone("input")

	clock.set(base.Add(30*time.Minute + InterruptedTTL + time.Minute))
	gone("auth")
	_, err := s.UpdateTask(ctx, store.Update{Tenant: "", Task: next(auth, working, 2*time.Hour), Expect: 2})
	wantErr(t, "UpdateTask(auth) after its TTL", err, store.ErrNotFound)
	listed("later", "resumed", "working")

	// Running tasks never expire, however old their status.
	clock.set(base.Add(100 * InterruptedTTL))
	listed("later", "resumed", "working")
	must(t, errOf(s.Task(ctx, "", "resumed")), "Task(resumed), running")
}

func equalIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
