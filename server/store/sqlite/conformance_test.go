package sqlite

import (
	"path/filepath"
	"testing"

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
			storetest.Run(t, func(t *testing.T) store.Store {
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
				return s
			})
		})
	}
}

func TestInterruptedRetentionConformance(t *testing.T) {
	storetest.RunInterruptedRetention(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "agent.db"), WithInterruptedTaskTTL(storetest.InterruptedTTL), WithClock(clock.Now))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		t.Cleanup(func() { checkCache(t, s) })
		return s
	})
}
