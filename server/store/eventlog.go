package store

import (
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// The event log: every store keeps the events its writes carried, each
// under the generation the task reached with it (the creation's generation
// plus its place among the events written since), so that a stream cut
// off after generation N can be resumed with exactly the events after N
// (the server's SubscribeToTask with Last-Event-ID). The log is durable
// where the store is: SQLite and PostgreSQL write it in the transaction of
// the task write, so a restart or another replica reads what was
// published. What it holds:
//
//   - the events of UpdateTask, not those of a creation (a task is created
//     at its first generation, which its snapshot shows: a resume from
//     before it starts from the snapshot);
//   - memory: the last MemoryEventLogLen events of each task (of an ended
//     task only while it is among the last MemoryEndedTaskLogs to end); SQLite and
//     PostgreSQL: every event of the task, removed with the task (retention
//     decides how long, docs/storage.md). Rows PostgreSQL wrote before the
//     log kept generations have none and are not returned.
//
// A caller finding the log without generation after+1 (trimmed, or a
// creation that folded events in) starts from the task's snapshot instead.

// LoggedEvent is one event of a task's log.
type LoggedEvent struct {
	// Generation is the task's generation after the event.
	Generation int64
	// Version is the task version written together with the event.
	Version int64
	// Response is a statusUpdate or artifactUpdate (never to be modified).
	Response *a2av1.StreamResponse
}

// MemoryEventLogLen is how many of a task's latest events the memory store
// keeps for resumption.
const MemoryEventLogLen = 1024

// MemoryEndedTaskLogs is how many of the tasks that ended last keep their
// event log in the memory store; an older ended task's log is dropped, and a
// resumption of it starts from its snapshot, which shows how it ended.
// Resuming a stream is a matter of seconds after the cut, and a finished
// task's log would otherwise keep every event the task sent (a streamed
// artifact's chunks among them) for as long as the task is kept.
const MemoryEndedTaskLogs = 1024

// Contiguous reports whether evs are the events after generation after, one
// generation each, without a gap: what a resumption may replay.
func Contiguous(evs []LoggedEvent, after int64) bool {
	for i, ev := range evs {
		if ev.Generation != after+int64(i)+1 {
			return false
		}
	}
	return true
}
