package server

import (
	"context"
	"errors"
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
// through the store when it is shared (store.Processes.Shared). Signals through the
// store may be lost; the running instance reconciles its executions with
// the store on its lease-renewal ticker (recovery.go), and the sender of a
// follow-up that restarts a waiting task repeats its signal (watchFollowUp).

// instances are this process's servers by runner id.
var instances sync.Map // runner id → *Server

// runningElsewhere reports whether rec's execution runs on another live
// instance.
func (s *Server) runningElsewhere(rec store.Record) bool {
	switch {
	case rec.Runner == "" || rec.Runner == s.writer.runner:
		return false
	case store.SameProcess(s.writer.runner, rec.Runner):
		_, live := instances.Load(rec.Runner) // shut down, or another store's
		return live
	}
	return rec.LeaseUntil.After(time.Now()) && !store.RunnerGone(s.writer.runner, rec.Runner)
}

// signal sends sig to the instance runner (best effort).
func (s *Server) signal(ctx context.Context, runner string, sig store.Signal) {
	if other, ok := instances.Load(runner); ok {
		go other.(*Server).handleSignal(sig)
		return
	}
	if !s.store.Shared() {
		return
	}
	s.sendSignal(ctx, runner, sig)
	if sig.Kind == store.SignalFollowUp {
		s.watchFollowUp(runner, sig)
	}
}

func (s *Server) sendSignal(ctx context.Context, runner string, sig store.Signal) {
	if err := s.store.SendSignal(ctx, runner, sig); err != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: signalling the instance running a task failed",
			slog.String("tenant", sig.Tenant), slog.String("taskId", sig.TaskID), slog.String("runner", runner), slog.Any("error", err))
	}
}

// watchFollowUp makes up for a lost signal of a follow-up that made a task
// waiting for input SUBMITTED again. Only the signal tells the task's
// instance to run the next turn (reconciliation looks after running
// executions only), so while the task stays exactly as the follow-up left
// it — same version, same live runner — the signal is sent again, after a
// tenth of the lease and then at doubling pauses, for one lease. The
// receiver ignores a repeated signal (the message was given to the run it
// started). Signals between instances of one process are never lost and
// need no watching.
func (s *Server) watchFollowUp(runner string, sig store.Signal) {
	if !s.execs.background() {
		return
	}
	go func() {
		defer s.execs.bg.Done()
		ctx := context.Background()
		rec, err := s.store.Task(ctx, sig.Tenant, sig.TaskID)
		if err != nil || !leftByFollowUp(rec, runner, sig.MessageID) {
			return
		}
		pause := s.writer.runLease / 10
		end := time.Now().Add(s.writer.runLease)
		for time.Now().Add(pause).Before(end) {
			select {
			case <-time.After(pause):
			case <-s.execs.base.Done():
				return
			}
			cur, err := s.store.Task(ctx, sig.Tenant, sig.TaskID)
			if err != nil {
				if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrClosed) {
					return
				}
				continue // the store may come back
			}
			if cur.Version != rec.Version || cur.Runner != runner || !s.runningElsewhere(cur) {
				return // taken up, or settled by recovery
			}
			s.sendSignal(ctx, runner, sig)
			pause *= 2
		}
	}()
}

// leftByFollowUp reports whether rec is a task that a follow-up (its last
// message, messageID) made SUBMITTED and that runner is to run.
func leftByFollowUp(rec store.Record, runner, messageID string) bool {
	h := rec.Task.GetHistory()
	return rec.Runner == runner && rec.Task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_SUBMITTED &&
		len(h) > 0 && h[len(h)-1].GetMessageId() == messageID
}

// listenSignals registers s for signals from this process and, through the
// store, from other processes, until Shutdown.
func (s *Server) listenSignals() {
	instances.Store(s.writer.runner, s)
	if !s.store.Shared() {
		return
	}
	ch, stop := s.store.ReceiveSignals(s.writer.runner)
	s.execs.bg.Add(1)
	go func() {
		defer s.execs.bg.Done()
		defer stop()
		for {
			select {
			case sig, ok := <-ch:
				if !ok {
					return
				}
				s.handleSignal(sig)
			case <-s.execs.base.Done():
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
		if r := s.execs.runOf(key); r != nil {
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
	held := s.writer.lock(key)
	defer held.Unlock()
	rec, err := s.store.Task(ctx, key.tenant, key.id)
	if err != nil {
		return
	}
	hist := rec.Task.GetHistory()
	at := -1
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].GetMessageId() == messageID {
			at = i
			break
		}
	}
	if at < 0 {
		return
	}
	msg := hist[at]
	if r := s.execs.runOf(key); r != nil {
		r.offerLocked(hist, at) // unless reconciliation gave it already
		return
	}
	if rec.Task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_SUBMITTED || s.execs.isClosed() {
		return
	}
	c := &call{ctx: ctx, tenant: key.tenant, owner: rec.Owner}
	r := s.newRun(c, key)
	req := &a2av1.SendMessageRequest{Tenant: key.tenant, Message: msg}
	ev := &Events{run: r, req: s.newRequest(c, req, msg, r, rec.Task), storeCtx: r.storeCtx, rec: rec}
	s.execs.register(r)
	if err := s.execs.launch(r, ev); err != nil {
		s.execs.unregister(r)
	}
}
