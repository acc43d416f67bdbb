package server

import (
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Task snapshots are immutable and shared (by the store, by streams, by
// responses being encoded), so every change builds a new Task that points to
// the unchanged parts of the old one. These helpers are the only places that
// build snapshots; nothing here modifies its input.

// shallow returns a new Task sharing every field of t.
func shallow(t *a2av1.Task) *a2av1.Task {
	n := new(a2av1.Task)
	shallowInto(n, t)
	return n
}

// shallowInto makes the new Task n share every field of t.
func shallowInto(n, t *a2av1.Task) {
	n.Id, n.ContextId, n.Status = t.GetId(), t.GetContextId(), t.GetStatus()
	n.Artifacts, n.History, n.Metadata = t.GetArtifacts(), t.GetHistory(), t.GetMetadata()
	n.Generation = t.GetGeneration()
}

// appended returns a new slice holding s and then more. It never writes into
// s's spare capacity: that array may back a snapshot someone else is reading
// or another writer's attempt.
func appended[T any](s []T, more ...T) []T {
	out := make([]T, 0, len(s)+len(more))
	return append(append(out, s...), more...)
}

// withStatus returns t in a new status. The previous status message, if any,
// moves into the history, so the history keeps the conversation in order
// while the current status message stays where clients look for it.
func withStatus(t *a2av1.Task, st *a2av1.TaskStatus) *a2av1.Task {
	n := new(a2av1.Task)
	statusInto(n, t, st)
	return n
}

// statusInto makes the new Task n t in status st (see withStatus): one
// mutation, a generation more (generation.go).
func statusInto(n, t *a2av1.Task, st *a2av1.TaskStatus) {
	shallowInto(n, t)
	n.Status = st
	n.Generation = nextGeneration(t)
	if prev := t.GetStatus().GetMessage(); prev != nil {
		n.History = appended(t.GetHistory(), prev)
	}
}

// withMessage returns t with msg at the end of its history.
func withMessage(t *a2av1.Task, msg *a2av1.Message) *a2av1.Task {
	n := shallow(t)
	n.History = appended(t.GetHistory(), msg)
	return n
}

// withArtifact returns t with the artifact chunk a applied: appended to the
// parts of the artifact with the same id when add is set (a new artifact if
// there is none yet), otherwise added or replacing that artifact. It is one
// mutation, a generation more (generation.go).
func withArtifact(t *a2av1.Task, a *a2av1.Artifact, add bool) *a2av1.Task {
	if len(t.GetArtifacts()) == 0 {
		return withFirstArtifact(t, a)
	}
	for i, old := range t.GetArtifacts() {
		if old.GetArtifactId() != a.GetArtifactId() {
			continue
		}
		if add {
			return withChunkAppended(t, i, a)
		}
		n := shallow(t)
		n.Generation = nextGeneration(t)
		arts := appended(t.GetArtifacts())
		arts[i] = a
		n.Artifacts = arts
		return n
	}
	n := shallow(t)
	n.Generation = nextGeneration(t)
	n.Artifacts = appended(t.GetArtifacts(), a)
	return n
}

// withChunkAppended is withArtifact of chunk a appended to the parts of
// t's artifact i (which has a's id): the new snapshot and the merged
// artifact in one allocation, with the artifact list too when the task has
// that one artifact only.
func withChunkAppended(t *a2av1.Task, i int, a *a2av1.Artifact) *a2av1.Task {
	b := &struct {
		task   a2av1.Task
		merged a2av1.Artifact
		only   [1]*a2av1.Artifact
	}{}
	shallowInto(&b.task, t)
	b.task.Generation = nextGeneration(t)
	old, merged := t.GetArtifacts()[i], &b.merged
	merged.ArtifactId = old.GetArtifactId()
	merged.Name = firstNonEmpty(a.GetName(), old.GetName())
	merged.Description = firstNonEmpty(a.GetDescription(), old.GetDescription())
	merged.Parts = appended(old.GetParts(), a.GetParts()...)
	merged.Metadata, merged.Extensions = old.GetMetadata(), old.GetExtensions()
	if a.GetMetadata() != nil {
		merged.Metadata = a.GetMetadata()
	}
	if len(a.GetExtensions()) > 0 {
		merged.Extensions = a.GetExtensions()
	}
	if len(t.GetArtifacts()) == 1 {
		b.only[0] = merged
		b.task.Artifacts = b.only[:]
	} else {
		arts := appended(t.GetArtifacts())
		arts[i] = merged
		b.task.Artifacts = arts
	}
	return &b.task
}

// withFirstArtifact is withArtifact of a task without artifacts: the new
// snapshot and its one-artifact list in one allocation.
func withFirstArtifact(t *a2av1.Task, a *a2av1.Artifact) *a2av1.Task {
	b := &struct {
		task      a2av1.Task
		artifacts [1]*a2av1.Artifact
	}{}
	shallowInto(&b.task, t)
	b.task.Generation = nextGeneration(t)
	b.artifacts[0] = a
	b.task.Artifacts = b.artifacts[:]
	return &b.task
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ownMessage fills own with msg as a task keeps it: the same content
// (shared, never modified) with the task's ids, taskID and contextID. The
// server never writes into a caller's request: the request may be reused
// by a program calling the server directly, and interceptors read it after
// the handler returned.
func ownMessage(own, msg *a2av1.Message, taskID, contextID string) *a2av1.Message {
	own.MessageId, own.ContextId, own.TaskId, own.Role = msg.GetMessageId(), contextID, taskID, msg.GetRole()
	own.Parts, own.Metadata = msg.GetParts(), msg.GetMetadata()
	own.Extensions, own.ReferenceTaskIds = msg.GetExtensions(), msg.GetReferenceTaskIds()
	if u := msg.ProtoReflect().GetUnknown(); len(u) > 0 {
		own.ProtoReflect().SetUnknown(u)
	}
	return own
}

// taskEvent is the stream event carrying a whole task.
func taskEvent(t *a2av1.Task) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: t}}
}

// statusEvent is the status-update event of snapshot t.
func statusEvent(t *a2av1.Task) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: t.GetId(), ContextId: t.GetContextId(), Status: t.GetStatus(), Generation: t.GetGeneration(),
	}}}
}

// view returns t as a response shows it: history trimmed to the last
// historyLength messages (nil: all; 0: none, the member is omitted), and
// artifacts dropped unless includeArtifacts. It returns t itself when nothing
// changes, so the common case copies nothing.
func view(t *a2av1.Task, historyLength *int32, includeArtifacts bool) *a2av1.Task {
	trim := historyLength != nil && int(*historyLength) < len(t.GetHistory())
	drop := !includeArtifacts && len(t.GetArtifacts()) > 0
	if !trim && !drop {
		return t
	}
	n := shallow(t)
	if trim {
		if *historyLength <= 0 {
			n.History = nil
		} else {
			h := t.GetHistory()
			n.History = h[len(h)-int(*historyLength) : len(h) : len(h)]
		}
	}
	if drop {
		n.Artifacts = nil
	}
	return n
}
