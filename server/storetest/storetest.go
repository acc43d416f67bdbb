// Package storetest is the conformance suite for implementations of
// store.Store. A new store (SQL, Redis, a distributed log, …) is ready for the
// default server when
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return newMyStore(t) })
//	}
//
// passes under go test -race. The suite checks the contract documented on
// store.Store: optimistic versioned writes, frozen terminal tasks, tenant
// isolation, listing order, filters and cursor paging (also while tasks are
// being inserted), event delivery in write order to every subscriber,
// subscriptions that start atomically after a snapshot, end at a terminal
// state, on Close and on context cancellation, the slow-subscriber policy,
// and push-config storage.
//
// The suite assumes that a subscriber may lag at least 64 events behind
// before the store drops it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Run runs every conformance test against stores made by newStore, which
// must return a new, empty store each time it is called (once per subtest).
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"CreateDuplicate", testCreateDuplicate},
		{"CreateInvalid", testCreateInvalid},
		{"GetUnknown", testGetUnknown},
		{"TenantIsolation", testTenantIsolation},
		{"UpdateVersions", testUpdateVersions},
		{"UpdateTerminalIsFrozen", testUpdateTerminal},
		{"UpdateInvalidTransition", testUpdateInvalid},
		{"UpdateKeepsOwner", testUpdateKeepsOwner},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"SnapshotsNotModified", testSnapshotsNotModified},
		{"ListOrderAndFilters", testListOrderAndFilters},
		{"ListPaging", testListPaging},
		{"ListPagingUnderInserts", testListPagingUnderInserts},
		{"ListInvalidLimit", testListInvalidLimit},
		{"SubscribeSnapshotThenEvents", testSubscribeSnapshotThenEvents},
		{"SubscribeIdenticalSequences", testSubscribeIdenticalSequences},
		{"SubscribeEndsAtTerminal", testSubscribeEndsAtTerminal},
		{"SubscribeTerminalTask", testSubscribeTerminalTask},
		{"SubscribeUnknown", testSubscribeUnknown},
		{"SubscribeClose", testSubscribeClose},
		{"SubscribeContext", testSubscribeContext},
		{"NoEventsFromFailedWrites", testNoEventsFromFailedWrites},
		{"SlowSubscriberDropped", testSlowSubscriber},
		{"PushConfigs", testPushConfigs},
		{"PushConfigPaging", testPushConfigPaging},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// base is the time every test task's timestamp is relative to.
var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newTask(id, contextID string, state a2av1.TaskState, at time.Duration) *a2av1.Task {
	return &a2av1.Task{Id: id, ContextId: contextID,
		Status: &a2av1.TaskStatus{State: state, Timestamp: timestamppb.New(base.Add(at))}}
}

