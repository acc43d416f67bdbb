package server

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// change computes the next snapshot of a task from the current one, and the
// events announcing it. It must not modify cur; it may be called again with a
// newer cur when another writer got in first. A change that returns cur
// itself and no events leaves the task as it is: nothing is written.
type change func(cur *a2av1.Task) (*a2av1.Task, []*a2av1.StreamResponse, error)

// errTerminal reports a write refused because the task already ended.
func errTerminal(t *a2av1.Task) error {
	return fmt.Errorf("server: task %q is %s: %w", t.GetId(), t.GetStatus().GetState(), store.ErrTerminal)
}

// setStatus is the change to a new state with an optional status message
// (completed with the task's ids and the agent role).
func setStatus(state a2av1.TaskState, msg *a2av1.Message) change {
	return func(cur *a2av1.Task) (*a2av1.Task, []*a2av1.StreamResponse, error) {
		from := cur.GetStatus().GetState()
		if store.IsTerminal(from) {
			return nil, nil, errTerminal(cur)
		}
		if err := store.ValidTransition(from, state); err != nil {
			return nil, nil, err
		}
		if msg != nil {
			fillAgentMessage(msg, cur.GetId(), cur.GetContextId())
		}
		next, events := changedStatus(cur, state, msg)
		return next, events, nil
	}
}

// resubmit is the change that puts an interrupted task (INPUT_REQUIRED,
// AUTH_REQUIRED) back to SUBMITTED for its next turn. A task no longer
// interrupted when the write happens (a follow-up did it first, after the
// turn's last read) is left as it is, so no second SUBMITTED is announced.
func resubmit(cur *a2av1.Task) (*a2av1.Task, []*a2av1.StreamResponse, error) {
	if !store.IsInterrupted(cur.GetStatus().GetState()) {
		return cur, nil, nil
	}
	return setStatus(a2av1.TaskState_TASK_STATE_SUBMITTED, nil)(cur)
}

// fillAgentMessage gives an outgoing message what the protocol requires of
// it: an id, the agent role and the task's ids.
func fillAgentMessage(m *a2av1.Message, taskID, contextID string) {
	if m.GetMessageId() == "" {
		m.MessageId = newID()
	}
	if m.GetRole() == a2av1.Role_ROLE_UNSPECIFIED {
		m.Role = a2av1.Role_ROLE_AGENT
	}
	m.TaskId = taskID
	m.ContextId = contextID
}

// Building a change: each builds several small objects that live and die
// together (the new snapshot, its status and timestamp, the event and the
// event's wrappers). Each kind of change allocates them as one block (the fields below are never
// copied, only pointed to), which takes a status change from seven
// allocations to one and an artifact chunk from six to two. The snapshots
// stay what snapshot.go says: new objects, never modified after they are
// returned.

// statusChange is what a status change builds.
type statusChange struct {
	task   a2av1.Task
	status a2av1.TaskStatus
	stamp  timestamppb.Timestamp
	event  a2av1.StreamResponse
	wrap   a2av1.StreamResponse_StatusUpdate
	update a2av1.TaskStatusUpdateEvent
	events [1]*a2av1.StreamResponse
}

// changedStatus returns t in a new status (state, msg, now) as withStatus
// does, and its status-update event.
func changedStatus(t *a2av1.Task, state a2av1.TaskState, msg *a2av1.Message) (*a2av1.Task, []*a2av1.StreamResponse) {
	c := new(statusChange)
	setNow(&c.stamp)
	c.status.State, c.status.Message, c.status.Timestamp = state, msg, &c.stamp
	statusInto(&c.task, t, &c.status)
	c.update.TaskId, c.update.ContextId, c.update.Status, c.update.Generation = c.task.GetId(), c.task.GetContextId(), &c.status, c.task.GetGeneration()
	c.wrap.StatusUpdate = &c.update
	c.event.Payload = &c.wrap
	c.events[0] = &c.event
	return &c.task, c.events[:]
}

// artifactChange is what an artifact chunk builds besides the new list of
// artifacts (and a merged artifact when it appends).
type artifactChange struct {
	event  a2av1.StreamResponse
	wrap   a2av1.StreamResponse_ArtifactUpdate
	update a2av1.TaskArtifactUpdateEvent
	events [1]*a2av1.StreamResponse
}

// artifactEvents is the artifact-update event of chunk a of task t (the
// snapshot with the chunk applied, whose generation it carries), in a
// one-element list, in one allocation.
func artifactEvents(t *a2av1.Task, a *a2av1.Artifact, add, last bool) []*a2av1.StreamResponse {
	c := new(artifactChange)
	c.update.TaskId, c.update.ContextId, c.update.Artifact, c.update.Append, c.update.LastChunk = t.GetId(), t.GetContextId(), a, add, last
	c.update.Generation = t.GetGeneration()
	c.wrap.ArtifactUpdate = &c.update
	c.event.Payload = &c.wrap
	c.events[0] = &c.event
	return c.events[:]
}

// newTask is what a new task's first snapshot holds.
type newTask struct {
	task    a2av1.Task
	status  a2av1.TaskStatus
	stamp   timestamppb.Timestamp
	history [1]*a2av1.Message
}

// submittedTask returns a new SUBMITTED task with msg in its history, in
// one allocation.
func submittedTask(id, contextID string, msg *a2av1.Message) *a2av1.Task {
	n := new(newTask)
	setNow(&n.stamp)
	n.status.State, n.status.Timestamp = a2av1.TaskState_TASK_STATE_SUBMITTED, &n.stamp
	n.history[0] = msg
	n.task.Id, n.task.ContextId, n.task.Status, n.task.History = id, contextID, &n.status, n.history[:]
	n.task.Generation = firstGeneration
	return &n.task
}

// setNow sets ts to now() without allocating one.
func setNow(ts *timestamppb.Timestamp) {
	t := time.Now().UTC().Truncate(time.Millisecond)
	ts.Seconds, ts.Nanos = t.Unix(), int32(t.Nanosecond())
}
