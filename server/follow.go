package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// follower serves the callers that follow a task: subscriptions to its
// events, blocking calls waiting until it settles (here), long-polls
// waiting for its generation to pass theirs (longpoll.go), and streams
// relaying its events (relay.go) — within the stream caps (limits.go) —
// until Shutdown ends them.
type follower struct {
	store store.Store
	owned bool // WithTaskOwner is set: streams count against owners

	// limits.go; 0 means no limit.
	maxStreams, maxCallerStreams, maxAnonStreams int
	maxSubscriberBytes                           int64
	streamSlots                                  streamSlots

	// longPollHold is how long a long-poll is held (longpoll.go; 0: the
	// default, < 0: not at all).
	longPollHold time.Duration

	// ending is closed by Shutdown once the executions have returned (or
	// its deadline passed): open streams and waiting calls then end with
	// the task's latest state (relay.go). streams counts the open streams;
	// none is added once streamsEnded is set (under mu).
	mu           sync.Mutex
	ending       chan struct{}
	endOnce      sync.Once
	streams      sync.WaitGroup
	streamsEnded bool
}

// follow is what the caller of a message follows of its task once started.
type follow uint8

// subscribe subscribes to a task's events for a caller that follows f. One
// that only waits for the outcome may get a small buffer from the store
// (store.FollowOutcome): waitSettled subscribes again when it is dropped as
// slow.
func (fw *follower) subscribe(ctx context.Context, tenant, id string, f follow) (store.Record, store.Subscription, error) {
	return fw.store.Subscribe(fw.budgeted(ctx), tenant, id, f.store())
}

// store is how the store is asked to feed a caller that follows f.
func (f follow) store() store.Follow {
	if f == followOutcome {
		return store.FollowOutcome
	}
	return store.FollowEvents
}

// isSettled reports whether a blocking SendMessage may return: the task is
// terminal or waits for the client.
func isSettled(s a2av1.TaskState) bool { return store.IsTerminal(s) || store.IsInterrupted(s) }

// waitSettled waits, on sub, until the task is terminal or interrupted and
// returns its latest record. A subscription dropped for lagging is renewed.
func (fw *follower) waitSettled(c *call, rec store.Record, sub store.Subscription) (store.Record, error) {
	key := c.key(rec.Task.GetId())
	for {
		if state := rec.Task.GetStatus().GetState(); isSettled(state) {
			if sub != nil { // a task created terminal comes without one
				sub.Close()
			}
			if store.IsTerminal(state) { // it never changes again
				return rec, nil
			}
			return fw.latest(c, key, rec), nil
		}
		if out, done, err := fw.awaitSettled(c, key, rec, sub); done {
			return out, err
		}
		err := sub.Err()
		if !errors.Is(err, store.ErrSlowSubscriber) {
			return fw.subscriptionEnded(c, key, rec, err)
		}
		var serr error
		if rec, sub, serr = fw.subscribe(c.ctx, key.tenant, key.id, followOutcome); serr != nil {
			return store.Record{}, internalError("subscribing to the task again", serr)
		}
	}
}

// awaitSettled takes the events of sub until one settles the task, the
// client leaves or Shutdown ends waiting calls (done: the call answers
// out or err), or until the subscription ends (not done).
func (fw *follower) awaitSettled(c *call, key taskKey, rec store.Record, sub store.Subscription) (out store.Record, done bool, err error) {
	for {
		select {
		case ev, ok := <-sub.Events():
			ev.Taken()
			if !ok {
				return store.Record{}, false, nil
			}
			if st := ev.Response.GetStatusUpdate(); st != nil && isSettled(st.GetStatus().GetState()) {
				sub.Close()
				if t := sub.Written(ev.Version); t != nil {
					return settledAt(rec, ev.Version, t), true, nil
				}
				return fw.latest(c, key, rec), true, nil
			}
		case <-c.ctx.Done():
			sub.Close()
			return store.Record{}, true, fmt.Errorf("server: the client left while waiting for the task: %w", c.ctx.Err())
		case <-fw.ending:
			// Shutdown: the task as it is now (it runs elsewhere, or its
			// execution ignored the cancel).
			sub.Close()
			return fw.latest(c, key, rec), true, nil
		}
	}
}

// subscriptionEnded answers a waiting call whose subscription ended with
// err (other than for lagging): the task as it is now when the
// subscription simply ended, else the error.
func (fw *follower) subscriptionEnded(c *call, key taskKey, rec store.Record, err error) (store.Record, error) {
	switch {
	case err == nil:
		return fw.latest(c, key, rec), nil
	case c.ctx.Err() != nil:
		return store.Record{}, fmt.Errorf("server: the client left while waiting for the task: %w", c.ctx.Err())
	}
	return store.Record{}, internalError("following the task", err)
}

// settledAt is the record of the task as the write at version (which
// settled it) left it, task, as the subscription had it from the store:
// the call answers with the task as it was when it settled, without
// reading it again. rec is the subscription's snapshot (same task, owner
// and tenant).
func settledAt(rec store.Record, version int64, task *a2av1.Task) store.Record {
	out := store.Record{Tenant: rec.Tenant, Owner: rec.Owner, Version: version, Generation: task.GetGeneration(),
		Task: task, Runner: rec.Runner, LeaseUntil: rec.LeaseUntil}
	if store.IsTerminal(task.GetStatus().GetState()) {
		out.Runner, out.LeaseUntil = "", time.Time{}
	}
	return out
}

// latest reads the current record, falling back to rec.
func (fw *follower) latest(c *call, key taskKey, rec store.Record) store.Record {
	if cur, err := fw.store.Task(c.ctx, key.tenant, key.id); err == nil {
		return cur
	}
	return rec
}
