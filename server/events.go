package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Errors Events methods return besides store errors. An event for a task that
// already ended (for example because a client canceled it) fails with an
// error that matches store.ErrTerminal.
var (
	// ErrClosed: Events was used after Execute returned.
	ErrClosed = errors.New("server: Events used after Execute returned")
	// ErrReplied: the executor already answered with a direct message, so
	// there is no task to report on.
	ErrReplied = errors.New("server: the executor already replied with a message")
	// ErrTaskStarted: Reply was called for a message that belongs to a task.
	// A direct reply is only possible before the first task event; later,
	// send messages as status messages (e.g. Complete(msg)).
	ErrTaskStarted = errors.New("server: Reply after the task was created; use a status message instead")
	// ErrFollowUpPending: a method that would end the task (Complete, Fail,
	// Reject, Status with a terminal state) was called while a message that
	// a client sent to the task waits on Request.FollowUps, not taken by the
	// execution. The task does not end: the message was accepted, so it
	// must reach the agent. Take it from FollowUps and go on, or return
	// (this error or nil) from Execute: the next turn then starts with it.
	ErrFollowUpPending = errors.New("server: a message sent to the task waits on Request.FollowUps; the task cannot end before the agent has it (take it, or return from Execute and get it in the next turn)")
)

// Events is the executor's side of one turn of a task: each method records
// one change, which the server stores, streams and posts to webhooks before
// the method returns. The task itself is created (in SUBMITTED, with the
// message in its history) by the first event; a Reply before any event
// answers without a task. One exception: the first changes of a new task
// whose caller waits for it to settle (a blocking SendMessage without an
// inline webhook: nobody else knows the task yet) are held for up to 5 ms
// (WithBatchWindow) and stored together, so that a task settled at once is created settled
// in one write; a failure to store them is returned by the next method
// called (docs/storage.md, "Held creations").
//
// Events takes ownership of the messages and artifacts passed to it: it
// fills in missing ids, the agent role and the task's ids, and they must not
// be modified afterwards. Methods are safe to call from several goroutines;
// each change is applied in call order.
type Events struct {
	run      *run
	req      *Request
	storeCtx context.Context // outlives cancellation: final writes must land

	mu      sync.Mutex
	rec     store.Record // Task is nil until the task exists
	replied bool
	closed  bool
	create  *creation // set when this turn creates its task
	held    *held     // the new task's first changes, not yet written
	heldErr error     // the failure of a held creation written by its timer
	// checkPart, when set (CheckParts), vets every part of a status
	// message, an artifact or a reply before the change is applied.
	checkPart func(where string, p *a2av1.Part) error
}

// Task returns the current snapshot of the task (read-only), or nil before the
// first event of a new task.
func (e *Events) Task() *a2av1.Task {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held != nil {
		return e.held.snap
	}
	return e.rec.Task
}

// Submit creates the task (SUBMITTED) if it does not exist yet, without any
// other event: clients waiting with returnImmediately get it now, before the
// executor's first real progress.
func (e *Events) Submit() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.writableLocked(); err != nil {
		return err
	}
	return e.ensureTaskLocked()
}

// CheckParts makes every later event of this turn that carries parts (a
// status message, an artifact or artifact chunk, a reply) pass each part to
// check first, with where it is ("artifact \"a1\" parts[0]", "status
// message parts[1]", "reply parts[0]"): an error refuses the event, which is
// neither stored nor sent, and the method returns that error. Package host
// holds each skill to the outputModes of its card with it; nil removes the
// check.
func (e *Events) CheckParts(check func(where string, p *a2av1.Part) error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.checkPart = check
}

// partCheck is the CheckParts check, or nil.
func (e *Events) partCheck() func(where string, p *a2av1.Part) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.checkPart
}

// checkParts runs the CheckParts check on parts, described by what.
func (e *Events) checkParts(what string, parts []*a2av1.Part) error {
	check := e.partCheck()
	if check == nil {
		return nil
	}
	for i, p := range parts {
		if err := check(fmt.Sprintf("%s parts[%d]", what, i), p); err != nil {
			return err
		}
	}
	return nil
}

// Status moves the task to state, with an optional status message from the
// agent. A terminal state is refused with ErrFollowUpPending while a
// follow-up message waits on Request.FollowUps.
func (e *Events) Status(state a2av1.TaskState, msg *a2av1.Message) error {
	if err := e.checkParts("status message", msg.GetParts()); err != nil {
		return err
	}
	ch := setStatus(state, msg)
	if store.IsTerminal(state) {
		set, r := ch, e.run
		// Decided under the task's lock, which a follow-up holds while it
		// joins the history and FollowUps: it either comes first, and the
		// task does not end, or finds the task ended and is refused.
		ch = func(cur *a2av1.Task) (*a2av1.Task, []*a2av1.StreamResponse, error) {
			if r.followUpWaitingLocked() {
				return nil, nil, ErrFollowUpPending
			}
			return set(cur)
		}
	}
	return e.apply(ch)
}

