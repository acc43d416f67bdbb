package push

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// pollInterval bounds how long the dispatcher sleeps without looking at the
// outbox: deliveries queued by other processes sharing the store (which may
// not signal this one) and retries whose time has come are picked up within
// it.
const pollInterval = time.Second

// Start makes the sender deliver the notifications of o until Close: it
// claims due deliveries (at most the sender's concurrency at a time, each
// leased for the attempt timeout plus a margin), posts each, and records the
// outcome in o. A sender serves one outbox; a second Start fails.
func (s *Sender) Start(o store.Outbox) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.closing:
		return ErrClosed
	default:
	}
	if s.started {
		return errors.New("push: the sender already delivers from an outbox")
	}
	s.started = true
	go s.dispatch(o)
	return nil
}

// ErrClosed: Start after Close.
var ErrClosed = errors.New("push: sender closed")

// Close stops claiming new deliveries, lets the attempts in flight finish
// until ctx is done, then cancels the rest and waits for the sender's
// goroutines to end. Deliveries not made stay in the outbox (a durable
// store delivers them after the next start; an attempt cut off by ctx is
// retried once its lease ends). It is idempotent.
func (s *Sender) Close(ctx context.Context) error {
	s.mu.Lock()
	started := s.started
	select {
	case <-s.closing:
	default:
		close(s.closing)
	}
	s.mu.Unlock()
	var err error
	if started {
		select {
		case <-s.done:
		case <-ctx.Done():
			err = ctx.Err()
			s.cancel()
			<-s.done
		}
	}
	s.cancel()
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
	return err
}

// lease is how long a claimed delivery stays with this sender: longer than
// one attempt can take, so that no other worker takes it while it is in
// flight.
func (s *Sender) lease() time.Duration { return s.cfg.timeout + 10*time.Second }

// dispatch is the sender's loop: claim while there is room, then wait for a
// wake-up (new deliveries, a finished attempt, the next due time, the poll
// interval).
func (s *Sender) dispatch(o store.Outbox) {
	defer close(s.done)
	l := dispatchLoop{s: s, o: o, finished: make(chan struct{}, s.cfg.concurrency)}
	closingCh := s.closing // nil once seen, so that it stops waking the loop
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		claimed := 0
		if !l.closing && l.inflight < s.cfg.concurrency {
			claimed = l.claim()
		}
		if l.closing && l.inflight == 0 {
			return
		}
		timer.Reset(l.wait(claimed))
		select {
		case <-o.DeliveriesQueued():
		case <-l.finished:
			l.inflight--
		case <-timer.C:
		case <-closingCh:
			l.closing, closingCh = true, nil
		case <-s.ctx.Done():
			for ; l.inflight > 0; l.inflight-- {
				<-l.finished
			}
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// dispatchLoop is the state of one dispatch loop.
type dispatchLoop struct {
	s        *Sender
	o        store.Outbox
	finished chan struct{} // an attempt ended
	inflight int           // attempts under way
	closing  bool          // Close was called: claim no more
	failing  bool          // the outbox failed last time: log once per failure streak
}

// claim takes as many due deliveries as there is room for and starts an
// attempt of each; it returns how many it took.
func (l *dispatchLoop) claim() int {
	s := l.s
	ds, err := l.o.ClaimDeliveries(s.ctx, store.Claim{Worker: s.worker, Now: s.now(), Lease: s.lease(), Max: s.cfg.concurrency - l.inflight})
	switch {
	case err != nil && s.ctx.Err() == nil:
		if !l.failing {
			s.cfg.logger.LogAttrs(context.Background(), slog.LevelError, "a2a: claiming push deliveries failed; retrying", slog.Any("error", err))
		}
		l.failing = true
	case err == nil:
		l.failing = false
	}
	for _, d := range ds {
		l.inflight++
		go func() {
			s.deliver(l.o, d)
			l.finished <- struct{}{}
		}()
	}
	return len(ds)
}

// wait is how long the loop may sleep when nothing wakes it, after a
// claim that took claimed deliveries.
func (l *dispatchLoop) wait(claimed int) time.Duration {
	switch {
	case l.closing:
		return time.Hour // only finished attempts matter now
	case l.inflight >= l.s.cfg.concurrency:
		return pollInterval
	case claimed > 0:
		return 0 // there may be more
	}
	if at, ok, err := l.o.NextDelivery(l.s.ctx); err == nil && ok {
		return min(max(at.Sub(l.s.now()), 0), pollInterval)
	}
	return pollInterval
}

// deliver makes one attempt of d and records its outcome in o.
func (s *Sender) deliver(o store.Outbox, d store.Delivery) {
	n := Notification{ID: d.ID, Tenant: d.Tenant, Config: d.Config, Event: d.Event, ProtocolVersion: d.ProtocolVersion, Trace: d.Trace}
	attempts := d.Attempts + 1
	err := s.post(s.ctx, n, attempts)
	ctx := context.WithoutCancel(s.ctx) // the outcome must be recorded even while closing
	switch {
	case err == nil:
		s.record(o.FinishDelivery(ctx, d.ID), d)
	case s.ctx.Err() != nil:
		// Close's deadline cut the attempt: the delivery stays leased and is
		// tried again when the lease ends.
	case retryable(err) && attempts < s.cfg.maxAttempts:
		rerr := o.RetryDelivery(ctx, d.ID, attempts, s.now().Add(s.backoff(attempts)))
		if !errors.Is(rerr, store.ErrNotFound) { // gone: its config was deleted meanwhile
			s.record(rerr, d)
		}
	default:
		s.record(o.FinishDelivery(ctx, d.ID), d)
		s.fail(Failure{Notification: n, Attempts: attempts, Err: err})
	}
}

// record logs an outbox write that failed; the delivery is then made again
// after its lease ends.
func (s *Sender) record(err error, d store.Delivery) {
	if err != nil {
		s.cfg.logger.LogAttrs(context.Background(), slog.LevelError, "a2a: recording a push delivery failed; it will be attempted again",
			slog.String("deliveryId", d.ID), slog.Any("error", err))
	}
}