// next returns a new snapshot of t in state with one more history message.
func next(t *a2av1.Task, state a2av1.TaskState, at time.Duration) *a2av1.Task {
	n := newTask(t.GetId(), t.GetContextId(), state, at)
	n.History = append(append([]*a2av1.Message(nil), t.GetHistory()...),
		&a2av1.Message{MessageId: fmt.Sprintf("m%d", len(t.GetHistory())), Role: a2av1.Role_ROLE_USER})
	n.Artifacts = t.GetArtifacts()
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

func mustCreate(t *testing.T, s store.Store, tenant, owner string, task *a2av1.Task) store.Record {
	t.Helper()
	rec, err := s.CreateTask(context.Background(), store.Record{Tenant: tenant, Owner: owner, Task: task})
	if err != nil {
		t.Fatalf("CreateTask(%s/%s): %v", tenant, task.GetId(), err)
	}
	return rec
}

func mustUpdate(t *testing.T, s store.Store, tenant string, task *a2av1.Task, expect int64, events ...*a2av1.StreamResponse) int64 {
	t.Helper()
	v, err := s.UpdateTask(context.Background(), store.Update{Tenant: tenant, Task: task, Expect: expect, Events: events})
	if err != nil {
		t.Fatalf("UpdateTask(%s/%s, expect %d): %v", tenant, task.GetId(), expect, err)
	}
	return v
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func testCreateAndGet(t *testing.T, s store.Store) {
	task := newTask("t1", "c1", submitted, 0)
	rec := mustCreate(t, s, "", "alice", task)
	if rec.Version != 1 || rec.Task != task || rec.Owner != "alice" {
		t.Fatalf("CreateTask returned %+v, want version 1, the same task, owner alice", rec)
	}
	got, err := s.Task(context.Background(), "", "t1")
	if err != nil {
		t.Fatalf("Task: %v", err)
	}
	if got.Version != 1 || got.Owner != "alice" || !proto.Equal(got.Task, task) {
		t.Fatalf("Task returned %+v, want the created record", got)
	}
}

func testCreateDuplicate(t *testing.T, s store.Store) {
	mustCreate(t, s, "", "", newTask("t1", "c1", submitted, 0))
	_, err := s.CreateTask(context.Background(), store.Record{Task: newTask("t1", "c2", submitted, 0)})
	wantErr(t, "second CreateTask with the same id", err, store.ErrExists)
}

func testCreateInvalid(t *testing.T, s store.Store) {
	for name, task := range map[string]*a2av1.Task{
		"nil":         nil,
		"no id":       newTask("", "c", submitted, 0),
		"no status":   {Id: "x"},
		"unspecified": newTask("x", "c", a2av1.TaskState_TASK_STATE_UNSPECIFIED, 0),
	} {
		_, err := s.CreateTask(context.Background(), store.Record{Task: task})
		wantErr(t, "CreateTask with "+name, err, store.ErrInvalidTransition)
	}
}

func testGetUnknown(t *testing.T, s store.Store) {
	_, err := s.Task(context.Background(), "", "nope")
	wantErr(t, "Task(unknown)", err, store.ErrNotFound)
	_, err = s.UpdateTask(context.Background(), store.Update{Task: newTask("nope", "c", working, 0), Expect: 1})
	wantErr(t, "UpdateTask(unknown)", err, store.ErrNotFound)
}

func testTenantIsolation(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := mustCreate(t, s, "A", "", newTask("t1", "ca", submitted, 0))
	mustCreate(t, s, "B", "", newTask("t1", "cb", submitted, time.Second))
	mustUpdate(t, s, "A", next(a.Task, working, 2*time.Second), a.Version)
	gotB, err := s.Task(ctx, "B", "t1")
	if err != nil || gotB.Task.GetContextId() != "cb" || gotB.Version != 1 {
		t.Fatalf("tenant B's t1 = %+v, %v; want its own untouched task", gotB, err)
	}
	_, err = s.Task(ctx, "C", "t1")
	wantErr(t, "Task in a third tenant", err, store.ErrNotFound)
	page, err := s.ListTasks(ctx, "B", store.Query{Limit: 10})
	if err != nil || page.Total != 1 || len(page.Records) != 1 || page.Records[0].Task.GetContextId() != "cb" {
		t.Fatalf("ListTasks(B) = %+v, %v; want only B's task", page, err)
	}
	if err := s.SavePushConfig(ctx, "A", &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://a.example"}); err != nil {
		t.Fatalf("SavePushConfig(A): %v", err)
	}
	_, err = s.PushConfig(ctx, "B", "t1", "p")
	wantErr(t, "PushConfig of tenant A read as tenant B", err, store.ErrNotFound)
	cfgs, _, err := s.ListPushConfigs(ctx, "B", "t1", "", 0)
	if err != nil || len(cfgs) != 0 {
		t.Fatalf("ListPushConfigs(B) = %v, %v; want none", cfgs, err)
	}
	err = s.SavePushConfig(ctx, "C", &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://a.example"})
	wantErr(t, "SavePushConfig for a task of another tenant", err, store.ErrNotFound)
}

func testUpdateVersions(t *testing.T, s store.Store) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", submitted, 0))
	t2 := next(rec.Task, working, time.Second)
	v2 := mustUpdate(t, s, "", t2, 1)
	if v2 <= 1 {
		t.Fatalf("version after the first update = %d, want > 1", v2)
	}
	_, err := s.UpdateTask(ctx, store.Update{Task: next(rec.Task, working, 2*time.Second), Expect: 1})
	wantErr(t, "UpdateTask from a stale version", err, store.ErrConflict)
	got, _ := s.Task(ctx, "", "t1")
	if got.Version != v2 || got.Task != t2 && !proto.Equal(got.Task, t2) {
		t.Fatalf("after a conflicting write the record is %+v, want version %d with the winning snapshot", got, v2)
	}
	v3 := mustUpdate(t, s, "", next(t2, working, 3*time.Second), v2)
	if v3 <= v2 {
		t.Fatalf("version went from %d to %d, want an increase", v2, v3)
	}
}

func testUpdateTerminal(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	done := next(rec.Task, completed, time.Second)
	v := mustUpdate(t, s, "", done, rec.Version)
	for _, state := range []a2av1.TaskState{working, completed, canceled} {
		_, err := s.UpdateTask(context.Background(), store.Update{Task: next(done, state, 2*time.Second), Expect: v})
		wantErr(t, "UpdateTask of a COMPLETED task to "+state.String(), err, store.ErrTerminal)
	}
}

func testUpdateInvalid(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, err := s.UpdateTask(context.Background(), store.Update{Task: newTask("t1", "c", a2av1.TaskState_TASK_STATE_UNSPECIFIED, 0), Expect: rec.Version})
	wantErr(t, "UpdateTask to UNSPECIFIED", err, store.ErrInvalidTransition)
	_, err = s.UpdateTask(context.Background(), store.Update{Task: &a2av1.Task{Id: "t1"}, Expect: rec.Version})
	wantErr(t, "UpdateTask without status", err, store.ErrInvalidTransition)
}

func testUpdateKeepsOwner(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "T", "alice", newTask("t1", "c", submitted, 0))
	mustUpdate(t, s, "T", next(rec.Task, working, time.Second), rec.Version)
	got, err := s.Task(context.Background(), "T", "t1")
	if err != nil || got.Owner != "alice" || got.Tenant != "T" {
		t.Fatalf("after an update the record is %+v, %v; want owner alice, tenant T kept", got, err)
	}
}

// testConcurrentUpdates has writers race with read-modify-write loops; with
// optimistic writes no increment may be lost.
func testConcurrentUpdates(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; {
				rec, err := s.Task(ctx, "", "t1")
				if err != nil {
					errs <- err
					return
				}
				_, err = s.UpdateTask(ctx, store.Update{Task: next(rec.Task, working, time.Second), Expect: rec.Version})
				switch {
				case err == nil:
					i++
				case !errors.Is(err, store.ErrConflict):
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent writer: %v", err)
	}
	rec, _ := s.Task(ctx, "", "t1")
	if got := len(rec.Task.GetHistory()); got != writers*each {
		t.Fatalf("history has %d messages after %d successful writes: writes were lost", got, writers*each)
	}
}

func testSnapshotsNotModified(t *testing.T, s store.Store) {
	task := newTask("t1", "c", submitted, 0)
	task.History = []*a2av1.Message{{MessageId: "m", Role: a2av1.Role_ROLE_USER}}
	before := proto.Clone(task)
	rec := mustCreate(t, s, "", "", task)
	upd := next(task, completed, time.Second)
	updBefore := proto.Clone(upd)
	mustUpdate(t, s, "", upd, rec.Version, statusEvent(upd))
	if !proto.Equal(task, before) || !proto.Equal(upd, updBefore) {
		t.Fatal("the store modified a snapshot it was given")
	}
}

func ids(recs []store.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Task.GetId()
	}
	return out
}

func testListOrderAndFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("a", "c1", completed, 1*time.Second))
	mustCreate(t, s, "", "", newTask("b", "c1", working, 3*time.Second))
	mustCreate(t, s, "", "", newTask("c", "c2", working, 2*time.Second))
	mustCreate(t, s, "", "", newTask("d", "c2", completed, 3*time.Second)) // same time as b: id breaks the tie
	mustCreate(t, s, "", "bob", newTask("e", "c1", working, 4*time.Second))
	mustCreate(t, s, "other", "", newTask("f", "c1", working, 5*time.Second))

	tests := []struct {
		name  string
		q     store.Query
		want  []string
		total int
		more  bool
	}{
		{"all of the unowned", store.Query{Limit: 10}, []string{"d", "b", "c", "a"}, 4, false},
		{"owner", store.Query{Owner: "bob", Limit: 10}, []string{"e"}, 1, false},
		{"context", store.Query{ContextID: "c1", Limit: 10}, []string{"b", "a"}, 2, false},
		{"state", store.Query{State: working, Limit: 10}, []string{"b", "c"}, 2, false},
		{"updated after (inclusive)", store.Query{UpdatedAfter: base.Add(2 * time.Second), Limit: 10}, []string{"d", "b", "c"}, 3, false},
		{"combined", store.Query{ContextID: "c2", State: completed, Limit: 10}, []string{"d"}, 1, false},
		{"limit", store.Query{Limit: 2}, []string{"d", "b"}, 4, true},
		{"after cursor", store.Query{Limit: 1, After: &store.Cursor{Time: base.Add(3 * time.Second), ID: "b"}}, []string{"c"}, 4, true},
		{"after cursor to the end", store.Query{Limit: 10, After: &store.Cursor{Time: base.Add(3 * time.Second), ID: "b"}}, []string{"c", "a"}, 4, false},
		{"nothing", store.Query{ContextID: "zzz", Limit: 10}, []string{}, 0, false},
	}
	for _, tc := range tests {
		page, err := s.ListTasks(ctx, "", tc.q)
		if err != nil {
			t.Fatalf("%s: ListTasks: %v", tc.name, err)
		}
		if got := ids(page.Records); !slices.Equal(got, tc.want) || page.Total != tc.total {
			t.Errorf("%s: got %v (total %d), want %v (total %d)", tc.name, got, page.Total, tc.want, tc.total)
		}
		if page.More != tc.more {
			t.Errorf("%s: More = %v, want %v", tc.name, page.More, tc.more)
		}
	}
}

