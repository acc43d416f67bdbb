package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}

// TestMemoryWrappedConformance: through store.Wrap the memory store keeps
// its whole contract.
func TestMemoryWrappedConformance(t *testing.T) {
	storetest.RunWrapped(t, func(*testing.T) store.Store { return store.NewMemory() })
}

// TestMemoryWithRetentionConformance: bounds that the suite never reaches
// change nothing of the Store contract.
func TestMemoryWithRetentionConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store {
		return store.NewMemory(store.WithRetention(store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 10_000}))
	})
}

// TestMemorySubscriberBuffer checks that WithSubscriberBuffer(n) lets a
// subscriber hold exactly n unread events.
func TestMemorySubscriberBuffer(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory(store.WithSubscriberBuffer(2))
	task := func() *a2av1.Task {
		return &a2av1.Task{Id: "t", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.Now()}}
	}
	rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: task()}})
	if err != nil {
		t.Fatal(err)
	}
	_, sub, err := s.Subscribe(ctx, "", "t", store.FollowEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	v := rec.Version
	ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t"}}}
	for i := range 3 {
		if v, err = s.UpdateTask(ctx, store.Update{Task: task(), Expect: v, Events: []*a2av1.StreamResponse{ev}}); err != nil {
			t.Fatal(err)
		}
		if dropped := sub.Err() != nil; dropped != (i == 2) {
			t.Fatalf("after %d unread events Err = %v", i+1, sub.Err())
		}
	}
	if !errors.Is(sub.Err(), store.ErrSlowSubscriber) {
		t.Fatalf("Err = %v, want ErrSlowSubscriber", sub.Err())
	}
	n := 0
	for range sub.Events() {
		n++
	}
	if n != 2 {
		t.Fatalf("the dropped subscriber still had %d events buffered, want 2", n)
	}
}

func TestMemoryInterruptedRetentionConformance(t *testing.T) {
	storetest.RunInterruptedRetention(t, func(_ *testing.T, clock *storetest.Clock) store.Store {
		return store.NewMemory(store.WithRetention(store.Retention{InterruptedTaskTTL: storetest.InterruptedTTL}), store.WithClock(clock.Now))
	})
}

// TestMemoryOwnerRetention: the caps on finished and interrupted tasks count
// per owner (storetest.RunOwnerRetention, RunOwnerCaps).
func TestMemoryOwnerRetention(t *testing.T) {
	plain := func(_ *testing.T, caps storetest.OwnerCaps) store.Store {
		return store.NewMemory(store.WithRetention(store.Retention{MaxTerminalTasks: caps.MaxTerminal,
			MaxTerminalTasksPerOwner:    caps.MaxTerminalPerOwner,
			MaxInterruptedTasksPerOwner: caps.MaxInterruptedPerOwner,
			MaxBytesPerOwner:            caps.MaxBytesPerOwner}))
	}
	storetest.RunOwnerRetention(t, plain)
	storetest.RunOwnerCaps(t, plain)
	storetest.RunOwnerBytes(t, plain)
	// With TTLs too, the queue of the TTL and those of the owners agree.
	withTTLs := func(_ *testing.T, caps storetest.OwnerCaps) store.Store {
		return store.NewMemory(store.WithRetention(store.Retention{MaxTerminalTasks: caps.MaxTerminal, TerminalTaskTTL: time.Hour,
			MaxTerminalTasksPerOwner:    caps.MaxTerminalPerOwner,
			InterruptedTaskTTL:          100 * 365 * 24 * time.Hour, // the tasks' status times are in the past
			MaxInterruptedTasksPerOwner: caps.MaxInterruptedPerOwner,
			MaxBytesPerOwner:            caps.MaxBytesPerOwner}))
	}
	storetest.RunOwnerRetention(t, withTTLs)
	storetest.RunOwnerCaps(t, withTTLs)
	storetest.RunOwnerBytes(t, withTTLs)
}
