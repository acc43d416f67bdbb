package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storetest"
)

func TestConformance(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"cache", nil},
		// Every read misses: the SQL paths alone.
		{"nocache", []Option{withCachedRecords(-1)}},
		// One record per shard: evictions and misses all the time.
		{"tinycache", []Option{withCachedRecords(cacheShards)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := storetest.Run
			if c.opts == nil {
				// The default configuration runs through store.Wrap: the
				// wrapper forwards every call unchanged, so this one run
				// proves the store's contract and that a wrapped store
				// keeps all of it.
				run = storetest.RunWrapped
			}
			run(t, func(t *testing.T) store.Store {
				// Shared access: the suite's StaleRuns contract is the
				// one every store keeps (lease, or a dead process on this
				// host); with its file locked the store also takes other
				// processes' runners for gone (TestStaleRunsOfOtherProcesses).
				s, err := Open(t.Context(), filepath.Join(t.TempDir(), "agent.db"), append([]Option{WithSharedAccess()}, c.opts...)...)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				t.Cleanup(func() { s.Close() })
				// At the end of every test, the cache holds what the
				// database holds.
				t.Cleanup(func() { checkCache(t, s) })
				t.Cleanup(func() { checkCounts(t, s) })
				return s
			})
		})
	}
}

func TestInterruptedRetentionConformance(t *testing.T) {
	storetest.RunInterruptedRetention(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "agent.db"), WithRetention(store.Retention{InterruptedTaskTTL: storetest.InterruptedTTL}), WithClock(clock.Now))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		t.Cleanup(func() { checkCache(t, s) })
		t.Cleanup(func() { checkCounts(t, s) })
		return s
	})
}

// checkCounts fails t unless the counts the triggers of migration 5 keep
// (listing totals) are those of the tasks stored: every row of
// task_counts and context_counts, none missing, none extra; and the same
// of owner_counts, which is empty while the store does not keep it.
func checkCounts(t *testing.T, s *Store) {
	t.Helper()
	if s.checkOpen() != nil {
		return // the test closed it
	}
	for _, c := range []struct{ kept, actual string }{
		{`SELECT tenant, owner, '', n FROM task_counts`, `SELECT tenant, owner, '', COUNT(*) FROM tasks GROUP BY tenant, owner`},
		{`SELECT tenant, owner, context_id, n FROM context_counts`, `SELECT tenant, owner, context_id, COUNT(*) FROM tasks GROUP BY tenant, owner, context_id`},
		// Per-owner retention (migration 9): terminal and interrupted
		// tasks, and their bytes, in one string; none while the store
		// does not keep them (owner_counts.go).
		{`SELECT '', owner, ended || '/' || waiting || '/' || bytes, 0 FROM owner_counts`,
			`SELECT '', owner, SUM(ended_at IS NOT NULL) || '/' || SUM(state IN (6, 8)) || '/' || SUM(length(snapshot)), 0 FROM tasks
			WHERE (ended_at IS NOT NULL OR state IN (6, 8)) AND (` + sqlOwnerCountObjects + `) = ` + fmt.Sprint(ownerCountObjects) + ` GROUP BY owner`},
	} {
		var kept, actual []string
		for _, x := range []struct {
			q   string
			out *[]string
		}{{c.kept + ` ORDER BY 1, 2, 3`, &kept}, {c.actual + ` ORDER BY 1, 2, 3`, &actual}} {
			rows, err := s.rdb.Query(x.q)
			if err != nil {
				t.Fatalf("%s: %v", x.q, err)
			}
			for rows.Next() {
				var a, b, c2 any
				var n int64
				if err := rows.Scan(&a, &b, &c2, &n); err != nil {
					t.Fatal(err)
				}
				*x.out = append(*x.out, fmt.Sprintf("%v/%v/%v=%d", a, b, c2, n))
			}
			rows.Close()
		}
		if !slices.Equal(kept, actual) {
			t.Errorf("counts kept %v, tasks stored %v", kept, actual)
		}
	}
}

// TestOwnerRetentionConformance: the cap on terminal tasks spares the
// owners that did not fill it, and the caps of one owner (count of terminal
// and of interrupted tasks, bytes) hold as in the memory store, with the
// TTLs on or off.
func TestOwnerRetentionConformance(t *testing.T) {
	for _, ttls := range []bool{false, true} {
		newStore := func(t *testing.T, caps storetest.OwnerCaps) store.Store {
			r := store.Retention{MaxTerminalTasks: caps.MaxTerminal, MaxTerminalTasksPerOwner: caps.MaxTerminalPerOwner,
				MaxInterruptedTasksPerOwner: caps.MaxInterruptedPerOwner, MaxBytesPerOwner: caps.MaxBytesPerOwner}
			if ttls {
				// The tasks' status times are in the past.
				r.TerminalTaskTTL, r.InterruptedTaskTTL = time.Hour, 100*365*24*time.Hour
			}
			s, err := Open(t.Context(), filepath.Join(t.TempDir(), "agent.db"), WithRetention(r))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			t.Cleanup(func() { checkCache(t, s) })
			t.Cleanup(func() { checkCounts(t, s) })
			return s
		}
		t.Run(fmt.Sprint("ttls=", ttls), func(t *testing.T) {
			storetest.RunOwnerRetention(t, newStore)
			storetest.RunOwnerCaps(t, newStore)
			storetest.RunOwnerBytes(t, newStore)
		})
	}
}
