package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TestBatchedWriteErrors: writes that the database refuses (a tenant with
// a NUL byte is not valid text) are batched with good ones, creations and
// updates together, from many goroutines. A refused write always fails;
// a good write either succeeds, and is stored and published exactly, or
// fails with its batch and left nothing behind, so that it can be made
// again. Subscribers of the good tasks see each event once, in order.
func TestBatchedWriteErrors(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	const tasks, rounds = 16, 6
	subs := make([]store.Subscription, tasks)
	versions := make([]int64, tasks)
	for i := range tasks {
		id := fmt.Sprintf("t%d", i)
		versions[i] = create(t, s, store.Creation{Record: store.Record{Task: newTask(id, working, 0)}}).Version
		_, sub, err := s.Subscribe(ctx, "", id)
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = sub
	}
	var wg sync.WaitGroup
	var batchFailures sync.Map
	for i := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("t%d", i)
			for r := 1; r <= rounds; r++ {
				// A refused creation and a refused update, next to this
				// task's good writes.
				bad := fmt.Sprintf("bad-%d-%d", i, r)
				if _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Tenant: "x\x00", Task: newTask(bad, submitted, 0)}}); err == nil {
					t.Errorf("creating %s in an invalid tenant succeeded", bad)
				}
				if _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(bad, completed, 0)}}); err != nil {
					batchFailures.Store(bad, err)
					if _, err := s.Task(ctx, "", bad); err == nil {
						t.Errorf("creation of %s failed but the task exists", bad)
					}
				}
				nt := newTask(id, working, time.Duration(r)*time.Millisecond)
				u := store.Update{Task: nt, Expect: versions[i], Events: []*a2av1.StreamResponse{statusEvent(nt)}}
				if _, err := s.UpdateTask(ctx, store.Update{Tenant: "y\x00", Task: nt, Expect: 1}); err == nil {
					t.Errorf("an update in an invalid tenant succeeded")
				}
				v, err := s.UpdateTask(ctx, u)
				for err != nil { // failed with its batch: nothing written, try again
					batchFailures.Store(fmt.Sprintf("%s@%d", id, r), err)
					if rec, rerr := s.Task(ctx, "", id); rerr != nil || rec.Version != versions[i] {
						t.Errorf("update of %s failed (%v) but the task is at %d, %v; want %d", id, err, rec.Version, rerr, versions[i])
						return
					}
					v, err = s.UpdateTask(ctx, u)
				}
				versions[i] = v
			}
			done := newTask(id, completed, time.Hour)
			if _, err := s.UpdateTask(ctx, store.Update{Task: done, Expect: versions[i], Events: []*a2av1.StreamResponse{statusEvent(done)}}); err != nil {
				t.Errorf("completing %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	n := 0
	batchFailures.Range(func(k, v any) bool { n++; return true })
	t.Logf("good writes failed with their batch (and were made again): %d", n)
	for i, sub := range subs {
		evs := collect(t, sub)
		if len(evs) != rounds+1 {
			t.Fatalf("subscriber of t%d got %d events; want %d", i, len(evs), rounds+1)
		}
		for j, ev := range evs {
			if ev.Version != int64(j+2) {
				t.Fatalf("subscriber of t%d: event %d at version %d; want %d", i, j, ev.Version, j+2)
			}
		}
	}
}
