package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storetest"
)

// TestRetentionSparesOtherOwners: over Retention.MaxTerminalTasks the sweep
// removes the oldest terminal tasks of the owner holding the most, so a
// flood of anonymous tasks (the empty owner: anonymous callers together)
// removes no task of two authenticated owners that ended before it (before,
// the oldest of all went: every one of theirs); then, once an owner holds
// the most, its own go.
func TestRetentionSparesOtherOwners(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	ctx := context.Background()
	const limit = 1000
	clock := &testClock{now: time.Now()}
	// No sweep of the store's own: one running while alice's tasks are
	// written may find two owners alike (no one over 512) and take the
	// oldest of all, bob's among them — the designed bound on what a flood
	// takes from others, but not what this test measures.
	s := openTemp(t, WithRetention(store.Retention{MaxTerminalTasks: limit}), WithClock(clock.Now),
		func(o *options) { o.noSweepLoop = true })
	end := func(owner, id string) {
		t.Helper()
		rec := create(t, s, store.Creation{Record: store.Record{Owner: owner, Task: newTask(id, working, 0)}})
		clock.Advance(time.Millisecond)
		update(t, s, store.Update{Task: newTask(id, completed, time.Second), Expect: rec.Version})
	}
	for _, owner := range []string{"alice", "bob"} {
		for i := range 3 {
			end(owner, fmt.Sprintf("%s-%d", owner, i))
		}
	}
	for i := range limit + 1 {
		clock.Advance(time.Millisecond)
		create(t, s, store.Creation{Record: store.Record{Task: newTask(fmt.Sprintf("anon-%d", i), completed, 0)}})
	}
	if n, err := s.sweep(ctx); err != nil || n != 7 {
		t.Fatalf("sweep removed %d, %v; want 7", n, err)
	}
	var terminal int
	if err := s.pool.QueryRow(ctx, sqlCountTerminal).Scan(&terminal); err != nil || terminal != limit {
		t.Fatalf("%d terminal tasks after the sweep, %v; want %d", terminal, err, limit)
	}
	kept := func(id string, want bool) {
		t.Helper()
		_, err := s.Task(ctx, "", id)
		if want && err != nil || !want && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("task %s: %v; want kept = %v", id, err, want)
		}
	}
	for _, owner := range []string{"alice", "bob"} {
		for i := range 3 {
			kept(fmt.Sprintf("%s-%d", owner, i), true)
		}
	}
	for i := range 7 {
		kept(fmt.Sprintf("anon-%d", i), false)
	}
	kept("anon-7", true)
	// The largest owner is whoever holds the most: past 1,000, alice's
	// own oldest go.
	for i := range limit {
		end("alice", fmt.Sprintf("alice-more-%d", i))
	}
	if _, err := s.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	kept("bob-0", true)
	kept(fmt.Sprintf("alice-more-%d", limit-1), true)
	if err := s.pool.QueryRow(ctx, sqlCountTerminal).Scan(&terminal); err != nil || terminal > limit {
		t.Fatalf("%d terminal tasks after the sweep, %v; want at most %d", terminal, err, limit)
	}
}

// TestOwnerCapsConformance: the caps of one owner (count of terminal and
// of interrupted tasks, bytes) hold as in the memory store once a write
// returns, on one store and on two replicas sharing a schema that take
// turns writing (each enforcing after its own writes); with the cap on
// all terminal tasks, the flood of one owner (storetest.RunOwnerRetention)
// removes only its own once the sweep has run.
func TestOwnerCapsConformance(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	retention := func(caps storetest.OwnerCaps) Option {
		return WithRetention(store.Retention{MaxTerminalTasks: caps.MaxTerminal, MaxTerminalTasksPerOwner: caps.MaxTerminalPerOwner,
			MaxInterruptedTasksPerOwner: caps.MaxInterruptedPerOwner, MaxBytesPerOwner: caps.MaxBytesPerOwner})
	}
	one := func(t *testing.T, caps storetest.OwnerCaps) store.Store {
		s := openSchema(t, url, testSchema(t, url), retention(caps))
		t.Cleanup(func() { checkOwnerCounts(t, s) })
		return s
	}
	two := func(t *testing.T, caps storetest.OwnerCaps) store.Store {
		schema := testSchema(t, url)
		a := openSchema(t, url, schema, retention(caps))
		t.Cleanup(func() { checkOwnerCounts(t, a) })
		return &alternating{Store: a, other: openSchema(t, url, schema, retention(caps))}
	}
	for name, newStore := range map[string]func(*testing.T, storetest.OwnerCaps) store.Store{"one": one, "replicas": two} {
		t.Run(name, func(t *testing.T) {
			storetest.RunOwnerCaps(t, newStore)
			storetest.RunOwnerBytes(t, newStore)
		})
	}
	t.Run("flood", func(t *testing.T) {
		storetest.RunOwnerRetention(t, func(t *testing.T, caps storetest.OwnerCaps) store.Store {
			return &sweptFirst{one(t, caps).(*Store)}
		})
	})
}

// alternating is two replicas of one schema: writes take turns between
// them, reads go to the first.
type alternating struct {
	store.Store
	other store.Store
	n     atomic.Int64
}

func (r *alternating) next() store.Store {
	if r.n.Add(1)%2 == 0 {
		return r.other
	}
	return r.Store
}

func (r *alternating) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	return r.next().CreateTask(ctx, c)
}

func (r *alternating) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	return r.next().UpdateTask(ctx, u)
}

// sweptFirst is a store whose reads wait for a retention sweep first: what
// the cap on all terminal tasks (enforced by the sweep, within a second)
// leaves once it has run.
type sweptFirst struct{ *Store }

func (s *sweptFirst) Task(ctx context.Context, tenant, id string) (store.Record, error) {
	if _, err := s.sweepAfterOthers(ctx); err != nil {
		return store.Record{}, err
	}
	return s.Store.Task(ctx, tenant, id)
}

// checkOwnerCounts fails t unless the per-owner counts (migration 8,
// summed over their shards) are those of the tasks stored.
func checkOwnerCounts(t *testing.T, s *Store) {
	t.Helper()
	if s.checkOpen() != nil {
		return
	}
	ctx := context.Background()
	var diff []string
	rows, err := s.pool.Query(ctx, `WITH kept AS (
	SELECT owner, sum(ended)::bigint AS ended, sum(waiting)::bigint AS waiting, sum(bytes)::bigint AS bytes FROM owner_counts GROUP BY owner
	HAVING sum(ended) <> 0 OR sum(waiting) <> 0 OR sum(bytes) <> 0
), actual AS (
	SELECT owner, count(*) FILTER (WHERE ended_at IS NOT NULL) AS ended, count(*) FILTER (WHERE state IN (6, 8)) AS waiting,
		sum(octet_length(snapshot))::bigint AS bytes
	FROM tasks WHERE ended_at IS NOT NULL OR state IN (6, 8) GROUP BY owner
)
SELECT coalesce(k.owner, a.owner), format('%s/%s/%s', k.ended, k.waiting, k.bytes), format('%s/%s/%s', a.ended, a.waiting, a.bytes)
FROM kept k FULL JOIN actual a ON a.owner = k.owner
WHERE k IS DISTINCT FROM a`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var owner, kept, actual string
		if err := rows.Scan(&owner, &kept, &actual); err != nil {
			t.Fatal(err)
		}
		diff = append(diff, fmt.Sprintf("owner %q: counted %s, stored %s", owner, kept, actual))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(diff) > 0 {
		t.Errorf("per-owner counts differ from the tasks stored: %v", diff)
	}
}
