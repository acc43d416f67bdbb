package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TestCacheNeverServesStale: readers racing with writers never see a record
// older than one already committed, nor a snapshot that does not belong to
// the record's version, even with a cache so small that reads keep missing
// and offering what they read while the writer changes the same tasks.
func TestCacheNeverServesStale(t *testing.T) {
	for _, n := range []int{0, cacheShards, cacheRecords} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := openTemp(t, withCachedRecords(n))
			ctx := context.Background()
			const tasks = 64
			var committed [tasks]atomic.Int64
			// The snapshot's timestamp says which version it belongs to.
			at := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
			for i := range tasks {
				create(t, s, store.Creation{Record: store.Record{Task: newTask(fmt.Sprint(i), inputReq, at(1))}})
				committed[i].Store(1)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for i := range tasks {
				wg.Go(func() {
					id := fmt.Sprint(i)
					for v := int64(1); ; v++ {
						select {
						case <-stop:
							return
						default:
						}
						// Alternate between a waiting state (not pinned)
						// and a running one (pinned).
						state := inputReq
						if v%2 == 1 {
							state = working
						}
						if _, err := s.UpdateTask(ctx, store.Update{Task: newTask(id, state, at(v+1)), Expect: v}); err != nil {
							t.Error(err)
							return
						}
						committed[i].Store(v + 1)
					}
				})
			}
			var reads atomic.Int64
			for r := range 4 {
				wg.Go(func() {
					for k := r; ; k++ {
						select {
						case <-stop:
							return
						default:
						}
						i := k % tasks
						floor := committed[i].Load()
						rec, err := s.Task(ctx, "", fmt.Sprint(i))
						if err != nil {
							t.Error(err)
							return
						}
						reads.Add(1)
						if rec.Version < floor {
							t.Errorf("task %d: read version %d after version %d was committed", i, rec.Version, floor)
							return
						}
						if got := rec.Task.GetStatus().GetTimestamp().AsTime(); !got.Equal(base.Add(at(rec.Version))) {
							t.Errorf("task %d version %d has the snapshot of another version (%v)", i, rec.Version, got)
							return
						}
					}
				})
			}
			time.Sleep(time.Second)
			close(stop)
			wg.Wait()
			checkCache(t, s)
			t.Logf("%d reads, %d writes", reads.Load(), s.Stats().Writes)
		})
	}
}

