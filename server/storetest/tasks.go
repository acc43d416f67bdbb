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

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// RunTasks runs the conformance tests of store.Tasks.
func RunTasks(t *testing.T, newStore func(t *testing.T) store.Tasks) {
	suite[store.Tasks]{
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
		{"ListTotalsUnderFilters", testListTotalsUnderFilters},
		{"RunnerAndLease", testRunnerAndLease},
		{"RenewRuns", testRenewRuns},
		{"StaleRuns", testStaleRuns},
		{"GenerationCounts", testGenerationCounts},
		{"GenerationOfCreation", testGenerationOfCreation},
		{"GenerationOfListingsAndRuns", testGenerationOfListingsAndRuns},
	}.run(t, newStore)
}

func testCreateAndGet(t *testing.T, s store.Tasks) {
	task := newTask("t1", "c1", submitted, 0)
	rec := mustCreate(t, s, "", "alice", task)
	if rec.Version != 1 || rec.Task != task || rec.Owner != "alice" {
		t.Fatalf("CreateTask returned %+v, want version 1, the same task, owner alice", rec)
	}
	got := mustTask(t, context.Background(), s, "", "t1")
	if got.Version != 1 || got.Owner != "alice" || !proto.Equal(got.Task, task) {
		t.Fatalf("Task returned %+v, want the created record", got)
	}
}

func testCreateDuplicate(t *testing.T, s store.Tasks) {
	mustCreate(t, s, "", "", newTask("t1", "c1", submitted, 0))
	_, _, err := s.CreateTask(context.Background(), store.Creation{Record: store.Record{Task: newTask("t1", "c2", submitted, 0)}})
	wantErr(t, "second CreateTask with the same id", err, store.ErrExists)
}

func testCreateInvalid(t *testing.T, s store.Tasks) {
	for name, task := range map[string]*a2av1.Task{
		"nil":         nil,
		"no id":       newTask("", "c", submitted, 0),
		"no status":   {Id: "x"},
		"unspecified": newTask("x", "c", a2av1.TaskState_TASK_STATE_UNSPECIFIED, 0),
	} {
		_, _, err := s.CreateTask(context.Background(), store.Creation{Record: store.Record{Task: task}})
		wantErr(t, "CreateTask with "+name, err, store.ErrInvalidTransition)
	}
}

func testGetUnknown(t *testing.T, s store.Tasks) {
	_, err := s.Task(context.Background(), "", "nope")
	wantErr(t, "Task(unknown)", err, store.ErrNotFound)
	_, err = s.UpdateTask(context.Background(), store.Update{Task: newTask("nope", "c", working, 0), Expect: 1})
	wantErr(t, "UpdateTask(unknown)", err, store.ErrNotFound)
}

func testTenantIsolation(t *testing.T, s store.Tasks) {
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
}

func testUpdateVersions(t *testing.T, s store.Tasks) {
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

func testUpdateTerminal(t *testing.T, s store.Tasks) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	done := next(rec.Task, completed, time.Second)
	v := mustUpdate(t, s, "", done, rec.Version)
	for _, state := range []a2av1.TaskState{working, completed, canceled} {
		_, err := s.UpdateTask(context.Background(), store.Update{Task: next(done, state, 2*time.Second), Expect: v})
		wantErr(t, "UpdateTask of a COMPLETED task to "+state.String(), err, store.ErrTerminal)
	}
}

func testUpdateInvalid(t *testing.T, s store.Tasks) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, err := s.UpdateTask(context.Background(), store.Update{Task: newTask("t1", "c", a2av1.TaskState_TASK_STATE_UNSPECIFIED, 0), Expect: rec.Version})
	wantErr(t, "UpdateTask to UNSPECIFIED", err, store.ErrInvalidTransition)
	_, err = s.UpdateTask(context.Background(), store.Update{Task: &a2av1.Task{Id: "t1"}, Expect: rec.Version})
	wantErr(t, "UpdateTask without status", err, store.ErrInvalidTransition)
}

func testUpdateKeepsOwner(t *testing.T, s store.Tasks) {
	rec := mustCreate(t, s, "T", "alice", newTask("t1", "c", submitted, 0))
	mustUpdate(t, s, "T", next(rec.Task, working, time.Second), rec.Version)
	got, err := s.Task(context.Background(), "T", "t1")
	if err != nil || got.Owner != "alice" || got.Tenant != "T" {
		t.Fatalf("after an update the record is %+v, %v; want owner alice, tenant T kept", got, err)
	}
}

