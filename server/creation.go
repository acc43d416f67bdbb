package server

import (
	"context"
	"sync"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Creation: a new task is written at its execution's first event, and the
// request that started it learns the outcome through a handoff.

// creation is what the first event of a new task needs.
type creation struct {
	pushConfig store.PushConfig // inline config (none: nil message), registered before the first event
	handoff    *handoff
	// fold: the initiator does not relay the task's events (it is not a
	// stream), so the task's first change is stored in the write that
	// creates the task, instead of in a second write. Webhooks still get
	// the new task and then the change's events.
	fold bool

	// The first held creation of the turn (holdLocked), in this block: a
	// creation is held at most once unless writing it failed, and a later
	// one gets its own, so that a timer of the first one cannot flush it.
	firstHeld     held
	firstHeldUsed bool

	// subscriber: the initiator's request for a subscription to the new
	// task, in this block (writeCreationLocked).
	subscriber store.Subscriber
}

// ensureTaskLocked creates the task of a new turn at its first event:
// SUBMITTED, with the incoming message in its history. In this order, under
// the task's lock: the task is stored in one write together with the inline
// push config and the delivery of the task to it (so the webhook gets the
// task as its first event), the run is registered (follow-ups and cancels
// find it), and the initiating request subscribes; only then is the
// initiator told. So nothing that happens to the task can be missed by the
// initiator's stream or by the inline webhook.
func (e *Events) ensureTaskLocked() error {
	if e.rec.Task != nil {
		return nil
	}
	if e.held != nil {
		return e.flushHeldLocked()
	}
	if e.replied {
		return ErrReplied
	}
	return e.createLocked(nil)
}

// newTaskLocked is the task a new turn creates: SUBMITTED, with the
// incoming message in its history (one allocation: submittedTask).
func (e *Events) newTaskLocked() *a2av1.Task {
	return submittedTask(e.run.key.id, e.req.ContextID, e.req.Message)
}

// createLocked creates the task, with the change first applied to it when
// first is not nil (creation.fold). A change that fails leaves the task
// created as without it, and returns its error.
func (e *Events) createLocked(first change) error {
	task := e.newTaskLocked()
	snap := task
	var events []*a2av1.StreamResponse
	var changeErr error
	if first != nil {
		if next, evs, err := first(task); err != nil {
			changeErr = err
		} else {
			snap, events = next, evs
		}
	}
	var steps []*a2av1.Task
	if snap != task {
		steps = []*a2av1.Task{snap}
	}
	if err := e.writeCreationLocked(task, snap, events, steps); err != nil {
		return err
	}
	return changeErr
}

// writeCreationLocked stores the new task: task as created, snap with the
// first changes applied (events are theirs), steps the snapshot after each
// change (for the state observer). In this order, under the task's lock:
// the task is stored in one write together with the inline push config and
// the delivery of the task to it (so the webhook gets the task as its first
// event), the run is registered (follow-ups and cancels find it), and the
// initiating request subscribes; only then is the initiator told. So
// nothing that happens to the task can be missed by the initiator's stream
// or by the inline webhook.
func (e *Events) writeCreationLocked(task, snap *a2av1.Task, events []*a2av1.StreamResponse, steps []*a2av1.Task) error {
	r, s := e.run, e.run.s
	// Each first change is one mutation (one event, stored or not): the
	// task is created at generation 1 and counts them.
	creation := store.Creation{Record: store.Record{Tenant: r.key.tenant, Owner: r.owner, Generation: store.NextGeneration(1, len(steps)),
		Task: snap, Runner: s.writer.runner, LeaseUntil: s.writer.leaseEnd()}}
	if cfg := e.create.pushConfig; cfg.TaskPushNotificationConfig != nil {
		cfg.TaskId = task.Id
		creation.PushConfigs = []store.PushConfig{cfg}
		creation.Events = append([]*a2av1.StreamResponse{taskEvent(task)}, events...)
		creation.Trace = s.writer.traceOf(e.storeCtx, creation.Events)
	}
	held := s.writer.lock(r.key)
	defer held.Unlock()
	h := e.create.handoff
	var (
		rec store.Record
		sub store.Subscription
		err error
	)
	// A task created terminal never changes again: its initiator needs no
	// subscription, only the record.
	follow := h.follow != followNothing && !store.IsTerminal(snap.GetStatus().GetState())
	if follow {
		e.create.subscriber = store.Subscriber{Ctx: s.followers.budgeted(h.ctx), Follow: h.follow.store()}
		creation.Subscriber = &e.create.subscriber
	}
	rec, sub, err = s.store.CreateTask(e.storeCtx, creation)
	if err != nil {
		err = internalError("creating the task", err)
		h.deliver(outcome{err: err})
		return err
	}
	e.rec = rec
	s.writer.observeState(e.storeCtx, r.key.tenant, nil, task)
	prev := task
	for _, t := range steps {
		s.writer.observeState(e.storeCtx, r.key.tenant, prev, t)
		prev = t
	}
	s.execs.register(r)
	h.deliver(outcome{rec: rec, sub: sub})
	return nil
}

// outcome is what the request that started a new task learns from its first
// event: a direct reply, the created task (with a subscription when asked
// for), or an error.
type outcome struct {
	reply *a2av1.Message
	rec   store.Record
	sub   store.Subscription
	err   error
}

// handoff passes the outcome of a new task's first event from the execution
// to the request that started it. If that request gave up (its client went
// away), a subscription made for it is closed instead of leaking.
type handoff struct {
	ctx    context.Context // the initiating request's
	follow follow          // whether, and how, the request follows the task
	done   chan struct{}   // closed when o is delivered: delivering never blocks

	mu        sync.Mutex
	o         outcome // set before done is closed
	delivered bool
	abandoned bool
}

func (h *handoff) init(ctx context.Context, f follow) {
	h.ctx, h.follow, h.done = ctx, f, make(chan struct{})
}

// deliver hands o to the initiating request and reports whether it took
// it: false when an outcome was delivered before or the request stopped
// waiting.
func (h *handoff) deliver(o outcome) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	handed := false
	switch {
	case h.delivered:
		return false
	case h.abandoned:
		if o.sub != nil {
			o.sub.Close()
		}
	default:
		h.o = o
		close(h.done)
		handed = true
	}
	h.delivered = true
	return handed
}

// outcome is what was delivered; the caller has seen done closed.
func (h *handoff) outcome() outcome {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.o
}

func (h *handoff) abandon() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.abandoned = true
	if h.delivered && h.o.sub != nil {
		h.o.sub.Close()
	}
	h.o = outcome{}
}

// firstTurn is what the first turn of a new task needs, in one allocation:
// the task's run, its Events, creation and handoff, and the executor's
// Request with its one-message history. The run keeps it for as long as
// it runs. The task's copy of the request's message is not part of it:
// the store keeps that message in the task's history for as long as it
// keeps the task, and a pointer into this block would keep all of it —
// the run with the caller's context, the handoff with its subscription —
// reachable as well (TestFinishedTaskKeepsNoCall).
type firstTurn struct {
	run     run
	ev      Events
	create  creation
	handoff handoff
	req     Request
	history [1]*a2av1.Message
}
