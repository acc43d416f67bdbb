package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// run is the live execution of one task in this process: one goroutine that
// calls Execute once per turn, for as long as follow-up messages keep the
// task going. At most one run exists per task (Server.runs, under the task's
// lock); it ends when a turn leaves the task terminal, or interrupted with no
// message waiting.
type run struct {
	s        *Server
	key      taskKey
	owner    string
	ctx      context.Context // the executor's; canceled by CancelTask and Shutdown
	cancel   context.CancelCauseFunc
	storeCtx context.Context // the run's writes': ctx's values, never canceled

	parent runParent   // ctx's parent (runctx.go)
	store  detached    // storeCtx
	stripe *sync.Mutex // the task's lock (Server.stripe of key), found once

	fuMu      sync.Mutex
	followUps chan *a2av1.Message // guarded by fuMu; made when first needed (followUpChan)
	overflow  []*a2av1.Message    // guarded by the task's lock

	// Which client messages of the task's history the execution has been
	// given, so that none reaches it twice whether it comes directly, by a
	// signal from another instance or by reconciliation (reconcile): none
	// before index base (the run's first message and what preceded it), and
	// those named in given. Reconciliation has looked at every message
	// before scanned. Guarded by the task's lock (base is set by launch,
	// before the run can be found).
	base, scanned int
	given         idSet

	turn atomic.Pointer[Events] // the current turn's
}

// newRun prepares the run of a task for the request c. The execution context
// keeps the request's values (call info, caller) but not its cancellation:
// the task outlives the request.
func (x *executions) newRun(c *call, key taskKey) *run {
	r := new(run)
	x.initRun(r, c, key)
	return r
}

// initRun prepares r, a zero run, as newRun does: a new task's first turn
// holds its run (firstTurn), in the same allocation.
func (x *executions) initRun(r *run, c *call, key taskKey) {
	r.s, r.key, r.owner, r.stripe = x.server, key, c.owner, x.writer.stripe(key)
	r.parent = runParent{base: x.base, values: c.ctx}
	r.store = detached{base: x.base, values: c.ctx}
	r.storeCtx = &r.store
	r.ctx, r.cancel = context.WithCancelCause(&r.parent)
}

func (r *run) release() { r.cancel(nil) }

// loop runs turns until the task needs no more.
func (r *run) loop(ev *Events) {
	defer r.s.execs.ended()
	defer r.release()
	for ev != nil {
		r.turn.Store(ev)
		ev = r.finish(ev, r.execute(ev))
	}
}

// execute calls the executor, turning a panic into an error.
func (r *run) execute(ev *Events) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = runtime.NewPanicError("executor", p)
		}
	}()
	return r.s.exec.Execute(r.ctx, ev.req, ev)
}

// endedByItself reports whether the run made its task terminal itself:
// its own last write did. known is false when that cannot be told without
// waiting (the run is writing).
func (r *run) endedByItself() (ended, known bool) {
	ev := r.turn.Load()
	if ev == nil || !ev.mu.TryLock() {
		return false, false
	}
	defer ev.mu.Unlock()
	return ev.rec.Task != nil && store.IsTerminal(ev.rec.Task.GetStatus().GetState()), true
}

// finish settles the task after Execute returned err and returns the next
// turn, if any:
//
//   - a new task that got no event: its initiator receives err (or
//     InvalidAgentResponse for a nil error); no task exists;
//   - a terminal task stays as it is;
//   - an error fails the task;
//   - follow-up messages the turn did not take start the next turn (the task
//     goes back to SUBMITTED if it was interrupted); a turn cannot end the
//     task while one waits (ErrFollowUpPending), so none is left behind by
//     a task that ended;
//   - a task left SUBMITTED or WORKING is completed; an interrupted one waits.
func (r *run) finish(ev *Events, err error) *Events {
	ev.mu.Lock()
	ev.closed = true
	if ev.held != nil {
		// The turn ended within the window: the task is created now, as
		// the executor left it (a failure has reached the initiator).
		_ = ev.flushHeldLocked()
	}
	rec, replied := ev.rec, ev.replied
	ev.mu.Unlock()

	if rec.Task == nil {
		r.finishWithoutTask(ev, replied, err)
		return nil
	}
	held := r.s.writer.lock(r.key)
	defer held.Unlock()
	if errors.Is(err, ErrFollowUpPending) {
		// The turn tried to end the task with a follow-up waiting: that
		// message starts the next turn (or, taken meanwhile by another of
		// the execution's goroutines, the task completes as any turn that
		// returns without ending it).
		err = nil
	}
	// rec is the turn's last committed record: every write of the run went
	// through ev, and a write by anyone else since (a cancel, a follow-up)
	// makes the settling write conflict, re-read and decide again, so no
	// read is needed here.
	left := r.takeFollowUpsLocked()
	state := rec.Task.GetStatus().GetState()
	if !store.IsTerminal(state) && err == nil && len(left) > 0 {
		return r.nextTurnLocked(ev, rec, left)
	}
	if settle := r.settling(state, err); settle != nil {
		r.s.execs.settleLocked(ev.storeCtx, r, rec, settle)
	}
	r.s.execs.unregister(r)
	return nil
}

// finishWithoutTask ends a turn of a new task that got no event: its
// initiator receives err (or InvalidAgentResponse for a nil error) unless
// the executor replied.
func (r *run) finishWithoutTask(ev *Events, replied bool, err error) {
	switch {
	case replied && err != nil:
		r.s.execs.logExecError(r, "executor failed after replying", err)
	case !replied:
		if err == nil {
			err = runtime.InvalidAgentResponse("the agent finished without replying or reporting a task")
		}
		// The initiator's call answers with the error, and the binding (or
		// the request log) logs its cause; it is logged here only when no
		// call is waiting for it any more.
		if !ev.create.handoff.deliver(outcome{err: runtime.ErrorOrInternal(err)}) && !isA2AError(err) {
			r.s.execs.logExecError(r, "executor failed before creating the task", err)
		}
	}
}

