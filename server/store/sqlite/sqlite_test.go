package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/migrate"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	submitted = a2av1.TaskState_TASK_STATE_SUBMITTED
	working   = a2av1.TaskState_TASK_STATE_WORKING
	inputReq  = a2av1.TaskState_TASK_STATE_INPUT_REQUIRED
	completed = a2av1.TaskState_TASK_STATE_COMPLETED
	failed    = a2av1.TaskState_TASK_STATE_FAILED
)

// newTask is a task snapshot as the server writes them, with a generation
// (a snapshot without one is given its row's when read).
func newTask(id string, state a2av1.TaskState, at time.Duration) *a2av1.Task {
	return &a2av1.Task{Id: id, ContextId: "ctx-" + id, Generation: 1,
		Status: &a2av1.TaskStatus{State: state, Timestamp: timestamppb.New(base.Add(at))}}
}

func statusEvent(t *a2av1.Task) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: t.GetId(), ContextId: t.GetContextId(), Status: t.GetStatus()}}}
}

func openAt(t testing.TB, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openTemp(t testing.TB, opts ...Option) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "data", "agent.db"), opts...)
}

func create(t testing.TB, s *Store, c store.Creation) store.Record {
	t.Helper()
	rec, _, err := s.CreateTask(context.Background(), c)
	if err != nil {
		t.Fatalf("CreateTask(%s): %v", c.Task.GetId(), err)
	}
	return rec
}

func update(t testing.TB, s *Store, u store.Update) int64 {
	t.Helper()
	v, err := s.UpdateTask(context.Background(), u)
	if err != nil {
		t.Fatalf("UpdateTask(%s, expect %d): %v", u.Task.GetId(), u.Expect, err)
	}
	return v
}

func cfg(task, id string) store.PushConfig {
	return store.PushConfig{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{TaskId: task, Id: id, Url: "https://hook.example/" + id}, ProtocolVersion: "1.0"}
}