// walk pages through every task of the tenant with the given page size,
// calling between after each page.
func walk(t *testing.T, s store.Store, limit int, between func(page int)) []string {
	t.Helper()
	var all []string
	var after *store.Cursor
	for page := 0; ; page++ {
		p, err := s.ListTasks(context.Background(), "", store.Query{Limit: limit, After: after})
		if err != nil {
			t.Fatalf("ListTasks page %d: %v", page, err)
		}
		all = append(all, ids(p.Records)...)
		if !p.More {
			return all
		}
		if len(p.Records) == 0 {
			t.Fatalf("page %d is empty but More is set", page)
		}
		c := store.CursorOf(p.Records[len(p.Records)-1].Task)
		after = &c
		if between != nil {
			between(page)
		}
	}
}

func testListPaging(t *testing.T, s store.Store) {
	var want []string
	for i := 24; i >= 0; i-- {
		want = append(want, fmt.Sprintf("t%02d", i))
	}
	for i := range 25 {
		// Pairs share a timestamp so that the id tie-break is paged too.
		mustCreate(t, s, "", "", newTask(fmt.Sprintf("t%02d", i), "c", working, time.Duration(i/2)*time.Second))
	}
	if got := walk(t, s, 10, nil); !slices.Equal(got, want) {
		t.Fatalf("pages of 10 gave %v, want %v", got, want)
	}
	if got := walk(t, s, 1, nil); !slices.Equal(got, want) {
		t.Fatalf("pages of 1 gave %v, want %v", got, want)
	}
}

