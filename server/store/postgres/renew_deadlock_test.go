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

// TestRenewDoesNotDeadlockWithWrites renews the leases of a runner's tasks
// over and over while those tasks are written concurrently (in group-commit
// batches that lock several task rows): the renewal must lock the rows in
// the batches' order, or PostgreSQL breaks a deadlock by failing one side —
// a whole batch of task writes.
func TestRenewDoesNotDeadlockWithWrites(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	s := openTemp(t)
	ctx := context.Background()
	const runner, workers, perWorker = "host/1/n/1", 16, 4
	for i := range workers * perWorker {
		// Ids in an order unlike the rows' physical order after updates.
		id := fmt.Sprintf("t%03d", (i*37)%(workers*perWorker))
		create(t, s, store.Creation{Record: store.Record{Task: newTask(id, working, 0), Runner: runner, LeaseUntil: base.Add(time.Hour)}})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for w := range workers {
		wg.Go(func() {
			versions := make([]int64, perWorker)
			for i := range versions {
				versions[i] = 1
			}
			for n := 1; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				i := n % perWorker
				id := fmt.Sprintf("t%03d", w*perWorker+i)
				task := newTask(id, working, time.Duration(n)*time.Millisecond)
				v, err := s.UpdateTask(ctx, store.Update{Task: task, Expect: versions[i], Events: []*a2av1.StreamResponse{statusEvent(task)}})
				if err != nil {
					errs <- fmt.Errorf("UpdateTask(%s): %w", id, err)
					return
				}
				versions[i] = v
			}
		})
	}
	renewals := 0
	wg.Go(func() {
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.RenewRuns(ctx, runner, base.Add(time.Hour+time.Duration(n)*time.Second)); err != nil {
				errs <- fmt.Errorf("RenewRuns: %w", err)
				return
			}
			renewals++
		}
	})
	select {
	case err := <-errs:
		close(stop)
		wg.Wait()
		t.Fatal(err)
	case <-time.After(3 * time.Second):
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	st := s.Stats()
	t.Logf("%d renewals, %d writes in %d batches", renewals, st.Writes, st.Batches)
}
