package store_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TestMemoryEventLogKeepsTheLatest: the memory store's log keeps a task's
// last MemoryEventLogLen events, whatever the size of the writes, so that
// a resumption from before them finds a gap (and the server sends the
// snapshot) while one from within them is replayed whole.
func TestMemoryEventLogKeepsTheLatest(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory()
	task := &a2av1.Task{Id: "t", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.Now()}}
	rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: task}})
	if err != nil {
		t.Fatal(err)
	}
	ev := func() *a2av1.StreamResponse {
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t", Status: task.GetStatus()}}}
	}
	v, written := rec.Version, 0
	for _, n := range []int{1, 7, 300, 1, 1024, 1500, 3} { // single events, batches, one over the whole log
		evs := make([]*a2av1.StreamResponse, n)
		for i := range evs {
			evs[i] = ev()
		}
		if v, err = s.UpdateTask(ctx, store.Update{Task: task, Expect: v, Events: evs}); err != nil {
			t.Fatal(err)
		}
		written += n
	}
	cur := int64(1 + written)
	all, err := s.TaskEvents(ctx, "", "t", 0, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != store.MemoryEventLogLen || !store.Contiguous(all, cur-store.MemoryEventLogLen) {
		t.Fatalf("%d events logged, first at %d; want the last %d, %d..%d", len(all), all[0].Generation,
			store.MemoryEventLogLen, cur-store.MemoryEventLogLen+1, cur)
	}
	if got, err := s.TaskEvents(ctx, "", "t", cur-10, cur); err != nil || len(got) != 10 || !store.Contiguous(got, cur-10) {
		t.Fatalf("the last 10: %d events, %v", len(got), err)
	}
}
