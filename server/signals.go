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

// instances are the executions of this process's servers by runner id.
var instances sync.Map // runner id → *executions

// runningElsewhere reports whether rec's execution runs on another live
// instance.
func (x *executions) runningElsewhere(rec store.Record) bool {
	switch {
	case rec.Runner == "" || rec.Runner == x.writer.runner:
		return false
	case store.SameProcess(x.writer.runner, rec.Runner):
		_, live := instances.Load(rec.Runner) // shut down, or another store's
		return live
	}
	return rec.LeaseUntil.After(time.Now()) && !store.RunnerGone(x.writer.runner, rec.Runner)
}

// signal sends sig to the instance runner (best effort).
func (x *executions) signal(ctx context.Context, runner string, sig store.Signal) {
	if other, ok := instances.Load(runner); ok {
		go other.(*executions).handleSignal(sig)
		return
	}
	if !x.store.Shared() {
		return
	}
	x.sendSignal(ctx, runner, sig)
	if sig.Kind == store.SignalFollowUp {
		x.watchFollowUp(runner, sig)
	}
}

func (x *executions) sendSignal(ctx context.Context, runner string, sig store.Signal) {
	if err := x.store.SendSignal(ctx, runner, sig); err != nil {
		x.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: signalling the instance running a task failed",
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
func (x *executions) watchFollowUp(runner string, sig store.Signal) {
	if !x.background() {
		return
	}
	go func() {
		defer x.bg.Done()
		ctx := context.Background()
		rec, err := x.store.Task(ctx, sig.Tenant, sig.TaskID)
		if err != nil || !leftByFollowUp(rec, runner, sig.MessageID) {
			return
		}
		pause := x.writer.runLease / 10
		end := time.Now().Add(x.writer.runLease)
		for time.Now().Add(pause).Before(end) {
			select {
			case <-time.After(pause):
			case <-x.base.Done():
				return
			}
			cur, err := x.store.Task(ctx, sig.Tenant, sig.TaskID)
			if err != nil {
				if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrClosed) {
					return
				}
				continue // the store may come back
			}
			if cur.Version != rec.Version || cur.Runner != runner || !x.runningElsewhere(cur) {
				return // taken up, or settled by recovery
			}
			x.sendSignal(ctx, runner, sig)
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

// listenSignals registers x for signals from this process and, through the
// store, from other processes, until Shutdown.
func (x *executions) listenSignals() {
	instances.Store(x.writer.runner, x)
	if !x.store.Shared() {
		return
	}
	ch, stop := x.store.ReceiveSignals(x.writer.runner)
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		defer stop()
		for {
			select {
			case sig, ok := <-ch:
				if !ok {
					return
				}
				x.handleSignal(sig)
			case <-x.base.Done():
				return
			}
		}
	}()
}

// handleSignal acts on a signal for a task this instance may be running.
func (x *executions) handleSignal(sig store.Signal) {
	key := taskKey{sig.Tenant, sig.TaskID}
	switch sig.Kind {
	case store.SignalCancel:
		if r := x.runOf(key); r != nil {
			r.cancel(ErrCanceled)
		}
	case store.SignalFollowUp:
		x.takeFollowUp(key, sig.MessageID)
	}
}

// takeFollowUp hands a follow-up written by another instance to the task's
// execution here, or starts a new turn for it when the task waits for it
// (SUBMITTED again after an interrupted state) and no execution runs.
func (x *executions) takeFollowUp(key taskKey, messageID string) {
	ctx := context.Background()
	held := x.writer.lock(key)
	defer held.Unlock()
	rec, err := x.store.Task(ctx, key.tenant, key.id)
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
	if r := x.runOf(key); r != nil {
		r.offerLocked(hist, at) // unless reconciliation gave it already
		return
	}
	if rec.Task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_SUBMITTED || x.isClosed() {
		return
	}
	c := &call{ctx: ctx, tenant: key.tenant, owner: rec.Owner}
	r := x.newRun(c, key)
	req := &a2av1.SendMessageRequest{Tenant: key.tenant, Message: msg}
	ev := &Events{run: r, req: newRequest(c, req, msg, r, rec.Task), storeCtx: r.storeCtx, rec: rec}
	x.register(r)
	if err := x.launch(r, ev); err != nil {
		x.unregister(r)
	}
}