// Working moves the task to WORKING.
func (e *Events) Working() error { return e.Status(a2av1.TaskState_TASK_STATE_WORKING, nil) }

// Complete ends the task successfully (COMPLETED), optionally with a message.
func (e *Events) Complete(msg *a2av1.Message) error {
	return e.Status(a2av1.TaskState_TASK_STATE_COMPLETED, msg)
}

// Fail ends the task as FAILED; msg should say why.
func (e *Events) Fail(msg *a2av1.Message) error {
	return e.Status(a2av1.TaskState_TASK_STATE_FAILED, msg)
}

// Reject ends the task as REJECTED: the agent will not do it; msg should say
// why.
func (e *Events) Reject(msg *a2av1.Message) error {
	return e.Status(a2av1.TaskState_TASK_STATE_REJECTED, msg)
}

// InputRequired pauses the task until the client sends another message; msg
// says what is needed. Streams end here; the next message to the task starts
// a new turn (or arrives on Request.FollowUps if Execute is still running).
func (e *Events) InputRequired(msg *a2av1.Message) error {
	return e.Status(a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, msg)
}

// AuthRequired pauses the task until the client has authenticated with some
// party out of band; msg says what is needed. Unlike INPUT_REQUIRED, streams
// stay open, since the agent may resume on its own.
func (e *Events) AuthRequired(msg *a2av1.Message) error {
	return e.Status(a2av1.TaskState_TASK_STATE_AUTH_REQUIRED, msg)
}

// Artifact adds a complete artifact (or replaces the one with the same id).
// An empty ArtifactId is replaced by a generated one.
func (e *Events) Artifact(a *a2av1.Artifact) error { return e.ArtifactChunk(a, false, true) }

// ArtifactChunk sends one piece of an artifact that is produced
// incrementally: add appends a's parts to the artifact with the same id (the
// first chunk has add false), last marks the final chunk.
func (e *Events) ArtifactChunk(a *a2av1.Artifact, add, last bool) error {
	if a == nil || len(a.GetParts()) == 0 {
		return fmt.Errorf("server: an artifact needs at least one part")
	}
	if a.GetArtifactId() == "" {
		if add {
			return fmt.Errorf("server: an artifact chunk to append to needs the artifact's id")
		}
		a.ArtifactId = newID()
	}
	if e.partCheck() != nil { // the description only when a check reads it
		if err := e.checkParts(fmt.Sprintf("artifact %q", a.GetArtifactId()), a.GetParts()); err != nil {
			return err
		}
	}
	return e.apply(func(cur *a2av1.Task) (*a2av1.Task, []*a2av1.StreamResponse, error) {
		if store.IsTerminal(cur.GetStatus().GetState()) {
			return nil, nil, errTerminal(cur)
		}
		next := withArtifact(cur, a, add)
		return next, artifactEvents(next, a, add, last), nil
	})
}

// Reply answers the message directly, without a task: the client receives
// msg as the response (a stream carries only this message). It is only
// possible as the first and only event of a message that does not belong to
// a task yet.
func (e *Events) Reply(msg *a2av1.Message) error {
	if msg == nil || len(msg.GetParts()) == 0 {
		return fmt.Errorf("server: a reply needs at least one part")
	}
	if err := e.checkParts("reply", msg.GetParts()); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
		return ErrClosed
	case e.replied:
		return ErrReplied
	case e.rec.Task != nil || e.held != nil || e.create == nil:
		return ErrTaskStarted
	}
	fillAgentMessage(msg, "", e.req.ContextID)
	e.replied = true
	e.create.handoff.deliver(outcome{reply: msg})
	return nil
}

// writableLocked is why an event of this turn cannot be written: the
// turn ended (ErrClosed), or the creation its timer wrote failed (returned
// once); nil when it can.
func (e *Events) writableLocked() error {
	if e.closed {
		return ErrClosed
	}
	return e.takeHeldErrLocked()
}

// apply creates the task if needed and commits ch to it.
func (e *Events) apply(ch change) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.writableLocked(); err != nil {
		return err
	}
	if e.rec.Task == nil && e.create != nil && e.create.fold && !e.replied {
		if e.held != nil || e.create.mayHold(e.run.s.writer.batchWindow) {
			return e.holdLocked(ch)
		}
		return e.createLocked(ch)
	}
	if err := e.ensureTaskLocked(); err != nil {
		return err
	}
	s, key := e.run.s, e.run.key
	held := e.run.stripe // s.writer.lock(key), without hashing the key on every event
	held.Lock()
	rec, err := s.writer.commit(e.storeCtx, key, e.rec, ch, true)
	held.Unlock()
	if err != nil {
		return err
	}
	e.rec = rec
	return nil
}
