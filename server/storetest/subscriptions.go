package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// RunSubscriptions runs the conformance tests of store.Subscriptions.
func RunSubscriptions(t *testing.T, newStore func(t *testing.T) SubscriptionStore) {
	suite[SubscriptionStore]{
		{"SnapshotThenEvents", testSubscribeSnapshotThenEvents},
		{"IdenticalSequences", testSubscribeIdenticalSequences},
		{"AtomicUnderWrites", testSubscribeAtomicUnderWrites},
		{"EndsAtTerminal", testSubscribeEndsAtTerminal},
		{"TerminalTask", testSubscribeTerminalTask},
		{"Unknown", testSubscribeUnknown},
		{"Close", testSubscribeClose},
		{"Context", testSubscribeContext},
		{"NoEventsFromFailedWrites", testNoEventsFromFailedWrites},
		{"SlowSubscriberDropped", testSlowSubscriber},
		{"CreateSubscribed", testCreateSubscribed},
		{"CreateSubscribedExisting", testCreateSubscribedExisting},
		{"FollowOutcome", testFollowOutcome},
		{"Written", testWritten},
		{"Generation", testSubscribeGeneration},
		{"CreateSubscribedGeneration", testCreateSubscribedGeneration},
		{"EventLog", testEventLog},
		{"EventLogAfterCreation", testEventLogAfterCreation},
	}.run(t, newStore)
}

// collect reads a subscription until it ends.
func collect(t *testing.T, sub store.Subscription) []store.Event {
	t.Helper()
	var out []store.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatal("subscription did not end within 10s")
		}
	}
}

func testSubscribeSnapshotThenEvents(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", submitted, 0))
	t2 := next(rec.Task, working, time.Second)
	v2 := mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2)) // before the subscription: not delivered
	snap, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
	defer sub.Close()
	if snap.Version != v2 || !proto.Equal(snap.Task, t2) {
		t.Fatalf("Subscribe snapshot = %+v, want version %d", snap, v2)
	}
	t3 := next(t2, working, 2*time.Second)
	v3 := mustUpdate(t, s, "", t3, v2, statusEvent(t3), statusEvent(t3))
	t4 := next(t3, completed, 3*time.Second)
	v4 := mustUpdate(t, s, "", t4, v3, statusEvent(t4))
	evs := collect(t, sub)
	if len(evs) != 3 || evs[0].Version != v3 || evs[1].Version != v3 || evs[2].Version != v4 {
		t.Fatalf("got events %+v, want two at version %d then one at %d", evs, v3, v4)
	}
	if evs[2].Response.GetStatusUpdate().GetStatus().GetState() != completed {
		t.Fatalf("last event %v, want the COMPLETED update", evs[2].Response)
	}
	must(t, sub.Err(), "Err after a terminal state")
}

func testSubscribeIdenticalSequences(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	const subs, writes = 8, 40
	results := make([][]store.Event, subs)
	var wg sync.WaitGroup
	for i := range subs {
		_, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			for ev := range sub.Events() {
				results[i] = append(results[i], ev)
			}
		}()
	}
	cur, v := rec.Task, rec.Version
	for i := range writes {
		state := working
		if i == writes-1 {
			state = completed
		}
		nt := next(cur, state, time.Duration(i)*time.Millisecond)
		v = mustUpdate(t, s, "", nt, v, statusEvent(nt))
		cur = nt
	}
	wg.Wait()
	for i := range subs {
		if len(results[i]) != writes {
			t.Fatalf("subscriber %d got %d events, want %d", i, len(results[i]), writes)
		}
		for j := range results[i] {
			a, b := results[i][j], results[0][j]
			if a.Version != b.Version || !proto.Equal(a.Response, b.Response) {
				t.Fatalf("subscriber %d event %d differs from subscriber 0's", i, j)
			}
			if j > 0 && results[i][j].Version <= results[i][j-1].Version {
				t.Fatalf("subscriber %d: versions not increasing at event %d", i, j)
			}
		}
	}
}

