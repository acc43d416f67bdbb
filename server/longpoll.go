package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Long-polls (A2A 1.1, §3.2.7): a GetTask with currentGeneration is held
// until the task's generation exceeds it, or the hold ends, and then
// answered with the task as it is. The wait is a subscription to the task
// through the store — the feed that drives streams, so a write made by
// another replica of a shared store wakes it as it wakes a stream — which
// counts the events it receives: each is one generation. There is no
// polling loop.

const (
	// DefaultLongPollHold is how long a GetTask with currentGeneration
	// waits for the task to change before it answers with the task as it
	// is (WithLongPollHold).
	DefaultLongPollHold = 30 * time.Second
	// MaxLongPollHold is the longest hold WithLongPollHold accepts.
	MaxLongPollHold = 10 * time.Minute
)

// WithLongPollHold sets how long a GetTask with currentGeneration (A2A 1.1
// long-poll) is held while the task's generation has not passed the one
// the client holds: DefaultLongPollHold (30 s); longer values are capped at
// MaxLongPollHold (10 min); d < 0 answers every such call at once (no
// hold); 0 keeps the default. When the hold ends, the call is answered with
// the task as it is, as the specification allows; a client deadline
// shorter than the hold ends it a little before that deadline, so that the
// client gets the task rather than a timeout. A held call counts against
// the stream caps (WithMaxStreams and the per-caller ones): over them, it
// is answered at once.
func WithLongPollHold(d time.Duration) Option {
	return func(s *Server) {
		switch {
		case d < 0:
			s.followers.longPollHold = -1
		case d > MaxLongPollHold:
			s.followers.longPollHold = MaxLongPollHold
		case d > 0:
			s.followers.longPollHold = d
		}
	}
}

// holdFor is how long a long-poll of a call with ctx may be held: the
// server's hold, ended before the client's deadline by a tenth of the time
// left (at most a second) so that the answer reaches the client in time.
func (fw *follower) holdFor(ctx context.Context) time.Duration {
	hold := fw.longPollHold
	if hold == 0 {
		hold = DefaultLongPollHold
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		left -= min(left/10, time.Second)
		hold = min(hold, left)
	}
	return hold
}

// awaitGeneration answers a long-poll: rec (read for the call) when its
// generation already exceeds after, the task is terminal (it never changes
// again), holding is off or the stream caps are reached; else the task
// once a write takes its generation past after, or as it is when the hold
// ends or Shutdown ends waiting calls.
func (fw *follower) awaitGeneration(c *call, rec store.Record, after int64) (store.Record, error) {
	if rec.Generation > after || store.IsTerminal(rec.Task.GetStatus().GetState()) || fw.longPollHold < 0 {
		return rec, nil
	}
	hold := fw.holdFor(c.ctx)
	if hold <= 0 {
		return rec, nil
	}
	release, err := fw.holdStream(c)
	if err != nil {
		return rec, nil // over the caps: the task as it is, which the specification allows
	}
	defer release()
	timer := time.NewTimer(hold)
	defer timer.Stop()
	key := c.key(rec.Task.GetId())
	for {
		cur, sub, err := fw.store.Subscribe(fw.budgeted(c.ctx), key.tenant, key.id, store.FollowOutcome)
		switch {
		case errors.Is(err, store.ErrNotFound): // removed meanwhile (retention)
			return store.Record{}, runtime.TaskNotFound(key.id)
		case err != nil:
			return store.Record{}, internalError("waiting for the task to change", err)
		}
		out, done, err := fw.countGenerations(c, key, cur, sub, after, timer.C)
		sub.Close()
		if done {
			return out, err
		}
		// Dropped as slow: subscribe again, from a fresh snapshot.
	}
}

// countGenerations takes the events of sub, which starts after the
// snapshot cur, until the task's generation passes after (done: the task
// as written), the subscription ends (done unless it was dropped for
// lagging), the hold ends, the client leaves or Shutdown comes.
func (fw *follower) countGenerations(c *call, key taskKey, cur store.Record, sub store.Subscription, after int64, expired <-chan time.Time) (store.Record, bool, error) {
	gen := cur.Generation
	if gen > after || store.IsTerminal(cur.Task.GetStatus().GetState()) {
		return cur, true, nil
	}
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				if errors.Is(sub.Err(), store.ErrSlowSubscriber) {
					return store.Record{}, false, nil
				}
				return fw.latest(c, key, cur), true, nil
			}
			ev.Taken()
			if gen++; gen > after {
				if t := sub.Written(ev.Version); t != nil {
					return settledAt(cur, ev.Version, t), true, nil
				}
				return fw.latest(c, key, cur), true, nil
			}
		case <-expired:
			return fw.latest(c, key, cur), true, nil
		case <-c.ctx.Done():
			return store.Record{}, true, fmt.Errorf("server: the client left while waiting for the task to change: %w", c.ctx.Err())
		case <-fw.ending:
			return fw.latest(c, key, cur), true, nil
		}
	}
}