// settling is the change that settles a task in state whose turn returned
// err, or nil when it stays as it is (terminal, or waiting for input): an
// error fails it, anything else completes it.
func (r *run) settling(state a2av1.TaskState, err error) change {
	switch {
	case store.IsTerminal(state):
		return nil
	case err != nil:
		// An execution that stops because its context was canceled (by
		// Shutdown) is expected, not an executor failure worth an error log.
		stopped := r.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.Cause(r.ctx)))
		if !isA2AError(err) && !stopped {
			r.s.execs.logExecError(r, "executor failed", err)
		}
		return setStatus(a2av1.TaskState_TASK_STATE_FAILED, AgentMessage(r.failureText(err)))
	case store.IsInterrupted(state):
		return nil
	}
	return setStatus(a2av1.TaskState_TASK_STATE_COMPLETED, nil)
}

// nextTurnLocked starts the next turn for the follow-ups the turn ev did
// not take (left, in order): the first is its message, the others wait on
// FollowUps. An interrupted task goes back to SUBMITTED first. The caller
// holds the task's lock.
func (r *run) nextTurnLocked(ev *Events, rec store.Record, left []*a2av1.Message) *Events {
	s := r.s
	if store.IsInterrupted(rec.Task.GetStatus().GetState()) {
		var err error
		if rec, err = s.writer.commit(ev.storeCtx, r.key, rec, resubmit, true); err != nil {
			s.execs.logExecError(r, "restarting the task for a follow-up failed", err)
			s.execs.unregister(r)
			return nil
		}
	}
	for _, m := range left[1:] {
		r.deliverLocked(m)
	}
	return nextTurn(r, ev.req, rec, left[0])
}

// Settling a task whose execution has ended must not be lost to a passing
// storage failure (a locked or full database): the write is retried with
// growing pauses, the task's lock released in between, until it lands, the
// task turns out to be settled already, Shutdown begins, or settleAttempts
// are used up (the task then stays in its last state with this instance's
// execution record, which recovery settles after a restart).
const (
	settleAttempts = 8
	settlePause    = 100 * time.Millisecond
	maxSettlePause = 5 * time.Second
)

// settleLocked commits settle, retrying after storage failures; the caller
// holds the task's lock, which is released while pausing.
func (x *executions) settleLocked(ctx context.Context, r *run, cur store.Record, settle change) {
	pause := settlePause
	for attempt := 1; ; attempt++ {
		_, err := x.writer.commit(ctx, r.key, cur, settle, true)
		if err == nil || errors.Is(err, store.ErrTerminal) || errors.Is(err, store.ErrNotFound) {
			return
		}
		if attempt == settleAttempts || x.base.Err() != nil {
			x.logExecError(r, "settling the task failed; giving up (recovery settles it after a restart)", err)
			return
		}
		x.logExecError(r, "settling the task failed; retrying", err)
		x.writer.unlockKey(r.key)
		select {
		case <-time.After(pause):
		case <-x.base.Done(): // one last attempt, then give up
		}
		x.writer.stripe(r.key).Lock()
		pause = min(2*pause, maxSettlePause)
		if fresh, rerr := x.store.Task(ctx, r.key.tenant, r.key.id); rerr == nil {
			cur = fresh
		}
	}
}

// nextTurn builds the Events of another turn of r's task for msg, carrying
// over what the previous request said about the caller.
func nextTurn(r *run, prev *Request, rec store.Record, msg *a2av1.Message) *Events {
	req := &Request{
		TaskID:              r.key.id,
		ContextID:           rec.Task.GetContextId(),
		Message:             msg,
		Task:                rec.Task,
		History:             rec.Task.GetHistory(),
		Tenant:              r.key.tenant,
		Caller:              prev.Caller,
		Extensions:          prev.Extensions,
		AcceptedOutputModes: prev.AcceptedOutputModes,
		Metadata:            prev.Metadata,
		run:                 r,
	}
	return &Events{run: r, req: req, storeCtx: r.storeCtx, rec: rec}
}

// failureText is the status message of a task whose executor returned err:
// an A2A error's own message, otherwise a generic text (the details are in
// the log, not on the wire).
func (r *run) failureText(err error) string {
	if errors.Is(context.Cause(r.ctx), ErrShutdown) {
		return "the agent shut down while working on the task"
	}
	var e *runtime.Error
	if errors.As(err, &e) && e.Code() != runtime.CodeInternal {
		return e.Message()
	}
	return "the agent failed while working on the task"
}

func isA2AError(err error) bool {
	var e *runtime.Error
	return errors.As(err, &e) && e.Code() != runtime.CodeInternal
}

func (x *executions) logExecError(r *run, msg string, err error) {
	var pe *runtime.PanicError
	if errors.As(err, &pe) { // the stack as a list of frames, not in the error's text
		x.logger.LogAttrs(context.Background(), slog.LevelError, "a2a: "+msg,
			slog.String("tenant", r.key.tenant), slog.String("taskId", r.key.id), slog.Any("error", err), slog.Any("stack", pe.Stack()))
		return
	}
	x.logger.LogAttrs(context.Background(), slog.LevelError, "a2a: "+msg,
		slog.String("tenant", r.key.tenant), slog.String("taskId", r.key.id), slog.Any("error", err))
}
