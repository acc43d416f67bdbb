package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// TestInterruptedSweep: a sweep removes interrupted tasks past their TTL
// from the database, with their push configs, and keeps running ones.
func TestInterruptedSweep(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	var mu sync.Mutex
	now := base
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := openSchema(t, url, testSchema(t, url), WithRetention(store.Retention{InterruptedTaskTTL: time.Hour}), WithClock(clock))
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, inputReq, 0)},
			PushConfigs: []store.PushConfig{cfg(id, "p")}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask("run", working, 0)}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = base.Add(time.Hour + time.Second)
	mu.Unlock()
	if _, err := s.sweepAfterOthers(ctx); err != nil {
		t.Fatal(err)
	}
	var tasks, configs int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM push_configs)`).Scan(&tasks, &configs); err != nil {
		t.Fatal(err)
	}
	if tasks != 1 || configs != 0 {
		t.Fatalf("after the sweep: %d tasks, %d push configs stored; want 1 and 0", tasks, configs)
	}
}