// testConcurrentUpdates has writers race with read-modify-write loops; with
// optimistic writes no increment may be lost.
func testConcurrentUpdates(t *testing.T, s store.Tasks) {
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

func testSnapshotsNotModified(t *testing.T, s store.Tasks) {
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

func testListOrderAndFilters(t *testing.T, s store.Tasks) {
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
		page := mustList(t, ctx, s, "", tc.q)
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
func walk(t *testing.T, s store.Tasks, limit int, between func(page int)) []string {
	t.Helper()
	var all []string
	var after *store.Cursor
	for page := 0; ; page++ {
		p := mustList(t, context.Background(), s, "", store.Query{Limit: limit, After: after})
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

func testListPaging(t *testing.T, s store.Tasks) {
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

func testListPagingUnderInserts(t *testing.T, s store.Tasks) {
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

func testListInvalidLimit(t *testing.T, s store.Tasks) {
	if _, err := s.ListTasks(context.Background(), "", store.Query{Limit: 0}); err == nil {
		t.Fatal("ListTasks with Limit 0 succeeded, want an error")
	}
}

func testRunnerAndLease(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	lease := base.Add(time.Minute).Truncate(time.Millisecond)
	rec, _ := mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t1", "c", submitted, 0), Runner: "r1", LeaseUntil: lease}})
	if rec.Runner != "r1" || !rec.LeaseUntil.Equal(lease) {
		t.Fatalf("CreateTask returned runner %q lease %v, want r1 %v", rec.Runner, rec.LeaseUntil, lease)
	}
	check := func(what, runner string, until time.Time) {
		t.Helper()
		got := mustTask(t, ctx, s, "T", "t1")
		if got.Runner != runner || !got.LeaseUntil.Equal(until) {
			t.Fatalf("%s: runner %q lease %v, want %q %v", what, got.Runner, got.LeaseUntil, runner, until)
		}
	}
	check("after create", "r1", lease)
	t2 := next(rec.Task, working, time.Second)
	v := mustUpdate(t, s, "T", t2, rec.Version)
	check("after an update without runner", "r1", lease)
	lease2 := lease.Add(time.Minute)
	t3 := next(t2, working, 2*time.Second)
	v = mustUpdateWith(t, ctx, s, store.Update{Tenant: "T", Task: t3, Expect: v, Runner: "r2", LeaseUntil: lease2})
	check("after an update by runner r2", "r2", lease2)
	mustUpdateWith(t, ctx, s, store.Update{Tenant: "T", Task: next(t3, completed, 3*time.Second), Expect: v, Runner: "r2", LeaseUntil: lease2})
	check("after the task ended", "", time.Time{})
}

func testRenewRuns(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	old := base.Add(time.Minute).Truncate(time.Millisecond)
	for _, c := range []struct{ id, runner string }{{"a", "r1"}, {"b", "r1"}, {"c", "r2"}} {
		must(t, errOf2(s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(c.id, "c", working, 0), Runner: c.runner, LeaseUntil: old}})), "CreateTask(%s)", c.id)
	}
	b, _ := s.Task(ctx, "", "b")
	mustUpdate(t, s, "", next(b.Task, completed, time.Second), b.Version)
	renewed := old.Add(time.Hour)
	must(t, s.RenewRuns(ctx, "r1", renewed), "RenewRuns")
	for id, want := range map[string]time.Time{"a": renewed, "b": {}, "c": old} {
		got := mustTask(t, ctx, s, "", id)
		if !got.LeaseUntil.Equal(want) {
			t.Errorf("task %s: lease %v after RenewRuns(r1), want %v", id, got.LeaseUntil, want)
		}
	}
}

func testStaleRuns(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	self := store.NewRunnerID()
	host := store.RunnerHost(self)
	now := base.Add(time.Hour)
	expired, valid := now.Add(-time.Second), now.Add(time.Minute)
	// A runner on this host whose process cannot exist (pid beyond any
	// kernel's maximum) is gone however long its lease runs.
	goneHere := host + "/2147483646/0/dead"
	for _, c := range []struct {
		id, runner string
		state      a2av1.TaskState
		lease      time.Time
	}{
		{"expired-working", "elsewhere/1/a", working, expired},
		{"expired-submitted", "elsewhere/1/a", submitted, expired},
		{"valid", "elsewhere/1/a", working, valid},
		{"mine", self, working, expired},
		{"interrupted", "elsewhere/1/a", inputReq, expired},
		{"no-runner", "", working, expired},
		{"gone-here", goneHere, working, valid},
	} {
		must(t, errOf2(s.CreateTask(ctx, store.Creation{Record: store.Record{Tenant: "T" + c.id[:1], Task: newTask(c.id, "c", c.state, 0), Runner: c.runner, LeaseUntil: c.lease}})), "CreateTask(%s)", c.id)
	}
	recs, err := s.StaleRuns(ctx, self, now, 100)
	must(t, err, "StaleRuns")
	var got []string
	for _, r := range recs {
		got = append(got, r.Task.GetId())
		if r.Tenant != "T"+r.Task.GetId()[:1] {
			t.Errorf("stale run %s has tenant %q", r.Task.GetId(), r.Tenant)
		}
	}
	slices.Sort(got)
	if want := []string{"expired-submitted", "expired-working", "gone-here"}; !slices.Equal(got, want) {
		t.Fatalf("StaleRuns = %v, want %v", got, want)
	}
	if recs, err := s.StaleRuns(ctx, self, now, 1); err != nil || len(recs) != 1 {
		t.Fatalf("StaleRuns(limit 1) = %d records, %v; want 1", len(recs), err)
	}
}
