package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// change computes the next snapshot of a task from the current one, and the
// events announcing it. It must not modify cur; it may be called again with a
// newer cur when another writer got in first.
type change func(cur *a2av1.Task) (*a2av1.Task, []*a2av1.StreamResponse, error)

// maxConflicts bounds how often one write is retried after losing to other
// writers. Writers in this process take the task's lock, so conflicts come
// only from other replicas sharing the store.
const maxConflicts = 32

// commitLocked applies ch to the task and writes the result, starting from
// rec (the writer's latest known record) and re-reading after a conflict.
// On success the store publishes the events to the task's subscribers and
// queues them, in the same write, for every webhook of the task. byRun says
// that the writer is the task's execution in this process, which renews its
// execution record. The caller holds the task's lock.
func (s *Server) commitLocked(ctx context.Context, key taskKey, rec store.Record, ch change, byRun bool) (store.Record, error) {
	for attempt := 0; ; attempt++ {
		next, events, err := ch(rec.Task)
		if err != nil {
			return rec, err
		}
		u := store.Update{Tenant: key.tenant, Task: next, Expect: rec.Version, Events: events, Trace: s.traceOf(ctx, events)}
		if byRun && rec.Runner != s.runner {
			// The execution moves here (a new turn after another instance's,
			// or after a restart). Later writes leave the record alone: the
			// renewal ticker keeps the lease, so that a write touches no
			// more of the store than its change.
			u.Runner, u.LeaseUntil = s.runner, s.leaseEnd()
		}
		v, err := s.store.UpdateTask(ctx, u)
		if err == nil {
			s.observeState(ctx, key.tenant, rec.Task, next)
			rec = store.Record{Tenant: key.tenant, Owner: rec.Owner, Version: v, Task: next, Runner: rec.Runner, LeaseUntil: rec.LeaseUntil}
			switch {
			case store.IsTerminal(next.GetStatus().GetState()):
				rec.Runner, rec.LeaseUntil = "", time.Time{}
			case u.Runner != "":
				rec.Runner, rec.LeaseUntil = u.Runner, u.LeaseUntil
			}
			return rec, nil
		}
		if !errors.Is(err, store.ErrConflict) || attempt == maxConflicts {
			return rec, err
		}
		if rec, err = s.store.Task(ctx, key.tenant, key.id); err != nil {
			return rec, err
		}
	}
}

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
