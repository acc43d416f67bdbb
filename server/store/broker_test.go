package store_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TestOutcomeSubscriptionLagsLess: an outcome subscription (what a blocking
// SendMessage waits on) is dropped as slow after OutcomeSubscriberBuffer
// unread events, while a stream's subscription on the same task keeps up to
// the store's buffer.
func TestOutcomeSubscriptionLagsLess(t *testing.T) {
	ctx := context.Background()
	m := store.NewMemory()
	defer m.Close()
	working := &a2av1.Task{Id: "t1", ContextId: "c1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}
	if _, _, err := m.CreateTask(ctx, store.Creation{Record: store.Record{Task: working}}); err != nil {
		t.Fatal(err)
	}
	_, outcome, err := m.Subscribe(ctx, "", "t1", store.FollowOutcome)
	if err != nil {
		t.Fatal(err)
	}
	defer outcome.Close()
	_, stream, err := m.Subscribe(ctx, "", "t1", store.FollowEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	rec, err := m.Task(ctx, "", "t1")
	if err != nil {
		t.Fatal(err)
	}
	v := rec.Version
	for i := range store.OutcomeSubscriberBuffer + 1 {
		ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1", ContextId: "c1", Status: working.Status}}}
		if v, err = m.UpdateTask(ctx, store.Update{Task: working, Expect: v, Events: []*a2av1.StreamResponse{ev}}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	n := 0
	for range outcome.Events() {
		n++
	}
	if !errors.Is(outcome.Err(), store.ErrSlowSubscriber) || n != store.OutcomeSubscriberBuffer {
		t.Errorf("outcome subscription: %d events then %v; want %d, then ErrSlowSubscriber", n, outcome.Err(), store.OutcomeSubscriberBuffer)
	}
	if got := len(stream.Events()); got != store.OutcomeSubscriberBuffer+1 {
		t.Errorf("stream subscription holds %d events, want all %d (the store's buffer is larger)", got, store.OutcomeSubscriberBuffer+1)
	}
}