func TestCreateUpdateRead(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	lease := base.Add(time.Minute)
	task := newTask("t1", submitted, 0)
	rec := create(t, s, store.Creation{Record: store.Record{Tenant: "T", Owner: "alice", Task: task, Runner: "h/1/a", LeaseUntil: lease}})
	if rec.Version != 1 || rec.Task != task || rec.Runner != "h/1/a" {
		t.Fatalf("CreateTask = %+v", rec)
	}
	got, err := s.Task(ctx, "T", "t1")
	if err != nil || got.Version != 1 || got.Owner != "alice" || got.Tenant != "T" || !proto.Equal(got.Task, task) ||
		got.Runner != "h/1/a" || !got.LeaseUntil.Equal(lease) {
		t.Fatalf("Task = %+v, %v", got, err)
	}
	t2 := newTask("t1", working, time.Second)
	v := update(t, s, store.Update{Tenant: "T", Task: t2, Expect: 1})
	got, _ = s.Task(ctx, "T", "t1")
	if v != 2 || got.Version != 2 || got.Runner != "h/1/a" || !got.LeaseUntil.Equal(lease) || !proto.Equal(got.Task, t2) {
		t.Fatalf("after an update without runner: %+v", got)
	}
	lease2 := lease.Add(time.Hour)
	update(t, s, store.Update{Tenant: "T", Task: newTask("t1", working, 2*time.Second), Expect: 2, Runner: "h/2/b", LeaseUntil: lease2})
	got, _ = s.Task(ctx, "T", "t1")
	if got.Runner != "h/2/b" || !got.LeaseUntil.Equal(lease2) {
		t.Fatalf("after an update with runner: %+v", got)
	}
	update(t, s, store.Update{Tenant: "T", Task: newTask("t1", completed, 3*time.Second), Expect: 3, Runner: "h/3/c", LeaseUntil: lease2})
	got, _ = s.Task(ctx, "T", "t1")
	if got.Runner != "" || !got.LeaseUntil.IsZero() || got.Version != 4 {
		t.Fatalf("a terminal write must clear the execution record: %+v", got)
	}
	_, err = s.UpdateTask(ctx, store.Update{Tenant: "T", Task: newTask("t1", working, 4*time.Second), Expect: 4})
	if !errors.Is(err, store.ErrTerminal) || !strings.Contains(err.Error(), `"t1"`) {
		t.Fatalf("update of a terminal task: %v", err)
	}
	_, err = s.UpdateTask(ctx, store.Update{Tenant: "T", Task: newTask("t9", working, 0), Expect: 1})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of a missing task: %v", err)
	}
	_, err = s.UpdateTask(ctx, store.Update{Tenant: "T", Task: newTask("t1", a2av1.TaskState(99), 0), Expect: 4})
	if !errors.Is(err, store.ErrInvalidTransition) {
		t.Fatalf("update to an unknown state: %v", err)
	}
	_, _, err = s.CreateTask(ctx, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t1", submitted, 0)}})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	// A terminal creation has no execution record.
	rec = create(t, s, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t2", failed, 0), Runner: "x/1/a", LeaseUntil: lease}})
	if rec.Runner != "" {
		t.Fatalf("terminal creation kept runner %q", rec.Runner)
	}
	if st := s.Stats(); st.TerminalTasks != 2 {
		t.Fatalf("Stats.TerminalTasks = %d, want 2", st.TerminalTasks)
	}
	// Reads cannot write.
	if _, err := s.rdb.Exec(`DELETE FROM tasks`); err == nil {
		t.Fatal("a read connection could write")
	}
}

func TestConflictInOneBatch(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	create(t, s, store.Creation{Record: store.Record{Task: newTask("a", working, 0)}})
	create(t, s, store.Creation{Record: store.Record{Task: newTask("b", working, 0)}})
	// Build the batch by hand: the writer is blocked behind a slow op while
	// three writes queue up, two of them on task a with the same version.
	release := blockWriter(t, s)
	type result struct {
		v   int64
		err error
	}
	results := make([]chan result, 3)
	ups := []store.Update{
		{Task: newTask("a", working, time.Second), Expect: 1},
		{Task: newTask("a", working, 2*time.Second), Expect: 1}, // conflicts with the first
		{Task: newTask("b", completed, time.Second), Expect: 1},
	}
	for i, u := range ups {
		results[i] = make(chan result, 1)
		go func() {
			v, err := s.UpdateTask(ctx, u)
			results[i] <- result{v, err}
		}()
		waitQueued(t, s, i+1) // keep the queue order
	}
	before := s.Stats().Transactions
	release()
	var got []result
	for _, ch := range results {
		got = append(got, <-ch)
	}
	if got[0].err != nil || got[0].v != 2 {
		t.Fatalf("first write: %+v", got[0])
	}
	if !errors.Is(got[1].err, store.ErrConflict) {
		t.Fatalf("second write: %+v, want ErrConflict", got[1])
	}
	if got[2].err != nil || got[2].v != 2 {
		t.Fatalf("third write (same batch as the conflict): %+v", got[2])
	}
	if n := s.Stats().Transactions - before; n != 2 {
		t.Fatalf("the blocker and the writes took %d transactions, want 2", n)
	}
	a, _ := s.Task(ctx, "", "a")
	if a.Version != 2 || !a.Task.GetStatus().GetTimestamp().AsTime().Equal(base.Add(time.Second)) {
		t.Fatalf("task a = %+v", a)
	}
}

// blockWriter occupies the writer until the returned function is called.
func blockWriter(t *testing.T, s *Store) (release func()) {
	t.Helper()
	started, block := make(chan struct{}), make(chan struct{})
	go s.submit(context.Background(), &funcOp{fn: func() { close(started); <-block }})
	<-started
	return func() { close(block) }
}

// waitQueued waits until n operations wait for the writer.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.w.ops) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d operations queued, want %d", len(s.w.ops), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// funcOp runs fn in the writer (tests only).
type funcOp struct {
	opBase
	fn  func()
	sql string
}

func (o *funcOp) what() string { return "test operation" }

func (o *funcOp) apply(w *writer, _ int64) (error, error) {
	if o.fn != nil {
		o.fn()
	}
	if o.sql != "" {
		if _, err := w.conn.ExecContext(context.Background(), o.sql); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// execWriter runs a statement on the writer connection, in a transaction.
func execWriter(t *testing.T, s *Store, stmt string) {
	t.Helper()
	if err := s.submit(context.Background(), &funcOp{sql: stmt}); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func TestBatching(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	// The creations queue up behind a blocked writer, so they are
	// committed together whatever the machine's speed; the updates that
	// follow race.
	release := blockWriter(t, s)
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("t%02d", i)
			if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, submitted, 0)}}); err != nil {
				errs <- err
				return
			}
			t2 := newTask(id, working, time.Second)
			if _, err := s.UpdateTask(ctx, store.Update{Task: t2, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(t2)}}); err != nil {
				errs <- err
				return
			}
			t3 := newTask(id, completed, 2*time.Second)
			if _, err := s.UpdateTask(ctx, store.Update{Task: t3, Expect: 2, Events: []*a2av1.StreamResponse{statusEvent(t3)}}); err != nil {
				errs <- err
			}
		})
	}
	waitQueued(t, s, n)
	before := s.Stats()
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := s.Stats()
	t.Logf("%d writes in %d transactions", st.Writes-before.Writes, st.Transactions-before.Transactions)
	if w := st.Writes - before.Writes; w != 3*n+1 { // and the blocker
		t.Fatalf("Stats.Writes = %d, want %d", w, 3*n+1)
	}
	// Unbatched: the blocker's, one per creation, one per update.
	if tx := st.Transactions - before.Transactions; tx > 1+1+2*n {
		t.Fatalf("%d transactions for %d writes: the %d queued creations were not committed together", tx, 3*n+1, n)
	}
	page, err := s.ListTasks(ctx, "", store.Query{State: completed, Limit: 100})
	if err != nil || page.Total != n {
		t.Fatalf("ListTasks(completed) = %d, %v", page.Total, err)
	}
}

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *testClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func TestOutbox(t *testing.T) {
	clock := &testClock{now: base}
	s := openTemp(t, WithClock(clock.Now))
	ctx := context.Background()
	task := newTask("t1", submitted, 0)
	create(t, s, store.Creation{Record: store.Record{Tenant: "T", Task: task},
		PushConfigs: []store.PushConfig{cfg("t1", "b"), cfg("t1", "a")},
		Events:      []*a2av1.StreamResponse{statusEvent(task)}})
	select {
	case <-s.DeliveriesQueued():
	default:
		t.Fatal("DeliveriesQueued not signalled after a create with configs")
	}
	t2 := newTask("t1", working, time.Second)
	update(t, s, store.Update{Tenant: "T", Task: t2, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(t2), statusEvent(t2)}})

	now := clock.Now()
	next, ok, err := s.NextDelivery(ctx)
	if err != nil || !ok || !next.Equal(now) {
		t.Fatalf("NextDelivery = %v, %v, %v; want %v", next, ok, err, now)
	}
	claim := func(max int) []store.Delivery {
		t.Helper()
		ds, err := s.ClaimDeliveries(ctx, store.Claim{Worker: "w", Now: now, Lease: time.Minute, Max: max})
		if err != nil {
			t.Fatalf("ClaimDeliveries: %v", err)
		}
		return ds
	}
	ids := func(ds []store.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	// Only the head of each config's queue.
	ds := claim(10)
	if want := []string{store.DeliveryID("T", "t1", 1, 0, "a"), store.DeliveryID("T", "t1", 1, 0, "b")}; !slices.Equal(ids(ds), want) {
		t.Fatalf("first claim %v, want %v", ids(ds), want)
	}
	if ds[0].Tenant != "T" || !proto.Equal(ds[0].Config, cfg("t1", "a").TaskPushNotificationConfig) || !proto.Equal(ds[0].Event, statusEvent(task)) || ds[0].Attempts != 0 {
		t.Fatalf("delivery %+v", ds[0])
	}
	if ds := claim(10); len(ds) != 0 {
		t.Fatalf("claim while leased: %v", ids(ds))
	}
	if next, _, _ := s.NextDelivery(ctx); !next.Equal(now.Add(time.Minute)) {
		t.Fatalf("NextDelivery while leased = %v, want the lease end", next)
	}
	// a: success; b: failure, retried in an hour.
	if err := s.FinishDelivery(ctx, ds[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishDelivery(ctx, ds[0].ID); err != nil {
		t.Fatalf("finishing twice: %v", err)
	}
	if err := s.RetryDelivery(ctx, ds[1].ID, 1, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RetryDelivery(ctx, "nope", 1, now); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("RetryDelivery(missing) = %v", err)
	}
	ds = claim(10)
	if want := []string{store.DeliveryID("T", "t1", 2, 0, "a")}; !slices.Equal(ids(ds), want) {
		t.Fatalf("second claim %v, want %v (b waits for its retry)", ids(ds), want)
	}
	// The config changes: pending deliveries go to the new one.
	newB := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "b", Url: "https://new.example"}
	if err := s.SavePushConfig(ctx, "T", store.PushConfig{TaskPushNotificationConfig: newB}); err != nil {
		t.Fatal(err)
	}
	// Past the retry time and a's lease: both heads, oldest due first.
	now = now.Add(2 * time.Hour)
	ds = claim(10)
	if want := []string{store.DeliveryID("T", "t1", 2, 0, "a"), store.DeliveryID("T", "t1", 1, 0, "b")}; !slices.Equal(ids(ds), want) {
		t.Fatalf("claim after the retry time: %v, want %v", ids(ds), want)
	}
	if ds[1].Attempts != 1 || !proto.Equal(ds[1].Config, newB) {
		t.Fatalf("retried delivery %+v, want 1 attempt and the new config", ds[1])
	}
	// Deleting b keeps the delivery of the event written while it existed.
	if err := s.DeletePushConfig(ctx, "T", "t1", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.RetryDelivery(ctx, ds[1].ID, 2, now); err != nil {
		t.Fatalf("RetryDelivery after the config was deleted = %v, want its earlier event still pending", err)
	}
	if err := s.FinishDelivery(ctx, ds[0].ID); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for ds = claim(10); len(ds) > 0; ds = claim(10) {
		rest = append(rest, ids(ds)...)
		for _, d := range ds {
			if err := s.FinishDelivery(ctx, d.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Contains(rest, store.DeliveryID("T", "t1", 2, 1, "a")) || !slices.Contains(rest, store.DeliveryID("T", "t1", 1, 0, "b")) {
		t.Fatalf("remaining deliveries %v, want a's second event and b's first among them", rest)
	}
	if _, ok, _ := s.NextDelivery(ctx); ok {
		t.Fatal("NextDelivery reports a delivery in an empty outbox")
	}
	// A task without configs queues nothing.
	create(t, s, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t2", working, 0)}, Events: []*a2av1.StreamResponse{statusEvent(task)}})
	update(t, s, store.Update{Tenant: "T", Task: newTask("t2", completed, time.Second), Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(task)}})
	if _, ok, _ := s.NextDelivery(ctx); ok {
		t.Fatal("a task without configs queued deliveries")
	}
}

func TestPushConfigsPushCount(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t1", working, 0)}})
	count := func() (n int) {
		t.Helper()
		if err := s.rdb.QueryRow(`SELECT push_count FROM tasks WHERE id = 't1'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, id := range []string{"a", "b", "a"} {
		if err := s.SavePushConfig(ctx, "", cfg("t1", id)); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 2 {
		t.Fatalf("push_count = %d, want 2", n)
	}
	_ = s.DeletePushConfig(ctx, "", "t1", "a")
	_ = s.DeletePushConfig(ctx, "", "t1", "zzz")
	if n := count(); n != 1 {
		t.Fatalf("push_count after delete = %d, want 1", n)
	}
	if err := s.SavePushConfig(ctx, "", cfg("nope", "a")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("SavePushConfig for a missing task = %v", err)
	}
}

func TestStaleRunsAndRenew(t *testing.T) {
	s := openTemp(t, WithSharedAccess())
	ctx := context.Background()
	self := store.NewRunnerID()
	host := store.RunnerHost(self)
	now := base.Add(time.Hour)
	// A process on this host that cannot exist (pid of this process, other suffix).
	deadLocal := fmt.Sprintf("%s/%d/dead", host, os.Getpid())
	remote := "other-host/1/x"
	tasks := []struct {
		id     string
		state  a2av1.TaskState
		runner string
		lease  time.Time
		stale  bool
	}{
		{"mine", working, self, now.Add(-time.Hour), false},
		{"remote-expired", working, remote, now.Add(-time.Second), true},
		{"remote-live", working, remote, now.Add(time.Second), false},
		{"local-dead", submitted, deadLocal, now.Add(time.Hour), true},
		{"no-lease", working, "other-host/2/y", time.Time{}, true},
		{"interrupted", inputReq, remote, now.Add(-time.Hour), false},
		{"no-runner", working, "", time.Time{}, false},
	}
	for _, tc := range tasks {
		create(t, s, store.Creation{Record: store.Record{Tenant: "T" + tc.id, Task: newTask(tc.id, tc.state, 0), Runner: tc.runner, LeaseUntil: tc.lease}})
	}
	stale, err := s.StaleRuns(ctx, self, now, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range stale {
		got = append(got, r.Task.GetId())
		if r.Tenant != "T"+r.Task.GetId() {
			t.Errorf("stale run %s has tenant %q", r.Task.GetId(), r.Tenant)
		}
	}
	slices.Sort(got)
	var want []string
	for _, tc := range tasks {
		if tc.stale {
			want = append(want, tc.id)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("StaleRuns = %v, want %v", got, want)
	}
	if stale, _ := s.StaleRuns(ctx, self, now, 1); len(stale) != 1 {
		t.Fatalf("StaleRuns(limit 1) returned %d", len(stale))
	}
	if err := s.RenewRuns(ctx, remote, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Task(ctx, "Tremote-expired", "remote-expired")
	if !r.LeaseUntil.Equal(now.Add(time.Hour)) {
		t.Fatalf("lease after RenewRuns = %v", r.LeaseUntil)
	}
	stale, _ = s.StaleRuns(ctx, self, now, 0)
	for _, r := range stale {
		if r.Runner == remote {
			t.Fatalf("renewed run %s still stale", r.Task.GetId())
		}
	}
}

func TestStaleRunsEscapesHost(t *testing.T) {
	s := openTemp(t, WithSharedAccess())
	// A host name with LIKE wildcards must only match itself.
	self := "we_b%1/1/a"
	create(t, s, store.Creation{Record: store.Record{Task: newTask("x", working, 0), Runner: "webx1/1/b", LeaseUntil: base.Add(time.Hour)}})
	stale, err := s.StaleRuns(context.Background(), self, base, 0)
	if err != nil || len(stale) != 0 {
		t.Fatalf("StaleRuns = %d records, %v; want none", len(stale), err)
	}
}

func TestRetention(t *testing.T) {
	c := &testClock{now: base}
	clock, advance := c.Now, c.Advance
	path := filepath.Join(t.TempDir(), "agent.db")
	s := openAt(t, path, WithClock(clock), WithRetention(store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 3}))
	ctx := context.Background()
	for i := range 5 {
		id := fmt.Sprintf("t%d", i)
		create(t, s, store.Creation{Record: store.Record{Task: newTask(id, working, 0)},
			PushConfigs: []store.PushConfig{cfg(id, "p")}})
	}
	for i := range 5 {
		id := fmt.Sprintf("t%d", i)
		done := newTask(id, completed, time.Second)
		update(t, s, store.Update{Task: done, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(done)}})
		advance(time.Minute)
	}
	// At most 3 terminal tasks: t0 and t1 are gone, with their configs.
	for i, want := range []bool{false, false, true, true, true} {
		_, err := s.Task(ctx, "", fmt.Sprintf("t%d", i))
		if (err == nil) != want {
			t.Fatalf("t%d: %v, want present=%v", i, err, want)
		}
	}
	if st := s.Stats(); st.TerminalTasks != 3 {
		t.Fatalf("TerminalTasks = %d, want 3", st.TerminalTasks)
	}
	var configs int
	_ = s.rdb.QueryRow(`SELECT COUNT(*) FROM push_configs`).Scan(&configs)
	if configs != 3 {
		t.Fatalf("%d push configs left, want 3", configs)
	}
	// Their final deliveries are still pending.
	ds, err := s.ClaimDeliveries(ctx, store.Claim{Worker: "w", Now: clock(), Lease: time.Minute, Max: 10})
	if err != nil || len(ds) != 5 {
		t.Fatalf("claimed %d deliveries, %v; want the 5 of the removed and kept tasks", len(ds), err)
	}
	// Tasks ended at +2m (t2), +3m, +4m; now is +5m. The TTL hides t2
	// before any sweep.
	advance(time.Hour - 2*time.Minute - 30*time.Second)
	if _, err := s.Task(ctx, "", "t2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("t2 past its TTL: %v", err)
	}
	if _, err := s.Task(ctx, "", "t3"); err != nil {
		t.Fatalf("t3 within its TTL: %v", err)
	}
	page, _ := s.ListTasks(ctx, "", store.Query{Limit: 10})
	if page.Total != 2 {
		t.Fatalf("listing past the TTL: total %d, want 2", page.Total)
	}
	if _, err := s.PushConfig(ctx, "", "t2", "p"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("config of an expired task: %v", err)
	}
	// Its id is free again.
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t2", working, 0)}})
	// The writer sweeps the expired ones.
	advance(time.Hour)
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t9", working, 0)}})
	var terminal int
	_ = s.rdb.QueryRow(`SELECT COUNT(*) FROM tasks WHERE ended_at IS NOT NULL`).Scan(&terminal)
	if terminal != 0 || s.Stats().TerminalTasks != 0 {
		t.Fatalf("%d terminal tasks stored (counter %d) after the TTL passed, want 0", terminal, s.Stats().TerminalTasks)
	}
	// Reopen: the count is read from the database.
	s.Close()
	s = openAt(t, path, WithClock(clock), WithRetention(store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 3}))
	update(t, s, store.Update{Task: newTask("t2", failed, 0), Expect: 1})
	if st := s.Stats(); st.TerminalTasks != 1 {
		t.Fatalf("after reopening: TerminalTasks = %d, want 1", st.TerminalTasks)
	}
}

func TestIdleSweep(t *testing.T) {
	s := openTemp(t, WithRetention(store.Retention{TerminalTaskTTL: 50 * time.Millisecond}))
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t", completed, 0)}})
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().TerminalTasks != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle writer did not remove the expired task")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDurability(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	ctx := context.Background()
	clock := &testClock{now: base}
	s := openAt(t, path, WithClock(clock.Now))
	lease := base.Add(time.Hour)
	want := map[string]store.Record{}
	for i, state := range []a2av1.TaskState{submitted, working, inputReq, completed, failed} {
		id := fmt.Sprintf("t%d", i)
		task := newTask(id, submitted, 0)
		task.History = []*a2av1.Message{{MessageId: "m" + id, Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello " + id}}}}}
		create(t, s, store.Creation{Record: store.Record{Tenant: "T", Owner: "o" + id, Task: task, Runner: "h/1/r", LeaseUntil: lease},
			PushConfigs: []store.PushConfig{cfg(id, "p")}, Events: []*a2av1.StreamResponse{statusEvent(task)}})
		rec := store.Record{Tenant: "T", Owner: "o" + id, Version: 1, Task: task, Runner: "h/1/r", LeaseUntil: lease}
		if state != submitted {
			next := proto.Clone(task).(*a2av1.Task)
			next.Status = &a2av1.TaskStatus{State: state, Timestamp: timestamppb.New(base.Add(time.Duration(i) * time.Second))}
			rec.Version = update(t, s, store.Update{Tenant: "T", Task: next, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(next)}})
			rec.Task = next
			if store.IsTerminal(state) {
				rec.Runner, rec.LeaseUntil = "", time.Time{}
			}
		}
		want[id] = rec
	}
	ds, err := s.ClaimDeliveries(ctx, store.Claim{Worker: "w", Now: base, Lease: time.Minute, Max: 2})
	if err != nil || len(ds) != 2 {
		t.Fatalf("claim: %d, %v", len(ds), err)
	}
	if err := s.RetryDelivery(ctx, ds[0].ID, 3, base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	outbox := func(s *Store) string {
		rows, err := s.rdb.Query(`SELECT seq, id, tenant, task_id, config_id, attempts, next_attempt, lease_owner, lease_until, head FROM outbox ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var v [10]any
			ptrs := make([]any, len(v))
			for i := range v {
				ptrs[i] = &v[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, v[:]...)
		}
		return b.String()
	}
	before := outbox(s)
	nextBefore, _, _ := s.NextDelivery(ctx)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = openAt(t, path, WithClock(clock.Now))
	for id, w := range want {
		got, err := s.Task(ctx, "T", id)
		if err != nil {
			t.Fatalf("after reopening, Task(%s): %v", id, err)
		}
		if got.Version != w.Version || got.Owner != w.Owner || got.Runner != w.Runner || !got.LeaseUntil.Equal(w.LeaseUntil) ||
			!proto.Equal(got.Task, w.Task) {
			t.Fatalf("after reopening, %s = %+v, want %+v", id, got, w)
		}
		c, err := s.PushConfig(ctx, "T", id, "p")
		if err != nil || !proto.Equal(c.TaskPushNotificationConfig, cfg(id, "p").TaskPushNotificationConfig) {
			t.Fatalf("after reopening, config of %s = %v, %v", id, c, err)
		}
	}
	if after := outbox(s); after != before {
		t.Fatalf("outbox changed across reopen:\n%s\nwant\n%s", after, before)
	}
	if next, ok, _ := s.NextDelivery(ctx); !ok || !next.Equal(nextBefore) {
		t.Fatalf("NextDelivery after reopening = %v, want %v", next, nextBefore)
	}
	// The retried delivery keeps its attempts.
	ds, err = s.ClaimDeliveries(ctx, store.Claim{Worker: "w2", Now: base.Add(2 * time.Hour), Lease: time.Minute, Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range ds {
		if d.ID == store.DeliveryID("T", "t0", 1, 0, "p") {
			found = true
			if d.Attempts != 3 {
				t.Fatalf("retried delivery has %d attempts after reopening, want 3", d.Attempts)
			}
		}
	}
	if !found {
		t.Fatalf("retried delivery not claimable after its retry time: %v", ds)
	}
	// Versions continue.
	got, _ := s.Task(ctx, "T", "t1")
	if v := update(t, s, store.Update{Tenant: "T", Task: newTask("t1", completed, time.Hour), Expect: got.Version}); v != got.Version+1 {
		t.Fatalf("version after reopening = %d", v)
	}
}

func TestWriteFailureRollsBack(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t1", working, 0)}})
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t2", working, 0)}})
	var pages int64
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// The database may not grow any more: a big snapshot hits SQLITE_FULL.
	execWriter(t, s, fmt.Sprintf("PRAGMA max_page_count = %d", pages))
	big := newTask("t1", working, time.Second)
	big.Metadata = nil
	big.History = []*a2av1.Message{{MessageId: "big", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: strings.Repeat("x", 1<<20)}}}}}
	_, sub, err := s.Subscribe(ctx, "", "t1", store.FollowEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	_, err = s.UpdateTask(ctx, store.Update{Task: big, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(big)}})
	if err == nil {
		t.Fatal("a write beyond max_page_count succeeded")
	}
	for _, sentinel := range []error{store.ErrNotFound, store.ErrConflict, store.ErrTerminal, store.ErrExists, store.ErrInvalidTransition, store.ErrClosed} {
		if errors.Is(err, sentinel) {
			t.Fatalf("storage failure reported as %v: %v", sentinel, err)
		}
	}
	if !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), `writing task "t1"`) {
		t.Fatalf("error %q does not name the store and the task", err)
	}
	t.Logf("storage failure: %v", err)
	got, err := s.Task(ctx, "", "t1")
	if err != nil || got.Version != 1 || len(got.Task.GetHistory()) != 0 {
		t.Fatalf("after the failed write the task is %+v, %v; want version 1 unchanged", got, err)
	}
	select {
	case ev := <-sub.Events():
		t.Fatalf("a failed write published %v", ev)
	default:
	}
	// A database error is the failing write's own: a small write batched
	// with it is made again without it and succeeds; the big one fails.
	release := blockWriter(t, s)
	bigErr, smallErr := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := s.UpdateTask(ctx, store.Update{Task: big, Expect: 1})
		bigErr <- err
	}()
	waitQueued(t, s, 1)
	go func() {
		_, err := s.UpdateTask(ctx, store.Update{Task: newTask("t2", working, time.Second), Expect: 1})
		smallErr <- err
	}()
	waitQueued(t, s, 2)
	release() // both are queued: the writer takes them into one transaction
	if err := <-bigErr; err == nil || !strings.Contains(err.Error(), "database or disk is full") {
		t.Fatalf("the big write: %v, want the database error", err)
	}
	if err := <-smallErr; err != nil {
		t.Fatalf("the small write batched with the failing one: %v; want it made", err)
	}
	if got, _ := s.Task(ctx, "", "t2"); got.Version != 2 {
		t.Fatalf("t2 after its write: version %d, want 2", got.Version)
	}
	// Small writes still fit; then the fault goes away and big ones work.
	update(t, s, store.Update{Task: newTask("t2", working, 2*time.Second), Expect: 2})
	execWriter(t, s, "PRAGMA max_page_count = 1073741823")
	if v := update(t, s, store.Update{Task: big, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(big)}}); v != 2 {
		t.Fatalf("version %d", v)
	}
	select {
	case ev := <-sub.Events():
		if ev.Version != 2 {
			t.Fatalf("event version %d", ev.Version)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event after the successful write")
	}
	if s.Stats().RolledBack == 0 {
		t.Fatal("Stats.RolledBack not counted")
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "sub", "agent.db")
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "sqlite store "+path+": cannot create directory") {
		t.Fatalf("Open under a file = %v", err)
	}
	t.Log(err)
	_, err = Open(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Open of a directory = %v", err)
	}
	_, err = Open(context.Background(), file)
	if err == nil || !strings.Contains(err.Error(), "sqlite store "+file) || !strings.Contains(err.Error(), "is not an SQLite database") {
		t.Fatalf("Open of a file that is not a database = %v", err)
	}
	t.Log(err)
	// Nothing was created next to it (pointed at /etc/passwd, the store
	// once left /etc/passwd-lock behind; issue 26).
	if left, _ := filepath.Glob(file + "?*"); len(left) != 0 {
		t.Fatalf("Open of a file that is not a database left %v behind", left)
	}
	// A failure after the lock was taken removes the lock file it made.
	old := filepath.Join(dir, "old.db")
	s := openAt(t, old)
	execWriter(t, s, "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'future')")
	s.Close()
	if err := os.Remove(old + "-lock"); err != nil {
		t.Fatal(err)
	}
	if _, err = Open(context.Background(), old); err == nil {
		t.Fatal("Open of a database newer than the store succeeded")
	}
	if _, err := os.Stat(old + "-lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a failed Open left its lock file behind: %v", err)
	}
	_, err = Open(context.Background(), filepath.Join(dir, "x.db"), WithSynchronous("off"))
	if err == nil || !strings.Contains(err.Error(), `"off"`) {
		t.Fatalf("Open with synchronous off = %v", err)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), filepath.Join(ro, "data", "agent.db"))
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("Open under a read-only directory = %v", err)
		}
		t.Log(err)
	}
}

func TestTooNewSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	s := openAt(t, path, WithSynchronous("full"))
	execWriter(t, s, "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'future')")
	s.Close()
	_, err := Open(context.Background(), path)
	var tooNew *migrate.TooNewError
	if !errors.As(err, &tooNew) || tooNew.Current != 99 {
		t.Fatalf("Open of a newer database = %v", err)
	}
	want := fmt.Sprintf("sqlite store %s: database schema version 99 is newer than this binary supports (%d); upgrade the agent binary or use another database", path, tooNew.Supported)
	if err.Error() != want {
		t.Fatalf("message %q\nwant    %q", err, want)
	}
}

func TestClose(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t1", working, 0)}})
	_, sub, err := s.Subscribe(ctx, "", "t1", store.FollowEvents)
	if err != nil {
		t.Fatal(err)
	}
	// A write queued behind a blocked writer fails with ErrClosed.
	release := blockWriter(t, s)
	queued := make(chan error, 1)
	go func() {
		_, err := s.UpdateTask(ctx, store.Update{Task: newTask("t1", working, time.Second), Expect: 1})
		queued <- err
	}()
	waitQueued(t, s, 1)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for !s.closed.Load() {
		time.Sleep(time.Millisecond)
	}
	release()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-queued; !errors.Is(err, store.ErrClosed) {
		t.Fatalf("queued write: %v, want ErrClosed", err)
	}
	for range sub.Events() {
	}
	if !errors.Is(sub.Err(), store.ErrClosed) {
		t.Fatalf("subscription Err = %v", sub.Err())
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Task(ctx, "", "t1"); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Task after Close: %v", err)
	}
	if _, err := s.UpdateTask(ctx, store.Update{Task: newTask("t1", working, 0), Expect: 1}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("UpdateTask after Close: %v", err)
	}
	if _, err := s.ListTasks(ctx, "", store.Query{Limit: 1}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("ListTasks after Close: %v", err)
	}
}

