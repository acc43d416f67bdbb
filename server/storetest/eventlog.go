package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// The event log (store.TaskEvents): every event of UpdateTask, under the
// generation the task reached with it, read back between two generations.

// logGenerations are the generations of evs.
func logGenerations(evs []store.LoggedEvent) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Generation
	}
	return out
}

func testEventLog(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "T", "", newTask("t1", "c", submitted, 0))
	t2 := next(rec.Task, working, time.Second)
	e2 := statusEvent(t2)
	v := mustUpdate(t, s, "T", t2, rec.Version, e2)
	t3 := next(t2, working, 2*time.Second)
	e3, e4 := artifactEvent(t3, "a1"), artifactEvent(t3, "a2")
	v = mustUpdate(t, s, "T", t3, v, e3, e4)
	t4 := next(t3, working, 3*time.Second)
	v = mustUpdate(t, s, "T", t4, v) // no event: no entry
	done := next(t4, completed, 4*time.Second)
	e5 := statusEvent(done)
	mustUpdate(t, s, "T", done, v, e5)

	all, err := s.TaskEvents(ctx, "T", "t1", 1, 5)
	must(t, err, "TaskEvents(1, 5)")
	if !store.Contiguous(all, 1) || len(all) != 4 {
		t.Fatalf("TaskEvents(1, 5) = generations %v, want [2 3 4 5]", logGenerations(all))
	}
	for i, want := range []*a2av1.StreamResponse{e2, e3, e4, e5} {
		if !proto.Equal(all[i].Response, want) {
			t.Fatalf("event at generation %d = %v, want %v", all[i].Generation, all[i].Response, want)
		}
	}
	if all[1].Version != all[2].Version || all[0].Version >= all[1].Version {
		t.Fatalf("versions %d %d %d: events of one write share it, later writes have greater ones", all[0].Version, all[1].Version, all[2].Version)
	}
	part, err := s.TaskEvents(ctx, "T", "t1", 2, 4)
	if err != nil || len(part) != 2 || !store.Contiguous(part, 2) {
		t.Fatalf("TaskEvents(2, 4) = generations %v, %v; want [3 4]", logGenerations(part), err)
	}
	none, err := s.TaskEvents(ctx, "T", "t1", 5, 9)
	if err != nil || len(none) != 0 {
		t.Fatalf("TaskEvents(5, 9) = %d events, %v; want none", len(none), err)
	}
	if _, err := s.TaskEvents(ctx, "T", "nope", 0, 9); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("TaskEvents of an unknown task: %v, want ErrNotFound", err)
	}
	if _, err := s.TaskEvents(ctx, "other", "t1", 0, 9); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("TaskEvents in another tenant: %v, want ErrNotFound", err)
	}
}

// testEventLogAfterCreation: a task created at generation 3 (its first
// changes folded in) logs from 4 on; what it folded in is not in the log.
func testEventLogAfterCreation(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	task := newTask("t1", "c", working, 0)
	rec, _ := mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Task: task, Generation: 3}})
	t2 := next(task, working, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	evs, err := s.TaskEvents(ctx, "", "t1", 0, 4)
	if err != nil || len(evs) != 1 || evs[0].Generation != 4 {
		t.Fatalf("TaskEvents(0, 4) = generations %v, %v; want [4]", logGenerations(evs), err)
	}
	if store.Contiguous(evs, 0) {
		t.Fatal("a log starting at 4 reported contiguous after 0")
	}
}
