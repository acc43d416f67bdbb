package server

import (
	"fmt"
	"strconv"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Task generations (A2A 1.1, §3.2.7): a new task is at generation 1, and
// every state-changing mutation — a status change, an artifact added or
// updated — takes it one further and is announced by exactly one event,
// which carries the generation after it. The snapshot builders stamp it
// (submittedTask, statusInto, withArtifact; the events take their
// snapshot's), so every path that writes — commit, a held or folded
// creation, recovery — counts alike; a message joining the history of a
// running task is no mutation and sends no event. The stores count the
// same numbers from the events each write carries (store.Record.Generation),
// which is what a task read from a database written before generations
// existed gets (sqlrecord). Long-polls wait for it (longpoll.go);
// if_generation_match guards follow-ups with it (followUp).

// firstGeneration is a new task's generation.
const firstGeneration = 1

// nextGeneration is the generation after one mutation of t.
func nextGeneration(t *a2av1.Task) int64 { return t.GetGeneration() + 1 }

// checkGenerationMatch refuses a follow-up whose ifGenerationMatch (want;
// nil: none) is not the generation of task, the task as the write found it.
func checkGenerationMatch(want *int64, task *a2av1.Task) error {
	if want == nil || *want == task.GetGeneration() {
		return nil
	}
	id, cur := task.GetId(), task.GetGeneration()
	return runtime.NewError(runtime.CodeTaskGenerationMismatch, fmt.Sprintf(
		"task %q is at generation %d, not %d (configuration.ifGenerationMatch): it changed since it was read; read it again (GetTask) and send the message if it still applies",
		id, cur, *want)).
		WithMetadata("taskId", id).
		WithMetadata("expectedGeneration", strconv.FormatInt(*want, 10)).
		WithMetadata("currentGeneration", strconv.FormatInt(cur, 10))
}
