package store

import (
	"fmt"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// IsTerminal reports whether s is a terminal state: COMPLETED, FAILED,
// CANCELED or REJECTED. A terminal task never changes again.
func IsTerminal(s a2av1.TaskState) bool { return slices.Contains(terminalStates, s) }

var terminalStates = []a2av1.TaskState{
	a2av1.TaskState_TASK_STATE_COMPLETED, a2av1.TaskState_TASK_STATE_FAILED,
	a2av1.TaskState_TASK_STATE_CANCELED, a2av1.TaskState_TASK_STATE_REJECTED,
}

// IsInterrupted reports whether s waits for the client: INPUT_REQUIRED or
// AUTH_REQUIRED.
func IsInterrupted(s a2av1.TaskState) bool {
	return s == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || s == a2av1.TaskState_TASK_STATE_AUTH_REQUIRED
}

// ValidTransition reports whether a task in state from may move to state to.
// Nothing leaves a terminal state, and no task is ever in
// TASK_STATE_UNSPECIFIED or in a state this package does not know. Every
// other move is allowed: agents may go back to WORKING from an interrupted
// state, restate WORKING to update the status message, or fail straight from
// SUBMITTED.
func ValidTransition(from, to a2av1.TaskState) error {
	switch {
	case IsTerminal(from):
		return fmt.Errorf("%w: %s is terminal, cannot move to %s", ErrInvalidTransition, stateName(from), stateName(to))
	case to == a2av1.TaskState_TASK_STATE_UNSPECIFIED:
		return fmt.Errorf("%w: a task cannot be in %s", ErrInvalidTransition, stateName(to))
	case a2av1.TaskState_name[int32(to)] == "":
		return fmt.Errorf("%w: unknown state %d", ErrInvalidTransition, int32(to))
	}
	return nil
}

// stateName is the short name of a state, e.g. "COMPLETED".
func stateName(s a2av1.TaskState) string {
	return strings.TrimPrefix(s.String(), "TASK_STATE_")
}

// CursorOf returns the listing position of a task.
func CursorOf(t *a2av1.Task) Cursor {
	return Cursor{Time: t.GetStatus().GetTimestamp().AsTime(), ID: t.GetId()}
}

// Compare orders cursors in listing order: newest status timestamp first,
// then greater task id first. It returns a negative number when c comes
// before d, zero when they are equal and a positive number otherwise.
func (c Cursor) Compare(d Cursor) int {
	if cmp := d.Time.Compare(c.Time); cmp != 0 {
		return cmp
	}
	return strings.Compare(d.ID, c.ID)
}

// CheckSnapshot reports what is wrong with a task snapshot a store is asked
// to keep: it must be a non-nil task with an id and a status in a real state.
// Stores use it so that they all report the same ErrInvalidTransition errors.
func CheckSnapshot(t *a2av1.Task) error {
	switch {
	case t == nil:
		return fmt.Errorf("%w: nil task", ErrInvalidTransition)
	case t.GetId() == "":
		return fmt.Errorf("%w: task without id", ErrInvalidTransition)
	case t.GetStatus() == nil:
		return fmt.Errorf("%w: task %q without status", ErrInvalidTransition, t.GetId())
	case t.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_UNSPECIFIED:
		return fmt.Errorf("%w: task %q in %s", ErrInvalidTransition, t.GetId(), stateName(t.GetStatus().GetState()))
	}
	return nil
}