func testListPagingUnderInserts(t *testing.T, s store.Store) {
	var want []string
	for i := 19; i >= 0; i-- {
		want = append(want, fmt.Sprintf("old%02d", i))
	}
	for i := range 20 {
		mustCreate(t, s, "", "", newTask(fmt.Sprintf("old%02d", i), "c", working, time.Duration(i)*time.Second))
	}
	n := 0
	got := walk(t, s, 6, func(int) {
		// New tasks are newer than every existing one, as they are in a
		// running server.
		for range 5 {
			n++
			mustCreate(t, s, "", "", newTask(fmt.Sprintf("new%02d", n), "c", working, time.Hour+time.Duration(n)*time.Second))
		}
	})
	if !slices.Equal(got, want) {
		t.Fatalf("walking pages while inserting gave %v, want every old task exactly once: %v", got, want)
	}
}

func testListInvalidLimit(t *testing.T, s store.Store) {
	if _, err := s.ListTasks(context.Background(), "", store.Query{Limit: 0}); err == nil {
		t.Fatal("ListTasks with Limit 0 succeeded, want an error")
	}
}

// collect reads a subscription until it ends.
func collect(t *testing.T, sub store.Subscription) []store.Event {
	t.Helper()
	var out []store.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatal("subscription did not end within 10s")
		}
	}
}

func testSubscribeSnapshotThenEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", submitted, 0))
	t2 := next(rec.Task, working, time.Second)
	v2 := mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2)) // before the subscription: not delivered
	snap, sub, err := s.Subscribe(ctx, "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()
	if snap.Version != v2 || !proto.Equal(snap.Task, t2) {
		t.Fatalf("Subscribe snapshot = %+v, want version %d", snap, v2)
	}
	t3 := next(t2, working, 2*time.Second)
	v3 := mustUpdate(t, s, "", t3, v2, statusEvent(t3), statusEvent(t3))
	t4 := next(t3, completed, 3*time.Second)
	v4 := mustUpdate(t, s, "", t4, v3, statusEvent(t4))
	evs := collect(t, sub)
	if len(evs) != 3 || evs[0].Version != v3 || evs[1].Version != v3 || evs[2].Version != v4 {
		t.Fatalf("got events %+v, want two at version %d then one at %d", evs, v3, v4)
	}
	if evs[2].Response.GetStatusUpdate().GetStatus().GetState() != completed {
		t.Fatalf("last event %v, want the COMPLETED update", evs[2].Response)
	}
	if err := sub.Err(); err != nil {
		t.Fatalf("Err after a terminal state = %v, want nil", err)
	}
}

func testSubscribeIdenticalSequences(t *testing.T, s store.Store) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	const subs, writes = 8, 40
	results := make([][]store.Event, subs)
	var wg sync.WaitGroup
	for i := range subs {
		_, sub, err := s.Subscribe(ctx, "", "t1")
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			for ev := range sub.Events() {
				results[i] = append(results[i], ev)
			}
		}()
	}
	cur, v := rec.Task, rec.Version
	for i := range writes {
		state := working
		if i == writes-1 {
			state = completed
		}
		nt := next(cur, state, time.Duration(i)*time.Millisecond)
		v = mustUpdate(t, s, "", nt, v, statusEvent(nt))
		cur = nt
	}
	wg.Wait()
	for i := range subs {
		if len(results[i]) != writes {
			t.Fatalf("subscriber %d got %d events, want %d", i, len(results[i]), writes)
		}
		for j := range results[i] {
			a, b := results[i][j], results[0][j]
			if a.Version != b.Version || !proto.Equal(a.Response, b.Response) {
				t.Fatalf("subscriber %d event %d differs from subscriber 0's", i, j)
			}
			if j > 0 && results[i][j].Version <= results[i][j-1].Version {
				t.Fatalf("subscriber %d: versions not increasing at event %d", i, j)
			}
		}
	}
}