// TestCacheFollowsTheDatabase: whatever the cache holds, a read returns
// what a store reopened on the same file (empty cache) reads from the
// database: for created, updated, renewed, completed, expired and removed
// tasks.
func TestCacheFollowsTheDatabase(t *testing.T) {
	clock := &testClock{now: base}
	path := t.TempDir() + "/agent.db"
	opts := []Option{WithClock(clock.Now), WithRetention(store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 2})}
	s := openAt(t, path, opts...)
	ctx := context.Background()
	lease := base.Add(time.Minute)
	for i := range 6 {
		id := fmt.Sprint(i)
		create(t, s, store.Creation{Record: store.Record{Tenant: "T", Owner: "o", Task: newTask(id, submitted, 0),
			Runner: "h/1/a", LeaseUntil: lease}, PushConfigs: []store.PushConfig{cfg(id, "p")}})
	}
	// Push configs: "0" gets one more, "1" loses its one.
	if err := s.SavePushConfig(ctx, "T", cfg("0", "q")); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePushConfig(ctx, "T", "1", "p"); err != nil {
		t.Fatal(err)
	}
	update(t, s, store.Update{Tenant: "T", Task: newTask("0", working, time.Second), Expect: 1})
	update(t, s, store.Update{Tenant: "T", Task: newTask("1", inputReq, time.Second), Expect: 1, Runner: "h/2/b", LeaseUntil: lease.Add(time.Hour)})
	if err := s.RenewRuns(ctx, "h/1/a", lease.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"2", "3", "4"} {
		clock.Advance(time.Minute)
		update(t, s, store.Update{Tenant: "T", Task: newTask(id, completed, time.Duration(i)*time.Second), Expect: 1})
	}
	// At most 2 terminal tasks: "2" is removed. "3" outlives its TTL.
	clock.Advance(time.Hour - time.Minute/2)
	want := map[string]error{"2": store.ErrNotFound, "3": store.ErrNotFound, "9": store.ErrNotFound}
	ids := []string{"0", "1", "2", "3", "4", "5", "9"}
	read := func(s *Store) map[string]store.Record {
		out := map[string]store.Record{}
		for _, id := range ids {
			rec, err := s.Task(ctx, "T", id)
			if !errors.Is(err, want[id]) {
				t.Fatalf("Task(%s) = %v, want %v", id, err, want[id])
			}
			out[id] = rec
		}
		return out
	}
	cachedRecs := read(s)
	if p, u := s.cache.len(); p+u < 4 {
		t.Fatalf("%d pinned and %d other records cached; the test means to read from the cache", p, u)
	}
	checkCache(t, s)
	// The next writes use the cached rows (and queue the configs' deliveries).
	for _, id := range []string{"0", "1"} {
		r := cachedRecs[id]
		next := newTask(id, r.Task.GetStatus().GetState(), time.Hour)
		v := update(t, s, store.Update{Tenant: "T", Task: next, Expect: r.Version, Events: []*a2av1.StreamResponse{statusEvent(next)}})
		cachedRecs[id], _ = s.Task(ctx, "T", id)
		if cachedRecs[id].Version != v {
			t.Fatalf("task %s: version %d after writing version %d", id, cachedRecs[id].Version, v)
		}
	}
	checkCache(t, s)
	var queued int
	if err := s.rdb.QueryRow(`SELECT COUNT(*) FROM outbox WHERE task_id IN ('0', '1') AND id LIKE '%/3.0/%'`).Scan(&queued); err != nil || queued != 2 {
		t.Fatalf("deliveries queued by the writes: %d, %v; want 2 (the 2 configs of task 0)", queued, err)
	}
	fresh := openAt(t, path, append(opts, withCachedRecords(-1), WithSharedAccess())...)
	fromDB := read(fresh)
	for _, id := range ids {
		c, d := cachedRecs[id], fromDB[id]
		if c.Tenant != d.Tenant || c.Owner != d.Owner || c.Version != d.Version || c.Runner != d.Runner ||
			!c.LeaseUntil.Equal(d.LeaseUntil) || !proto.Equal(c.Task, d.Task) {
			t.Errorf("task %s: cached %+v, database %+v", id, c, d)
		}
	}
	if r := cachedRecs["0"]; r.Runner != "h/1/a" || !r.LeaseUntil.Equal(lease.Add(2*time.Hour)) {
		t.Errorf("renewed task: %+v", r)
	}
	if r := cachedRecs["4"]; r.Runner != "" || !r.LeaseUntil.IsZero() || r.Task.GetStatus().GetState() != completed {
		t.Errorf("completed task: %+v", r)
	}
}