func TestCanceledWriteNeverRuns(t *testing.T) {
	s := openTemp(t)
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t1", working, 0)}})
	release := blockWriter(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.UpdateTask(ctx, store.Update{Task: newTask("t1", completed, time.Second), Expect: 1})
		done <- err
	}()
	waitQueued(t, s, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled write: %v", err)
	}
	release()
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t2", working, 0)}}) // after the writer moved on
	got, _ := s.Task(context.Background(), "", "t1")
	if got.Version != 1 {
		t.Fatalf("the canceled write ran: version %d", got.Version)
	}
}

// TestListUsesIndexes checks with EXPLAIN QUERY PLAN that every listing
// shape (filters, TTLs, cursor) reads its page in order from the index of
// its owner or context (issue 26: a contextId without tasks scanned every
// task of the owner), and counts from the counts tables — reading tasks
// only through the retention indexes, for the tasks past their TTL — or,
// with a state or UpdatedAfter, from a range of that index alone. The store runs no ANALYZE, so SQLite plans by its
// fixed heuristics and the plans of an empty database are those of a full
// one.
func TestListUsesIndexes(t *testing.T) {
	s := openTemp(t)
	explain := func(q string, args int) string {
		t.Helper()
		vals := make([]any, args)
		for i := range vals {
			vals[i] = int64(1)
		}
		rows, err := s.rdb.Query("EXPLAIN QUERY PLAN "+q, vals...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		return strings.Join(plan, "; ")
	}
	for shape := range sqlrecord.ByCursor << 1 {
		count, page, countArgs := listSQL(shape)
		index := "tasks_by_time"
		if shape&sqlrecord.ByContext != 0 {
			index = "tasks_by_context"
		}
		plan := explain(page, argLimit)
		if !strings.Contains(plan, "SEARCH tasks USING INDEX "+index+" ") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("shape %06b: the page is not read in order from %s: %s\nplan: %s", shape, index, page, plan)
		}
		plan = explain(count, countArgs)
		ranged := shape&(sqlrecord.ByUpdatedAfter|sqlrecord.ByState) != 0
		switch {
		case strings.Contains(strings.ReplaceAll(plan, "SCAN CONSTANT ROW", ""), "SCAN "):
			t.Errorf("shape %06b: the count scans: %s\nplan: %s", shape, count, plan)
		case ranged && !strings.Contains(plan, "SEARCH tasks USING COVERING INDEX "+index+" ") &&
			// By state alone, either index holds the owner's tasks.
			!(shape&(sqlrecord.ByContext|sqlrecord.ByUpdatedAfter) == 0 && strings.Contains(plan, "SEARCH tasks USING COVERING INDEX tasks_by_context (tenant=? AND owner=?)")):
			t.Errorf("shape %06b: the count does not read a range of %s alone: %s\nplan: %s", shape, index, count, plan)
		case !ranged && !strings.Contains(plan, "SEARCH task_counts") && !strings.Contains(plan, "SEARCH context_counts"):
			t.Errorf("shape %06b: the count does not read the counts: %s\nplan: %s", shape, count, plan)
		case !ranged && slices.ContainsFunc(strings.Split(plan, "; "), func(step string) bool {
			return strings.HasPrefix(step, "SEARCH tasks ") && !strings.HasPrefix(step, "SEARCH tasks USING INDEX tasks_by_end ") && !strings.HasPrefix(step, "SEARCH tasks USING INDEX tasks_waiting ")
		}):
			t.Errorf("shape %06b: the count reads tasks beyond the retention indexes: %s\nplan: %s", shape, count, plan)
		}
		if testing.Verbose() {
			t.Logf("shape %06b: page %s; count %s", shape, explain(page, argLimit), plan)
		}
	}
}

func TestOpenReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "agent.db")
	s := openAt(t, path)
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t1", working, 0)}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := Open(context.Background(), path)
	if err == nil {
		t.Fatal("Open of a read-only database succeeded")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "sqlite store "+path+": ") {
		t.Fatalf("error %q does not name the store", err)
	}
}

// TestOneProcessPerFile: a second Open of a file in use is refused with an
// error naming the holder, until the first store is closed.
func TestOneProcessPerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	first, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), path)
	if !errors.Is(err, errInUse) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("second Open: %v; want in use, naming this pid and the way out", err)
	}
	shared, err := Open(context.Background(), path, WithSharedAccess())
	if err != nil {
		t.Fatalf("Open with WithSharedAccess: %v", err)
	}
	if err := shared.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}

// TestStaleRunsOfOtherProcesses: holding the file, the store takes every
// other process's runner for gone, lease or not (a container restarted in a
// new pid namespace leaves runners it cannot check), but never another
// instance of this process.
func TestStaleRunsOfOtherProcesses(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	self := store.NewRunnerID()
	sibling := store.NewRunnerID() // another instance of this process
	now := base.Add(time.Hour)
	create(t, s, store.Creation{Record: store.Record{Task: newTask("predecessor", working, 0), Runner: "agent-host~4026531836/1/0a0b0c0d/01020304", LeaseUntil: now.Add(time.Hour)}})
	create(t, s, store.Creation{Record: store.Record{Task: newTask("sibling", working, 0), Runner: sibling, LeaseUntil: now.Add(time.Hour)}})
	stale, err := s.StaleRuns(ctx, self, now, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].Task.GetId() != "predecessor" {
		var ids []string
		for _, r := range stale {
			ids = append(ids, r.Task.GetId())
		}
		t.Fatalf("StaleRuns = %v, want [predecessor]", ids)
	}
}

