package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
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