func testSubscribeEndsAtTerminal(t *testing.T, s SubscriptionStore) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub := mustSubscribe(t, context.Background(), s, "", "t1", store.FollowEvents)
	done := next(rec.Task, canceled, time.Second)
	mustUpdate(t, s, "", done, rec.Version, statusEvent(done))
	if evs := collect(t, sub); len(evs) != 1 {
		t.Fatalf("got %d events, want the CANCELED update only", len(evs))
	}
	if sub.Err() != nil {
		t.Fatalf("Err = %v, want nil after a terminal state", sub.Err())
	}
	sub.Close() // idempotent after the end
}

func testSubscribeTerminalTask(t *testing.T, s SubscriptionStore) {
	mustCreate(t, s, "", "", newTask("t1", "c", completed, 0))
	rec, sub := mustSubscribe(t, context.Background(), s, "", "t1", store.FollowEvents)
	if rec.Task.GetStatus().GetState() != completed {
		t.Fatalf("snapshot state %v, want COMPLETED", rec.Task.GetStatus().GetState())
	}
	if evs := collect(t, sub); len(evs) != 0 || sub.Err() != nil {
		t.Fatalf("subscription of a terminal task gave %d events, Err %v; want an ended feed", len(evs), sub.Err())
	}
}

func testSubscribeUnknown(t *testing.T, s SubscriptionStore) {
	mustCreate(t, s, "A", "", newTask("t1", "c", working, 0))
	_, _, err := s.Subscribe(context.Background(), "", "nope", store.FollowEvents)
	wantErr(t, "Subscribe(unknown)", err, store.ErrNotFound)
	_, _, err = s.Subscribe(context.Background(), "B", "t1", store.FollowEvents)
	wantErr(t, "Subscribe to another tenant's task", err, store.ErrNotFound)
}

func testSubscribeClose(t *testing.T, s SubscriptionStore) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub := mustSubscribe(t, context.Background(), s, "", "t1", store.FollowEvents)
	sub.Close()
	sub.Close()
	collect(t, sub) // must be closed
	nt := next(rec.Task, working, time.Second)
	mustUpdate(t, s, "", nt, rec.Version, statusEvent(nt)) // no subscriber left to block or panic
}

func testSubscribeContext(t *testing.T, s SubscriptionStore) {
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	ctx, cancel := context.WithCancel(context.Background())
	_, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
	defer sub.Close()
	cancel()
	collect(t, sub)
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Fatalf("Err after the context was canceled = %v, want context.Canceled", sub.Err())
	}
}

func testNoEventsFromFailedWrites(t *testing.T, s SubscriptionStore) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub := mustSubscribe(t, context.Background(), s, "", "t1", store.FollowEvents)
	bad := next(rec.Task, working, time.Second)
	if _, err := s.UpdateTask(context.Background(), store.Update{Task: bad, Expect: rec.Version + 7, Events: []*a2av1.StreamResponse{statusEvent(bad)}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale write: %v, want ErrConflict", err)
	}
	done := next(rec.Task, completed, time.Second)
	mustUpdate(t, s, "", done, rec.Version, statusEvent(done))
	evs := collect(t, sub)
	if len(evs) != 1 || evs[0].Response.GetStatusUpdate().GetStatus().GetState() != completed {
		t.Fatalf("got %d events, want only the COMPLETED one (the failed write publishes nothing)", len(evs))
	}
}

