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
	finished := make(chan struct{}, s.cfg.concurrency)
	inflight := 0
	closing := false
	closingCh := s.closing // nil once seen, so that it stops waking the loop
	timer := time.NewTimer(0)
	defer timer.Stop()
	failing := false // the outbox failed last time: log once per failure streak
	for {
		claimed := 0
		if !closing && inflight < s.cfg.concurrency {
			ds, err := o.ClaimDeliveries(s.ctx, store.Claim{Worker: s.worker, Now: s.now(), Lease: s.lease(), Max: s.cfg.concurrency - inflight})
			switch {
			case err != nil && s.ctx.Err() == nil:
				if !failing {
					s.cfg.logger.LogAttrs(context.Background(), slog.LevelError, "a2a: claiming push deliveries failed; retrying", slog.Any("error", err))
				}
				failing = true
			case err == nil:
				failing = false
			}
			for _, d := range ds {
				inflight++
				go func() {
					s.deliver(o, d)
					finished <- struct{}{}
				}()
			}
			claimed = len(ds)
		}
		if closing && inflight == 0 {
			return
		}
		wait := pollInterval
		switch {
		case closing:
			wait = time.Hour // only finished attempts matter now
		case claimed > 0 && inflight < s.cfg.concurrency:
			wait = 0 // there may be more
		case inflight < s.cfg.concurrency:
			if at, ok, err := o.NextDelivery(s.ctx); err == nil && ok {
				wait = min(max(at.Sub(s.now()), 0), pollInterval)
			}
		}
		timer.Reset(wait)
		select {
		case <-o.DeliveriesQueued():
		case <-finished:
			inflight--
		case <-timer.C:
		case <-closingCh:
			closing, closingCh = true, nil
		case <-s.ctx.Done():
			for ; inflight > 0; inflight-- {
				<-finished
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