func testSubscribeEndsAtTerminal(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub, err := s.Subscribe(context.Background(), "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	done := next(rec.Task, canceled, time.Second)
	mustUpdate(t, s, "", done, rec.Version, statusEvent(done))
	if evs := collect(t, sub); len(evs) != 1 {
		t.Fatalf("got %d events, want the CANCELED update only", len(evs))
	}
	if sub.Err() != nil {
		t.Fatalf("Err = %v, want nil after a terminal state", sub.Err())
	}
	sub.Close() // idempotent after the end
}

func testSubscribeTerminalTask(t *testing.T, s store.Store) {
	mustCreate(t, s, "", "", newTask("t1", "c", completed, 0))
	rec, sub, err := s.Subscribe(context.Background(), "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	if rec.Task.GetStatus().GetState() != completed {
		t.Fatalf("snapshot state %v, want COMPLETED", rec.Task.GetStatus().GetState())
	}
	if evs := collect(t, sub); len(evs) != 0 || sub.Err() != nil {
		t.Fatalf("subscription of a terminal task gave %d events, Err %v; want an ended feed", len(evs), sub.Err())
	}
}

func testSubscribeUnknown(t *testing.T, s store.Store) {
	mustCreate(t, s, "A", "", newTask("t1", "c", working, 0))
	_, _, err := s.Subscribe(context.Background(), "", "nope")
	wantErr(t, "Subscribe(unknown)", err, store.ErrNotFound)
	_, _, err = s.Subscribe(context.Background(), "B", "t1")
	wantErr(t, "Subscribe to another tenant's task", err, store.ErrNotFound)
}

func testSubscribeClose(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub, err := s.Subscribe(context.Background(), "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	sub.Close()
	sub.Close()
	collect(t, sub) // must be closed
	nt := next(rec.Task, working, time.Second)
	mustUpdate(t, s, "", nt, rec.Version, statusEvent(nt)) // no subscriber left to block or panic
}

func testSubscribeContext(t *testing.T, s store.Store) {
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	ctx, cancel := context.WithCancel(context.Background())
	_, sub, err := s.Subscribe(ctx, "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()
	cancel()
	collect(t, sub)
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Fatalf("Err after the context was canceled = %v, want context.Canceled", sub.Err())
	}
}

func testNoEventsFromFailedWrites(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub, err := s.Subscribe(context.Background(), "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	bad := next(rec.Task, working, time.Second)
	if _, err := s.UpdateTask(context.Background(), store.Update{Task: bad, Expect: rec.Version + 7, Events: []*a2av1.StreamResponse{statusEvent(bad)}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale write: %v, want ErrConflict", err)
	}
	done := next(rec.Task, completed, time.Second)
	mustUpdate(t, s, "", done, rec.Version, statusEvent(done))
	evs := collect(t, sub)
	if len(evs) != 1 || evs[0].Response.GetStatusUpdate().GetStatus().GetState() != completed {
		t.Fatalf("got %d events, want only the COMPLETED one (the failed write publishes nothing)", len(evs))
	}
}

// testSlowSubscriber checks the overflow policy: a subscriber that never
// reads is dropped with ErrSlowSubscriber while the writer keeps going and a
// reading subscriber receives everything.
func testSlowSubscriber(t *testing.T, s store.Store) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, slow, err := s.Subscribe(ctx, "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer slow.Close()
	_, fast, err := s.Subscribe(ctx, "", "t1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	// The writer waits for the reading subscriber after every event (so
	// that only the stalled one can fall behind), never for the stalled one.
	got, ack := make(chan int, 1), make(chan struct{}, 1)
	go func() {
		n := 0
		for range fast.Events() {
			n++
			ack <- struct{}{}
		}
		got <- n
	}()
	waitAck := func() {
		select {
		case <-ack:
		case <-time.After(10 * time.Second):
			t.Fatal("the reading subscriber stopped receiving")
		}
	}
	const maxWrites = 100000
	cur, v, writes := rec.Task, rec.Version, 0
	for writes < maxWrites && slow.Err() == nil {
		nt := newTask("t1", "c", working, time.Duration(writes)*time.Microsecond)
		v = mustUpdate(t, s, "", nt, v, statusEvent(nt))
		cur = nt
		writes++
		waitAck()
	}
	if !errors.Is(slow.Err(), store.ErrSlowSubscriber) {
		t.Fatalf("after %d unread events the slow subscriber's Err is %v, want ErrSlowSubscriber", writes, slow.Err())
	}
	collect(t, slow) // its channel must be closed after the buffered events
	done := next(cur, completed, time.Hour)
	mustUpdate(t, s, "", done, v, statusEvent(done))
	waitAck()
	select {
	case n := <-got:
		if n != writes+1 {
			t.Fatalf("the reading subscriber got %d events, want all %d", n, writes+1)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reading subscriber did not finish")
	}
}

func testPushConfigs(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	err := s.SavePushConfig(ctx, "", &a2av1.TaskPushNotificationConfig{TaskId: "nope", Id: "p", Url: "https://x.example"})
	wantErr(t, "SavePushConfig for an unknown task", err, store.ErrNotFound)
	p1 := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "https://one.example", Token: "tok"}
	if err := s.SavePushConfig(ctx, "", p1); err != nil {
		t.Fatalf("SavePushConfig: %v", err)
	}
	got, err := s.PushConfig(ctx, "", "t1", "p1")
	if err != nil || !proto.Equal(got, p1) {
		t.Fatalf("PushConfig = %v, %v; want %v", got, err, p1)
	}
	p1b := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "https://two.example"}
	if err := s.SavePushConfig(ctx, "", p1b); err != nil {
		t.Fatalf("SavePushConfig (overwrite): %v", err)
	}
	if got, _ := s.PushConfig(ctx, "", "t1", "p1"); !proto.Equal(got, p1b) {
		t.Fatalf("after overwriting, PushConfig = %v, want %v", got, p1b)
	}
	_, err = s.PushConfig(ctx, "", "t1", "p2")
	wantErr(t, "PushConfig(missing)", err, store.ErrNotFound)
	if err := s.DeletePushConfig(ctx, "", "t1", "p1"); err != nil {
		t.Fatalf("DeletePushConfig: %v", err)
	}
	if err := s.DeletePushConfig(ctx, "", "t1", "p1"); err != nil {
		t.Fatalf("DeletePushConfig again (must be idempotent): %v", err)
	}
	_, err = s.PushConfig(ctx, "", "t1", "p1")
	wantErr(t, "PushConfig after delete", err, store.ErrNotFound)
}

func testPushConfigPaging(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	for _, id := range []string{"c", "a", "e", "b", "d"} {
		if err := s.SavePushConfig(ctx, "", &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: id, Url: "https://x.example/" + id}); err != nil {
			t.Fatalf("SavePushConfig: %v", err)
		}
	}
	var got []string
	after := ""
	for range 10 {
		cfgs, more, err := s.ListPushConfigs(ctx, "", "t1", after, 2)
		if err != nil {
			t.Fatalf("ListPushConfigs: %v", err)
		}
		for _, c := range cfgs {
			got = append(got, c.GetId())
		}
		if !more {
			break
		}
		after = cfgs[len(cfgs)-1].GetId()
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("paging by 2 gave %v, want a b c d e", got)
	}
	all, more, err := s.ListPushConfigs(ctx, "", "t1", "", 0)
	if err != nil || len(all) != 5 || more {
		t.Fatalf("ListPushConfigs(limit 0) = %d configs, more %v, %v; want all 5", len(all), more, err)
	}
}
