package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Cross-instance control. A cancel or a follow-up may arrive at an instance
// other than the one running the task's execution (replicas behind a load
// balancer, or two servers of one process sharing a store). The receiving
// instance writes the change to the store as usual, then signals the
// running one: instances of this process through this registry, others
// through the store when it implements store.Signaler.

// instances are this process's servers by runner id.
var instances sync.Map // runner id → *Server

// runningElsewhere reports whether rec's execution runs on another live
// instance.
func (s *Server) runningElsewhere(rec store.Record) bool {
	switch {
	case rec.Runner == "" || rec.Runner == s.runner:
		return false
	case store.SameProcess(s.runner, rec.Runner):
		_, live := instances.Load(rec.Runner) // shut down, or another store's
		return live
	}
	return rec.LeaseUntil.After(time.Now()) && !store.RunnerGone(s.runner, rec.Runner)
}

// signal sends sig to the instance runner (best effort).
func (s *Server) signal(ctx context.Context, runner string, sig store.Signal) {
	if other, ok := instances.Load(runner); ok {
		go other.(*Server).handleSignal(sig)
		return
	}
	sg, ok := s.store.(store.Signaler)
	if !ok {
		return
	}
	if err := sg.SendSignal(ctx, runner, sig); err != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: signalling the instance running a task failed",
			slog.String("tenant", sig.Tenant), slog.String("taskId", sig.TaskID), slog.String("runner", runner), slog.Any("error", err))
	}
}

// listenSignals registers s for signals from this process and, through the
// store, from other processes, until Shutdown.
func (s *Server) listenSignals() {
	instances.Store(s.runner, s)
	sg, ok := s.store.(store.Signaler)
	if !ok {
		return
	}
	ch, stop := sg.ReceiveSignals(s.runner)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer stop()
		for {
			select {
			case sig, ok := <-ch:
				if !ok {
					return
				}
				s.handleSignal(sig)
			case <-s.base.Done():
				return
			}
		}
	}()
}

// handleSignal acts on a signal for a task this instance may be running.
func (s *Server) handleSignal(sig store.Signal) {
	key := taskKey{sig.Tenant, sig.TaskID}
	switch sig.Kind {
	case store.SignalCancel:
		if r := s.runOf(key); r != nil {
			r.cancel(ErrCanceled)
		}
	case store.SignalFollowUp:
		s.takeFollowUp(key, sig.MessageID)
	}
}

// takeFollowUp hands a follow-up written by another instance to the task's
// execution here, or starts a new turn for it when the task waits for it
// (SUBMITTED again after an interrupted state) and no execution runs.
func (s *Server) takeFollowUp(key taskKey, messageID string) {
	ctx := context.Background()
	unlock := s.lock(key)
	defer unlock()
	rec, err := s.store.Task(ctx, key.tenant, key.id)
	if err != nil {
		return
	}
	var msg *a2av1.Message
	for _, m := range rec.Task.GetHistory() {
		if m.GetMessageId() == messageID {
			msg = m
		}
	}
	if msg == nil {
		return
	}
	if r := s.runOf(key); r != nil {
		r.deliverLocked(msg)
		return
	}
	if rec.Task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_SUBMITTED || s.isClosed() {
		return
	}
	c := &call{ctx: ctx, tenant: key.tenant, owner: rec.Owner}
	r := s.newRun(c, key)
	req := &a2av1.SendMessageRequest{Tenant: key.tenant, Message: msg}
	ev := &Events{run: r, req: s.newRequest(c, req, r, rec.Task), storeCtx: context.WithoutCancel(r.ctx), rec: rec}
	s.register(r)
	if err := s.launch(r, ev); err != nil {
		s.unregister(r)
	}
}
