// Package storetest is the conformance suite for implementations of
// store.Store and of its parts. A new store (SQL, a distributed log, …) is
// ready for the default server when
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return newMyStore(t) })
//	}
//
// passes under go test -race. Run is the part suites, which can also be
// run on their own for a store built from parts:
//
//   - RunTasks: optimistic versioned writes, frozen terminal tasks, tenant
//     isolation, listing order, filters and cursor paging (also while tasks
//     are being inserted), execution records (runner, lease, renewal, stale
//     runs);
//   - RunSubscriptions: event delivery in write order to every subscriber,
//     subscriptions that start atomically after a snapshot (also under
//     concurrent writes), end at a terminal state, on Close, on context
//     cancellation and when the store closes, the slow-subscriber policy,
//     subscriptions made by the creating call and outcome followers;
//   - RunPushConfigs: push-config storage and paging;
//   - RunOutbox: deliveries queued atomically with task writes, per-config
//     order, leases, retries, config replacement and deletion, concurrent
//     claims;
//   - RunKeys: the strings every store holds as keys, and those every store
//     refuses (docs/limits.md);
//   - RunProcesses: signals between processes for a store that says it is
//     shared, none for one that is not, and Ping;
//   - RunSendKeys: claims of idempotency keys of message sends, one per
//     tenant, owner and key, atomic under concurrent claims, for a window.
//
// RunWrapped runs Run through store.Wrap, so that a store's capabilities are
// shown to survive a forwarding wrapper.
//
// The suite assumes that a subscriber may lag at least 64 events behind
// before the store drops it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Run runs every conformance test against stores made by newStore, which
// must return a new, empty store each time it is called (once per subtest).
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("Tasks", func(t *testing.T) { RunTasks(t, func(t *testing.T) store.Tasks { return newStore(t) }) })
	t.Run("Subscriptions", func(t *testing.T) {
		RunSubscriptions(t, func(t *testing.T) SubscriptionStore { return newStore(t) })
	})
	t.Run("PushConfigs", func(t *testing.T) {
		RunPushConfigs(t, func(t *testing.T) PushConfigStore { return newStore(t) })
	})
	t.Run("Outbox", func(t *testing.T) { RunOutbox(t, func(t *testing.T) OutboxStore { return newStore(t) }) })
	t.Run("Close", func(t *testing.T) { testSubscriptionsEndOnStoreClose(t, newStore(t)) })
	t.Run("Keys", func(t *testing.T) { RunKeys(t, newStore) })
	t.Run("Processes", func(t *testing.T) { RunProcesses(t, newStore) })
	t.Run("SendKeys", func(t *testing.T) { RunSendKeys(t, func(t *testing.T) store.SendKeys { return newStore(t) }) })
}

// SubscriptionStore is what RunSubscriptions needs: tasks to write and their
// feed.
type SubscriptionStore interface {
	store.Tasks
	store.Subscriptions
}

// PushConfigStore is what RunPushConfigs needs.
type PushConfigStore interface {
	store.Tasks
	store.PushConfigs
}

// OutboxStore is what RunOutbox needs: the outbox is filled by task writes
// for the configs of the task.
type OutboxStore interface {
	store.Tasks
	store.PushConfigs
	store.Outbox
}

type suite[S any] []struct {
	name string
	fn   func(*testing.T, S)
}

func (s suite[S]) run(t *testing.T, newStore func(t *testing.T) S) {
	for _, tc := range s {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// base is the time every test task's timestamp is relative to.
var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newTask is a task snapshot as a server writes them: with a generation
// (the SQL stores give a snapshot without one the record's when they read
// it, so tests that compare snapshots read with those written set one).
func newTask(id, contextID string, state a2av1.TaskState, at time.Duration) *a2av1.Task {
	return &a2av1.Task{Id: id, ContextId: contextID, Generation: 1,
		Status: &a2av1.TaskStatus{State: state, Timestamp: timestamppb.New(base.Add(at))}}
}

// next returns a new snapshot of t in state with one more history message.
func next(t *a2av1.Task, state a2av1.TaskState, at time.Duration) *a2av1.Task {
	n := newTask(t.GetId(), t.GetContextId(), state, at)
	n.History = append(append([]*a2av1.Message(nil), t.GetHistory()...),
		&a2av1.Message{MessageId: fmt.Sprintf("m%d", len(t.GetHistory())), Role: a2av1.Role_ROLE_USER})
	n.Artifacts, n.Generation = t.GetArtifacts(), t.GetGeneration()
	return n
}

func statusEvent(t *a2av1.Task) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: t.GetId(), ContextId: t.GetContextId(), Status: t.GetStatus()}}}
}

const (
	submitted = a2av1.TaskState_TASK_STATE_SUBMITTED
	working   = a2av1.TaskState_TASK_STATE_WORKING
	completed = a2av1.TaskState_TASK_STATE_COMPLETED
	inputReq  = a2av1.TaskState_TASK_STATE_INPUT_REQUIRED
	canceled  = a2av1.TaskState_TASK_STATE_CANCELED
)

func mustCreate(t *testing.T, s store.Tasks, tenant, owner string, task *a2av1.Task) store.Record {
	t.Helper()
	rec, _ := mustCreateWith(t, context.Background(), s, store.Creation{Record: store.Record{Tenant: tenant, Owner: owner, Task: task}})
	return rec
}

func mustUpdate(t *testing.T, s store.Tasks, tenant string, task *a2av1.Task, expect int64, events ...*a2av1.StreamResponse) int64 {
	t.Helper()
	return mustUpdateWith(t, context.Background(), s, store.Update{Tenant: tenant, Task: task, Expect: expect, Events: events})
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}
