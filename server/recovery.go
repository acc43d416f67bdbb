package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Execution records and recovery. Every task this server executes carries
// its runner id and a lease in the store, renewed by every write of the
// execution and by a ticker. When a server instance dies (a crash, kill -9,
// a lost machine), its SUBMITTED and WORKING tasks keep its runner id but
// their leases run out; any live instance sharing the store — or the same
// agent after its restart, at once when the dead process ran on the same
// host — then settles each as FAILED with a status message saying the agent
// stopped, through an ordinary write, so subscribers and webhooks see the
// final event. Tasks waiting for input need no execution and are left
// alone: the next message starts a new turn.

// staleBatch is how many orphaned tasks one recovery round settles.
const staleBatch = 100

// stoppedText is the status message of a task settled by recovery.
const stoppedText = "the agent stopped while working on this task (it was restarted or crashed); send the message again to retry"

// leaseEnd is the end of a lease taken now.
func (w *taskWriter) leaseEnd() time.Time { return time.Now().Add(w.runLease) }

// maintain renews this server's leases and settles orphaned tasks until
// Shutdown. The first recovery round runs at once, so that a restarted agent
// settles what its previous process left behind before clients ask.
func (x *executions) maintain() {
	defer x.bg.Done()
	x.recoverStale()
	renew := time.NewTicker(x.writer.runLease / 3)
	defer renew.Stop()
	sweep := time.NewTicker(x.writer.runLease / 2)
	defer sweep.Stop()
	for {
		select {
		case <-renew.C:
			x.renewRuns()
		case <-sweep.C:
			x.recoverStale()
		case <-x.base.Done():
			return
		}
	}
}

// renewRuns extends the leases of the tasks this server executes, then
// reconciles its executions with the store.
func (x *executions) renewRuns() {
	if x.registered() == 0 {
		return
	}
	if err := x.store.RenewRuns(context.Background(), x.writer.runner, x.writer.leaseEnd()); err != nil && !errors.Is(err, store.ErrClosed) {
		x.logger.LogAttrs(context.Background(), slog.LevelError, "a2a: renewing task leases failed", slog.Any("error", err))
	}
	x.reconcileRuns()
}

// errEndedElsewhere is the cause of an execution stopped because another
// instance made its task terminal other than by a cancel (settled it as
// FAILED after this instance's lease had run out, say).
var errEndedElsewhere = errors.New("server: the task was ended by another server instance")

// reconcileRuns makes up for lost signals (a shared store's are best
// effort: a listener reconnecting drops them). For each task this server
// executes, it reads the stored task: an execution whose task another
// instance made terminal (a cancel) is stopped, and client messages that
// other instances added to the history and the execution has not been
// given are handed to it. One read per running task, every third of the
// lease; nothing at all with a store that is not shared by processes.
func (x *executions) reconcileRuns() {
	if !x.store.Shared() {
		return
	}
	ctx := context.Background()
	for _, r := range x.list() {
		if x.base.Err() != nil {
			return
		}
		if err := x.reconcile(ctx, r); err != nil {
			// The store is failing: the next round tries again.
			if !errors.Is(err, store.ErrClosed) {
				x.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: reading a running task to reconcile it failed",
					slog.String("tenant", r.key.tenant), slog.String("taskId", r.key.id), slog.Any("error", err))
			}
			return
		}
	}
}