// TestInterruptedSweep: interrupted tasks past their TTL are removed from
// the database, with their push configs, by the next write, and after a
// reopen too (the writer reads the oldest one at open).
func TestInterruptedSweep(t *testing.T) {
	c := &testClock{now: base}
	path := filepath.Join(t.TempDir(), "agent.db")
	s := openAt(t, path, WithClock(c.Now), WithRetention(store.Retention{InterruptedTaskTTL: time.Hour}))
	rows := func(s *Store) (tasks, configs int) {
		_ = s.rdb.QueryRow(`SELECT COUNT(*) FROM tasks`).Scan(&tasks)
		_ = s.rdb.QueryRow(`SELECT COUNT(*) FROM push_configs`).Scan(&configs)
		return tasks, configs
	}
	for i := range 3 {
		id := fmt.Sprintf("t%d", i)
		create(t, s, store.Creation{Record: store.Record{Task: newTask(id, inputReq, 0)},
			PushConfigs: []store.PushConfig{cfg(id, "p")}})
	}
	create(t, s, store.Creation{Record: store.Record{Task: newTask("run", working, 0)}})
	c.Advance(time.Hour + time.Second)
	create(t, s, store.Creation{Record: store.Record{Task: newTask("w", working, 0)}})
	if tasks, configs := rows(s); tasks != 2 || configs != 0 {
		t.Fatalf("after the TTL: %d tasks, %d push configs stored; want 2 and 0", tasks, configs)
	}
	create(t, s, store.Creation{Record: store.Record{Task: newTask("late", inputReq, time.Hour+time.Second)}})
	s.Close()
	c.Advance(time.Hour + time.Second)
	s = openAt(t, path, WithClock(c.Now), WithRetention(store.Retention{InterruptedTaskTTL: time.Hour}))
	create(t, s, store.Creation{Record: store.Record{Task: newTask("w2", working, 0)}})
	if tasks, _ := rows(s); tasks != 3 {
		t.Fatalf("after reopening: %d tasks stored, want 3", tasks)
	}
}
