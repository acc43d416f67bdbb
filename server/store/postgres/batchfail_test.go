package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// poison submits a write the database refuses the way it refuses a NUL
// byte in a text column (invalid byte sequence for encoding "UTF8"): the
// statement fails inside whatever batch it lands in.
func poison(ctx context.Context, s *Store, notifies bool) error {
	o := &writeOp{key: topicKey{"", "poison"}, what: "poisoned write", notifies: notifies,
		sql: "SELECT length($1::text)::bigint, 0::bigint, 0::bigint", args: []any{"a\x00b"}}
	if err := s.w.submit(ctx, o); err != nil {
		return err
	}
	return o.err
}

// TestBatchedWriteErrors: writes that the database refuses are batched
// with good ones, creations and updates together, from many goroutines,
// on one writer per queue (so batches are shared). A refused write always
// fails, alone: every good write succeeds the first time, and is stored
// and published exactly. Subscribers of the good tasks see each event
// once, in order.
func TestBatchedWriteErrors(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	s := openTemp(t, withWriters(1, 64))
	ctx := context.Background()
	const tasks, rounds = 16, 6
	subs := make([]store.Subscription, tasks)
	versions := make([]int64, tasks)
	for i := range tasks {
		id := fmt.Sprintf("t%d", i)
		versions[i] = create(t, s, store.Creation{Record: store.Record{Task: newTask(id, working, 0)}}).Version
		_, sub, err := s.Subscribe(ctx, "", id, store.FollowEvents)
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = sub
	}
	var wg sync.WaitGroup
	for i := range tasks {
		wg.Add(2)
		go func() { // poisoned writes on both queues, while the good ones run
			defer wg.Done()
			for r := range 4 * rounds {
				if err := poison(ctx, s, r%2 == 0); err == nil || !strings.Contains(err.Error(), "poisoned write") {
					t.Errorf("poisoned write: %v; want its own database error", err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("t%d", i)
			for r := 1; r <= rounds; r++ {
				good := fmt.Sprintf("good-%d-%d", i, r)
				if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(good, completed, 0)}}); err != nil {
					t.Errorf("creating %s next to poisoned writes: %v", good, err)
				}
				nt := newTask(id, working, time.Duration(r)*time.Millisecond)
				u := store.Update{Task: nt, Expect: versions[i], Events: []*a2av1.StreamResponse{statusEvent(nt)}}
				v, err := s.UpdateTask(ctx, u)
				if err != nil {
					t.Errorf("update %d of %s next to poisoned writes: %v", r, id, err)
					return
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
	st := s.Stats()
	t.Logf("batches %d, rolled back %d, sent again without the refused write %d", st.Batches, st.RolledBack, st.Isolated)
	if st.Isolated == 0 {
		t.Errorf("no poisoned write shared a batch with good ones (stats %+v): the test proved nothing", st)
	}
	for i := range tasks {
		for r := 1; r <= rounds; r++ {
			if _, err := s.Task(ctx, "", fmt.Sprintf("good-%d-%d", i, r)); err != nil {
				t.Errorf("good-%d-%d: %v", i, r, err)
			}
		}
	}
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