// testSlowSubscriber checks the overflow policy: a subscriber that never
// reads is dropped with ErrSlowSubscriber while the writer keeps going and a
// reading subscriber receives everything.
func testSlowSubscriber(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, slow := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
	defer slow.Close()
	_, fast := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
	// The writer waits for the reading subscriber after every event (so
	// that only the stalled one can fall behind), never for the stalled one.
	got, ack := make(chan int, 1), make(chan struct{}, 1)
	go func() {
		n := 0
		for range fast.Events() {
			n++
			ack <- struct{}{}
		}
		got <- n
	}()
	waitAck := func() {
		select {
		case <-ack:
		case <-time.After(10 * time.Second):
			t.Fatal("the reading subscriber stopped receiving")
		}
	}
	const maxWrites = 100000
	cur, v, writes := rec.Task, rec.Version, 0
	for writes < maxWrites && slow.Err() == nil {
		nt := newTask("t1", "c", working, time.Duration(writes)*time.Microsecond)
		v = mustUpdate(t, s, "", nt, v, statusEvent(nt))
		cur = nt
		writes++
		waitAck()
	}
	if !errors.Is(slow.Err(), store.ErrSlowSubscriber) {
		t.Fatalf("after %d unread events the slow subscriber's Err is %v, want ErrSlowSubscriber", writes, slow.Err())
	}
	collect(t, slow) // its channel must be closed after the buffered events
	done := next(cur, completed, time.Hour)
	mustUpdate(t, s, "", done, v, statusEvent(done))
	waitAck()
	select {
	case n := <-got:
		if n != writes+1 {
			t.Fatalf("the reading subscriber got %d events, want all %d", n, writes+1)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reading subscriber did not finish")
	}
}

// testSubscribeAtomicUnderWrites subscribes again and again while a writer
// keeps changing the task: every subscription must continue exactly where
// its snapshot ends, with no gap and no repeat. Write i stamps the status
// with i milliseconds, so the sequence is visible in the events themselves.
func testSubscribeAtomicUnderWrites(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	const writes = 300
	stamp := func(ts interface{ AsTime() time.Time }) int64 { return ts.AsTime().Sub(base).Milliseconds() }
	done := make(chan struct{})
	var written atomic.Int64
	go func() {
		defer close(done)
		v := rec.Version
		for i := 1; i <= writes; i++ {
			written.Store(int64(i - 1))
			state := working
			if i == writes {
				state = completed
			}
			nt := newTask("t1", "c", state, time.Duration(i)*time.Millisecond)
			var err error
			if v, err = s.UpdateTask(ctx, store.Update{Task: nt, Expect: v, Events: []*a2av1.StreamResponse{statusEvent(nt)}}); err != nil {
				t.Errorf("write %d: %v", i, err)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := int64(0); ; i++ {
		// At most about two subscriptions per write: enough to land
		// between any two writes, without a pile of subscribers that
		// each replay every later write (quadratic on a slow store).
		for i > 2*written.Load()+2 {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
		select {
		case <-done:
			return
		default:
		}
		snap, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			want, version := stamp(snap.Task.GetStatus().GetTimestamp())+1, snap.Version
			for ev := range sub.Events() {
				got := stamp(ev.Response.GetStatusUpdate().GetStatus().GetTimestamp())
				if got != want || ev.Version <= version {
					t.Errorf("subscription after write %d (version %d): got write %d (version %d), want write %d",
						want-1, snap.Version, got, ev.Version, want)
					return
				}
				want, version = want+1, ev.Version
			}
			if err := sub.Err(); err != nil && !errors.Is(err, store.ErrSlowSubscriber) {
				t.Errorf("subscription ended with %v", err)
			} else if err == nil && want != writes+1 && !terminalRecord(snap) {
				t.Errorf("subscription after write %d ended at write %d without the terminal one", stamp(snap.Task.GetStatus().GetTimestamp()), want-1)
			}
		}()
	}
}

// terminalRecord reports whether rec's task is terminal.
func terminalRecord(rec store.Record) bool { return store.IsTerminal(rec.Task.GetStatus().GetState()) }

func testSubscriptionsEndOnStoreClose(t *testing.T, s store.Store) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub := mustSubscribe(t, context.Background(), s, "", "t1", store.FollowEvents)
	must(t, s.Close(), "Close")
	collect(t, sub)
	if !errors.Is(sub.Err(), store.ErrClosed) {
		t.Fatalf("subscription Err after the store closed = %v, want ErrClosed", sub.Err())
	}
	must(t, s.Close(), "second Close")
	wantErr(t, "Task after Close", errOf(s.Task(context.Background(), "", "t1")), store.ErrClosed)
	wantErr(t, "UpdateTask after Close", errOf(s.UpdateTask(context.Background(), store.Update{Task: next(rec.Task, working, time.Second), Expect: rec.Version})), store.ErrClosed)
}