// reconcile brings one execution in line with its stored task; it fails
// when the store does.
func (x *executions) reconcile(ctx context.Context, r *run) error {
	if r.ctx.Err() != nil {
		return nil
	}
	rec, err := x.store.Task(ctx, r.key.tenant, r.key.id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if state := rec.Task.GetStatus().GetState(); store.IsTerminal(state) {
		if ended, known := r.endedByItself(); known && !ended {
			cause := errEndedElsewhere
			if state == a2av1.TaskState_TASK_STATE_CANCELED {
				cause = ErrCanceled
			}
			r.cancel(cause)
		}
		return nil
	}
	held := x.writer.lock(r.key)
	defer held.Unlock()
	if x.runOf(r.key) == r {
		r.catchUpLocked(rec.Task.GetHistory())
	}
	return nil
}

// recoverStale settles the tasks whose runner stopped.
func (x *executions) recoverStale() {
	ctx := context.Background()
	for {
		recs, err := x.store.StaleRuns(ctx, x.writer.runner, time.Now(), staleBatch)
		if err != nil {
			if !errors.Is(err, store.ErrClosed) {
				x.logger.LogAttrs(ctx, slog.LevelError, "a2a: looking for orphaned tasks failed", slog.Any("error", err))
			}
			return
		}
		settled := 0
		for _, rec := range recs {
			if x.settleStale(ctx, rec) {
				settled++
			}
		}
		if len(recs) < staleBatch || settled == 0 || x.base.Err() != nil {
			return
		}
	}
}

// Resumable is implemented by executors whose work may simply run again
// when the instance running it stopped (idempotent work, or work that picks
// up where it left off from the task's artifacts). Recovery then does not
// fail such a task: it takes the task over (SUBMITTED again, with this
// instance's execution record) and starts a new turn for the last message
// from the client, with Request.Task set to the task as it was left.
type Resumable interface {
	Resumable() bool
}

// settleStale fails one orphaned task — or resumes it when the executor is
// Resumable — unless it changed since it was found (another instance took
// it over, or settled it first).
func (x *executions) settleStale(ctx context.Context, rec store.Record) bool {
	key := taskKey{rec.Tenant, rec.Task.GetId()}
	held := x.writer.lock(key)
	defer held.Unlock()
	if rz, ok := x.exec.(Resumable); ok && rz.Resumable() {
		if done, resumed := x.resumeStale(ctx, key, rec); done {
			return resumed
		}
	}
	// One attempt from the version that was found stale: after a conflict
	// the task is someone else's again, and the next round looks anew.
	next, events, err := setStatus(a2av1.TaskState_TASK_STATE_FAILED, AgentMessage(stoppedText))(rec.Task)
	if err == nil {
		_, err = x.store.UpdateTask(ctx, store.Update{Tenant: rec.Tenant, Task: next, Expect: rec.Version, Events: events})
	}
	switch {
	case err == nil:
		x.writer.observeState(ctx, rec.Tenant, rec.Task, next)
		x.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: task failed: the instance running it stopped",
			slog.String("tenant", rec.Tenant), slog.String("taskId", key.id), slog.String("runner", rec.Runner))
		return true
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrTerminal), errors.Is(err, store.ErrNotFound):
		return false
	}
	x.logger.LogAttrs(ctx, slog.LevelError, "a2a: settling an orphaned task failed",
		slog.String("tenant", rec.Tenant), slog.String("taskId", key.id), slog.Any("error", err))
	return false
}

// resumeStale starts a new turn of an orphaned task here. done is false
// when the task cannot be resumed (no message from the client to run
// again, or this server is shutting down) and should be failed instead.
func (x *executions) resumeStale(ctx context.Context, key taskKey, rec store.Record) (done, resumed bool) {
	var last *a2av1.Message
	for _, m := range rec.Task.GetHistory() {
		if m.GetRole() == a2av1.Role_ROLE_USER {
			last = m
		}
	}
	if last == nil || x.isClosed() {
		return false, false
	}
	next := withStatus(rec.Task, &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_SUBMITTED, Timestamp: now()})
	u := store.Update{Tenant: key.tenant, Task: next, Expect: rec.Version, Events: []*a2av1.StreamResponse{statusEvent(next)},
		Runner: x.writer.runner, LeaseUntil: x.writer.leaseEnd()}
	v, err := x.store.UpdateTask(ctx, u)
	if err != nil {
		if !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrTerminal) && !errors.Is(err, store.ErrNotFound) {
			x.logger.LogAttrs(ctx, slog.LevelError, "a2a: resuming an orphaned task failed",
				slog.String("tenant", key.tenant), slog.String("taskId", key.id), slog.Any("error", err))
		}
		return true, false
	}
	x.writer.observeState(ctx, key.tenant, rec.Task, next)
	cur := store.Record{Tenant: key.tenant, Owner: rec.Owner, Version: v, Generation: store.NextGeneration(rec.Generation, len(u.Events)),
		Task: next, Runner: x.writer.runner, LeaseUntil: u.LeaseUntil}
	c := &call{ctx: ctx, tenant: key.tenant, owner: rec.Owner}
	r := x.newRun(c, key)
	req := newRequest(c, &a2av1.SendMessageRequest{Tenant: key.tenant, Message: last}, last, r, next)
	ev := &Events{run: r, req: req, storeCtx: r.storeCtx, rec: cur}
	x.register(r)
	if err := x.launch(r, ev); err != nil {
		x.unregister(r)
		return true, false
	}
	x.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: task resumed: the instance running it stopped",
		slog.String("tenant", key.tenant), slog.String("taskId", key.id), slog.String("runner", rec.Runner))
	return true, true
}
