package storetest

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/server/store"
)

// The subscriptions a server makes for the caller of a new message: one
// made in the call that creates the task, and one that follows only the
// outcome.

// testCreateSubscribed: the creating call's subscription starts at the
// created record and receives every later write exactly once, in order;
// without a subscriber, CreateTask returns no subscription.
func testCreateSubscribed(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	if _, sub, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask("plain", "c", submitted, 0)}}); err != nil || sub != nil {
		t.Fatalf("CreateTask without a subscriber = %v, %v; want no subscription, no error", sub, err)
	}
	for _, f := range []store.Follow{store.FollowEvents, store.FollowOutcome} {
		id := map[store.Follow]string{store.FollowEvents: "events", store.FollowOutcome: "outcome"}[f]
		task := newTask(id, "c", submitted, 0)
		rec, sub := mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Tenant: "T", Owner: "o", Task: task},
			Subscriber: &store.Subscriber{Ctx: ctx, Follow: f}})
		if sub == nil {
			t.Fatalf("CreateTask(%s) with a subscriber returned no subscription", id)
		}
		if rec.Version != 1 || rec.Owner != "o" || rec.Tenant != "T" || !proto.Equal(rec.Task, task) {
			t.Fatalf("CreateTask(%s) with a subscriber: record = %+v, want the created task at version 1", id, rec)
		}
		t2 := next(task, working, time.Second)
		v2 := mustUpdate(t, s, "T", t2, rec.Version, statusEvent(t2))
		t3 := next(t2, completed, 2*time.Second)
		v3 := mustUpdate(t, s, "T", t3, v2, statusEvent(t3))
		evs := collect(t, sub)
		if len(evs) != 2 || evs[0].Version != v2 || evs[1].Version != v3 {
			t.Fatalf("CreateTask(%s) with a subscriber: events %+v, want one at version %d, one at %d", id, evs, v2, v3)
		}
		must(t, sub.Err(), "CreateTask(%s) with a subscriber: Err after the terminal state", id)
	}
}

// testCreateSubscribedExisting: a creation that fails returns CreateTask's
// error and no subscription.
func testCreateSubscribedExisting(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	rec, sub, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask("t1", "c", submitted, time.Second)},
		Subscriber: &store.Subscriber{Ctx: ctx}})
	wantErr(t, "CreateTask of an existing id with a subscriber", err, store.ErrExists)
	if sub != nil || rec.Task != nil {
		t.Fatalf("failed CreateTask returned record %+v and subscription %v, want neither", rec, sub)
	}
}

// testFollowOutcome: an outcome subscriber has room for at least
// store.OutcomeSubscriberBuffer events, and receives the terminal one.
func testFollowOutcome(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowOutcome)
	defer sub.Close()
	cur, v := rec.Task, rec.Version
	for i := range store.OutcomeSubscriberBuffer {
		state := working
		if i == store.OutcomeSubscriberBuffer-1 {
			state = completed
		}
		cur = next(cur, state, time.Duration(i+1)*time.Second)
		v = mustUpdate(t, s, "", cur, v, statusEvent(cur))
	}
	evs := collect(t, sub)
	if len(evs) != store.OutcomeSubscriberBuffer || evs[len(evs)-1].Version != v {
		t.Fatalf("outcome subscriber got %d events, want %d ending at version %d", len(evs), store.OutcomeSubscriberBuffer, v)
	}
	must(t, sub.Err(), "Err after the terminal state")
}

// testWritten: a subscription tells the snapshot of a write it received
// only as that write stored it, and nothing for versions it did not
// receive.
func testWritten(t *testing.T, s SubscriptionStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	_, sub := mustSubscribe(t, ctx, s, "", "t1", store.FollowEvents)
	defer sub.Close()
	done := next(rec.Task, completed, time.Second)
	v := mustUpdate(t, s, "", done, rec.Version, statusEvent(done))
	evs := collect(t, sub)
	if len(evs) != 1 || evs[0].Version != v {
		t.Fatalf("got events %+v, want one at version %d", evs, v)
	}
	if got := sub.Written(v); got != nil && !proto.Equal(got, done) {
		t.Fatalf("Written(%d) = %v, want nil or the COMPLETED snapshot", v, got)
	}
	if got := sub.Written(v + 1); got != nil {
		t.Fatalf("Written(%d), a version never written, = %v, want nil", v+1, got)
	}
}