// BenchmarkTaskUncached is BenchmarkTask with every read going to the
// database.
func BenchmarkTaskUncached(b *testing.B) {
	s := openTemp(b, withCachedRecords(-1))
	ctx := context.Background()
	if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask("t", working, 0)}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Task(ctx, "", "t"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// checkCache compares every cached row with the database; it runs in the
// writer (between writes, so nothing committed is missing from the cache).
func checkCache(t testing.TB, s *Store) {
	t.Helper()
	o := &checkCacheOp{}
	if err := s.submit(context.Background(), o); err != nil {
		if errors.Is(err, store.ErrClosed) {
			return
		}
		t.Fatalf("checking the cache: %v", err)
	}
	for _, e := range o.errs {
		t.Error(e)
	}
}

type checkCacheOp struct {
	opBase
	errs []error
}

func (o *checkCacheOp) what() string { return "checking the cache" }

func (o *checkCacheOp) apply(w *writer, _ int64) (error, error) {
	var entries []*cacheEntry
	for i := range w.s.cache.shards {
		sh := &w.s.cache.shards[i]
		sh.mu.Lock()
		for _, e := range sh.m {
			entries = append(entries, e)
		}
		sh.mu.Unlock()
	}
	for _, e := range entries {
		var (
			row     cached
			blob    []byte
			lease   sql.NullInt64
			endedAt sql.NullInt64
		)
		err := w.conn.QueryRowContext(context.Background(), sqlTask, e.key.tenant, e.key.id).Scan(&row.rec.Owner, &row.rec.Version, &row.rec.Generation, &blob,
			&row.rec.Runner, &lease, &endedAt, &row.pushes)
		if err != nil {
			o.errs = append(o.errs, fmt.Errorf("cached task %q/%q: reading the row: %w", e.key.tenant, e.key.id, err))
			continue
		}
		task, err := w.s.names.DecodeTask(e.key.id, row.rec.Generation, blob)
		if err != nil {
			return nil, err
		}
		c := e.c
		// A snapshot written without a generation (by these tests; the
		// server always stamps one) is cached as written and read with the
		// row's: the same task.
		if cached := c.rec.Task; cached.GetGeneration() == 0 {
			cached = proto.CloneOf(cached)
			cached.Generation = row.rec.Generation
			c.rec.Task = cached
		}
		if c.rec.Tenant != e.key.tenant || c.rec.Task.GetId() != e.key.id || c.rec.Owner != row.rec.Owner || c.rec.Version != row.rec.Version || c.rec.Generation != row.rec.Generation ||
			c.rec.Runner != row.rec.Runner || !c.rec.LeaseUntil.Equal(timeOf(lease)) || c.pushes != row.pushes ||
			c.ended != endedAt.Valid || c.endedAt != endedAt.Int64 && endedAt.Valid || !proto.Equal(c.rec.Task, task) {
			o.errs = append(o.errs, fmt.Errorf("cached task %q/%q differs from its row:\ncached %+v (ended %v at %d, %d configs)\nstored %+v (ended at %v, %d configs) lease %v",
				e.key.tenant, e.key.id, c.rec, c.ended, c.endedAt, c.pushes, row.rec, endedAt, row.pushes, timeOf(lease)))
		}
	}
	return nil, nil
}

// TestWriteChecksCachedRow: a write that takes the row from the cache
// checks it in its WHERE clause; were the cache wrong, the write still
// stores and reports what the database holds.
func TestWriteChecksCachedRow(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	lease := base.Add(time.Hour)
	create(t, s, store.Creation{Record: store.Record{Task: newTask("t1", working, 0), Owner: "o", Runner: "h/1/a", LeaseUntil: lease},
		PushConfigs: []store.PushConfig{cfg("t1", "p")}})
	for i, wrong := range []func(*cached){
		func(c *cached) { c.pushes = 0 },
		func(c *cached) { c.rec.Runner = "h/9/z" },
		func(c *cached) { c.rec.LeaseUntil = c.rec.LeaseUntil.Add(time.Second) },
		func(c *cached) { c.rec.Owner = "mallory" },
	} {
		s.cache.change("", "t1", wrong)
		cur, _ := s.cache.peek("", "t1")
		// Same status: the write would use the narrowest statement.
		next := newTask("t1", working, 0)
		next.Metadata = nil
		next.Artifacts = []*a2av1.Artifact{{ArtifactId: fmt.Sprint(i)}}
		v := update(t, s, store.Update{Task: next, Expect: cur.rec.Version, Events: []*a2av1.StreamResponse{statusEvent(next)}})
		checkCache(t, s)
		got, _ := s.Task(ctx, "", "t1")
		if got.Version != v || got.Owner != "o" || got.Runner != "h/1/a" || !got.LeaseUntil.Equal(lease) {
			t.Fatalf("write %d after a wrong cache entry: %+v", i, got)
		}
		var queued int
		if err := s.rdb.QueryRow(`SELECT COUNT(*) FROM outbox WHERE id LIKE ?`, fmt.Sprintf("t1/%d.0/%%", v)).Scan(&queued); err != nil || queued != 1 {
			t.Fatalf("write %d queued %d deliveries, %v; want 1", i, queued, err)
		}
	}
}
