package storetest

import (
	"context"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Generations (store.Record.Generation, A2A 1.1 §3.2.7): a new task is at
// the creation's generation (1 when it says none), every write adds one per
// event it carries, and nothing else moves it — not an event-less write,
// not a refused one, not a lease renewal. Every read of a record says it.

func artifactEvent(t *a2av1.Task, id string) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
		TaskId: t.GetId(), ContextId: t.GetContextId(), Artifact: &a2av1.Artifact{ArtifactId: id,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: id}}}}}}}
}

// wantGeneration fails t unless the stored record of task id is at
// generation want.
func wantGeneration(t *testing.T, s store.Tasks, tenant, id, what string, want int64) store.Record {
	t.Helper()
	rec := mustTask(t, context.Background(), s, tenant, id)
	if rec.Generation != want {
		t.Fatalf("%s: task %s at generation %d, want %d", what, id, rec.Generation, want)
	}
	return rec
}

func testGenerationCounts(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	rec := mustCreate(t, s, "T", "", newTask("t1", "c", submitted, 0))
	if rec.Generation != 1 {
		t.Fatalf("CreateTask without a generation returned generation %d, want 1", rec.Generation)
	}
	wantGeneration(t, s, "T", "t1", "after CreateTask", 1)

	t2 := next(rec.Task, working, time.Second)
	v := mustUpdate(t, s, "T", t2, rec.Version, statusEvent(t2))
	rec = wantGeneration(t, s, "T", "t1", "after a write with one event", 2)

	t3 := next(t2, working, 2*time.Second)
	v = mustUpdate(t, s, "T", t3, v, artifactEvent(t3, "a1"), artifactEvent(t3, "a2"), statusEvent(t3))
	wantGeneration(t, s, "T", "t1", "after a write with three events", 5)

	t4 := next(t3, working, 3*time.Second)
	v = mustUpdate(t, s, "T", t4, v)
	wantGeneration(t, s, "T", "t1", "after a write without events (a message joining the history)", 5)

	if _, err := s.UpdateTask(ctx, store.Update{Tenant: "T", Task: next(t4, working, 4*time.Second), Expect: rec.Version,
		Events: []*a2av1.StreamResponse{statusEvent(t4)}}); err == nil {
		t.Fatal("UpdateTask from a stale version succeeded")
	}
	wantGeneration(t, s, "T", "t1", "after a refused write", 5)

	t5 := next(t4, working, 5*time.Second)
	v = mustUpdate(t, s, "T", t5, v)
	mustUpdateWith(t, ctx, s, store.Update{Tenant: "T", Task: next(t5, working, 6*time.Second), Expect: v,
		Runner: "r1", LeaseUntil: base.Add(time.Hour)})
	must(t, s.RenewRuns(ctx, "r1", base.Add(2*time.Hour)), "RenewRuns")
	rec = wantGeneration(t, s, "T", "t1", "after an execution record and a renewal", 5)

	done := next(rec.Task, completed, 7*time.Second)
	mustUpdate(t, s, "T", done, rec.Version, statusEvent(done))
	wantGeneration(t, s, "T", "t1", "after the terminal write", 6)

	other := mustCreate(t, s, "T", "", newTask("t2", "c", working, 0))
	mustUpdate(t, s, "T", next(other.Task, canceled, time.Second), other.Version)
	wantGeneration(t, s, "T", "t2", "after a terminal write without events", 1)
}

func testGenerationOfCreation(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	// A task created with its first changes folded in says so.
	task := newTask("t1", "c", working, 0)
	rec, _ := mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Task: task, Generation: 3}})
	if rec.Generation != 3 {
		t.Fatalf("CreateTask at generation 3 returned generation %d", rec.Generation)
	}
	wantGeneration(t, s, "", "t1", "after CreateTask at generation 3", 3)
	t2 := next(task, working, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	wantGeneration(t, s, "", "t1", "after one event", 4)
}

func testGenerationOfListingsAndRuns(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	now := base.Add(time.Hour)
	rec, _ := mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Task: newTask("t1", "c", submitted, 0),
		Runner: "elsewhere/1/a", LeaseUntil: now.Add(-time.Minute)}})
	t2 := next(rec.Task, working, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2), artifactEvent(t2, "a"))
	page, err := s.ListTasks(ctx, "", store.Query{Limit: 10})
	if err != nil || len(page.Records) != 1 || page.Records[0].Generation != 3 {
		t.Fatalf("ListTasks = %+v, %v; want the task at generation 3", page, err)
	}
	stale, err := s.StaleRuns(ctx, store.NewRunnerID(), now, 10)
	if err != nil || len(stale) != 1 || stale[0].Generation != 3 {
		t.Fatalf("StaleRuns = %+v, %v; want the task at generation 3", stale, err)
	}
}

func testSubscribeGeneration(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", submitted, 0))
	t2 := next(rec.Task, working, time.Second)
	v := mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	snap, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
	defer sub.Close()
	if snap.Generation != 2 {
		t.Fatalf("Subscribe's snapshot at generation %d, want 2", snap.Generation)
	}
	// The events received after a snapshot at generation g take the task to
	// g plus their number: a follower counts them (a long-poll does).
	t3 := next(t2, working, 2*time.Second)
	v = mustUpdate(t, s, "", t3, v, artifactEvent(t3, "a"), statusEvent(t3))
	done := next(t3, completed, 3*time.Second)
	mustUpdate(t, s, "", done, v, statusEvent(done))
	evs := collect(t, sub)
	if got := snap.Generation + int64(len(evs)); got != 5 {
		t.Fatalf("snapshot generation %d plus %d events = %d, want the stored 5", snap.Generation, len(evs), got)
	}
	wantGeneration(t, s, "", "t1", "after the subscription ended", 5)
}

func testCreateSubscribedGeneration(t *testing.T, s SubscriptionStore) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	task := newTask("t1", "c", working, 0)
	rec, sub := mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Task: task, Generation: 2},
		Subscriber: &store.Subscriber{Ctx: ctx, Follow: store.FollowEvents}})
	defer sub.Close()
	if rec.Generation != 2 {
		t.Fatalf("CreateTask with a subscriber returned generation %d, want 2", rec.Generation)
	}
	done := next(task, completed, time.Second)
	mustUpdate(t, s, "", done, rec.Version, statusEvent(done))
	if evs := collect(t, sub); rec.Generation+int64(len(evs)) != 3 {
		t.Fatalf("generation %d plus %d events, want 3", rec.Generation, len(evs))
	}
	wantGeneration(t, s, "", "t1", "after the terminal event", 3)
}
