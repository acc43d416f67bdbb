package server

import (
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Write batching. The first changes of a new task started by a blocking
// SendMessage without a webhook (nobody but the initiator knows the task,
// and it sees nothing before the task settles) may wait up to the batch
// window to be written together with the next ones: a task that settles
// within it (most simple tasks: an artifact, then COMPLETED) is created
// settled, in one store write and one commit instead of one per change;
// one that does not is created when the window ends, with every change
// made so far.

// DefaultBatchWindow is how long the first changes of a new task may be
// held to be written together; see WithBatchWindow.
const DefaultBatchWindow = 5 * time.Millisecond

// WithBatchWindow sets how long the first changes of a new task whose
// initiator waits for it to settle (a blocking SendMessage without an
// inline webhook) may be held, to be stored together in the write that
// creates the task (DefaultBatchWindow; d < 0: no batching, every change
// is written as it happens; 0 keeps the default). A longer window lets
// slower tasks be created settled in one write; the task becomes visible
// to GetTask and ListTasks up to d later. A failure to store held changes
// is returned by the executor's next Events call.
func WithBatchWindow(d time.Duration) Option {
	return func(s *Server) {
		switch {
		case d < 0:
			s.writer.batchWindow = 0
		case d > 0:
			s.writer.batchWindow = d
		}
	}
}

// held is a new task whose creation is held back: the task as it will be
// created, the changes of the executor applied to it.
type held struct {
	task  *a2av1.Task   // SUBMITTED, as created
	snap  *a2av1.Task   // with the held changes applied
	steps []*a2av1.Task // the snapshot after each change, for the state observer
	timer *holdTimer

	stepsBuf [2]*a2av1.Task // steps' first array: most creations hold one or two changes
}

// holdTimers are the timers of held creations, reused: a timer stopped
// before it fired goes back to the pool, one that fired (or is firing) is
// left to the collector.
var holdTimers sync.Pool

// holdTimer flushes one held creation when its window ends.
type holdTimer struct {
	t  *time.Timer
	mu sync.Mutex
	e  *Events
	h  *held
}

// startHoldTimer starts a timer that flushes h, held by e, when the batch
// window ends.
func startHoldTimer(e *Events, h *held, window time.Duration) *holdTimer {
	ht, _ := holdTimers.Get().(*holdTimer)
	if ht == nil {
		ht = &holdTimer{}
	}
	ht.mu.Lock()
	ht.e, ht.h = e, h
	ht.mu.Unlock()
	if ht.t == nil {
		ht.t = time.AfterFunc(window, ht.fire)
	} else {
		ht.t.Reset(window)
	}
	return ht
}

func (ht *holdTimer) fire() {
	ht.mu.Lock()
	e, h := ht.e, ht.h
	ht.mu.Unlock()
	if e != nil {
		e.flushHeldByTimer(h)
	}
}

// stop stops the timer; one that will not fire any more is reused.
func (ht *holdTimer) stop() {
	if !ht.t.Stop() {
		return
	}
	ht.mu.Lock()
	ht.e, ht.h = nil, nil
	ht.mu.Unlock()
	holdTimers.Put(ht)
}

// mayHold reports whether a new task's first changes may be held back: its
// initiator waits for the task to settle and sees nothing before (no stream,
// no returnImmediately), and no inline webhook must receive each change as
// it happens. Nobody else knows the task's id before the initiator's answer.
func (c *creation) mayHold(window time.Duration) bool {
	return c.fold && c.pushConfig.TaskPushNotificationConfig == nil && c.handoff.follow == followOutcome && window > 0
}

// holdLocked applies ch to the held creation, starting it (and its timer)
// at the first change. The creation is written when a change settles the
// task (terminal or interrupted), when the window ends, or when the turn
// ends, whichever comes first. A first change that fails creates the task
// without it at once, as createLocked does.
func (e *Events) holdLocked(ch change) error {
	h := e.held
	if h == nil {
		task := e.newTaskLocked()
		next, _, err := ch(task)
		if err != nil {
			return e.createLocked(ch)
		}
		if c := e.create; !c.firstHeldUsed {
			c.firstHeldUsed = true
			h = &c.firstHeld
		} else {
			h = &held{}
		}
		h.task, h.snap = task, next
		h.steps = append(h.stepsBuf[:0], next)
		e.held = h
		if !isSettled(next.GetStatus().GetState()) {
			h.timer = startHoldTimer(e, h, e.run.s.writer.batchWindow)
			return nil
		}
		return e.flushHeldLocked()
	}
	next, _, err := ch(h.snap)
	if err != nil {
		return err
	}
	h.snap = next
	h.steps = append(h.steps, next)
	if isSettled(next.GetStatus().GetState()) {
		return e.flushHeldLocked()
	}
	return nil
}

// flushHeldLocked writes the held creation. The events of held changes
// are not stored: nobody follows the task's events (see mayHold), and a
// later subscriber starts from the task's snapshot.
func (e *Events) flushHeldLocked() error {
	h := e.held
	if h == nil {
		return nil
	}
	e.held = nil
	if h.timer != nil {
		h.timer.stop()
	}
	return e.writeCreationLocked(h.task, h.snap, nil, h.steps)
}

// flushHeldByTimer writes the creation h when its window ends and it is
// still held; a failure is returned by the executor's next Events call (the
// initiator has received it already).
func (e *Events) flushHeldByTimer(h *held) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held != h {
		return
	}
	if err := e.flushHeldLocked(); err != nil {
		e.heldErr = err
	}
}

// takeHeldErrLocked returns, once, the failure of a creation written by
// its timer.
func (e *Events) takeHeldErrLocked() error {
	err := e.heldErr
	e.heldErr = nil
	return err
}
