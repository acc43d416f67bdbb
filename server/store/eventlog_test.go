package store_test

import (
	"context"
	"fmt"
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

// TestMemoryEndedTaskLogs: a task that ended keeps its event log while it
// is among the last MemoryEndedTaskLogs tasks to end, so that a stream cut
// just before the end is resumed with the events it missed; an older one's
// is dropped (a resumption then starts from the snapshot), and a task still
// running keeps its log however many others end.
func TestMemoryEndedTaskLogs(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory()
	status := func(st a2av1.TaskState) *a2av1.TaskStatus {
		return &a2av1.TaskStatus{State: st, Timestamp: timestamppb.Now()}
	}
	event := func(id string, st *a2av1.TaskStatus) []*a2av1.StreamResponse {
		return []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: id, Status: st}}}}
	}
	// start creates task id and writes one WORKING event; end ends it.
	start := func(id string) int64 {
		t.Helper()
		rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: &a2av1.Task{Id: id, Status: status(a2av1.TaskState_TASK_STATE_SUBMITTED)}}})
		if err != nil {
			t.Fatal(err)
		}
		st := status(a2av1.TaskState_TASK_STATE_WORKING)
		v, err := s.UpdateTask(ctx, store.Update{Task: &a2av1.Task{Id: id, Status: st}, Expect: rec.Version, Events: event(id, st)})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	end := func(id string, v int64) {
		t.Helper()
		st := status(a2av1.TaskState_TASK_STATE_COMPLETED)
		if _, err := s.UpdateTask(ctx, store.Update{Task: &a2av1.Task{Id: id, Status: st}, Expect: v, Events: event(id, st)}); err != nil {
			t.Fatal(err)
		}
	}
	logged := func(id string) int {
		t.Helper()
		evs, err := s.TaskEvents(ctx, "", id, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}
	running := start("running")
	for i := range store.MemoryEndedTaskLogs + 1 {
		id := fmt.Sprint("ended-", i)
		end(id, start(id))
	}
	if n := logged("ended-0"); n != 0 {
		t.Errorf("the first of %d tasks to end still has %d logged events; want its log dropped", store.MemoryEndedTaskLogs+1, n)
	}
	if n := logged("ended-1"); n != 2 {
		t.Errorf("the %d-th last task to end has %d logged events; want its 2", store.MemoryEndedTaskLogs, n)
	}
	if n := logged("running"); n != 1 {
		t.Errorf("a running task has %d logged events; want its 1", n)
	}
	end("running", running)
	if n := logged("running"); n != 2 {
		t.Errorf("the last task to end has %d logged events; want its 2", n)
	}
	if n := logged("ended-1"); n != 0 {
		t.Errorf("ended-1, pushed out by the last task to end, has %d logged events; want its log dropped", n)
	}
}
