package sqlrecord

import (
	"context"
	"errors"
	"fmt"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Names is how a store names itself in its errors ("sqlite store PATH",
// "postgres store URL").
type Names string

// Err turns a failed database call into the error the store reports: the
// caller's context error as is, store.ErrClosed when the store is closed,
// otherwise the database error wrapped with what was being done.
func (n Names) Err(closed bool, what string, err error) error {
	if closed {
		return store.ErrClosed
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s: %s: %w", n, what, err)
}

// Stored is what a store reads of a task to tell why a write matched no row.
type Stored struct {
	Found      bool // false: no row
	Version    int64
	State      a2av1.TaskState
	StatusTime int64
	EndedAt    int64
	Ended      bool
}

// Miss says why a write of task id computed from version expect matched no
// row, given the task as stored now: store.ErrNotFound (no row, or one a
// read treats as gone), store.ErrTerminal, store.ErrConflict; nil when none
// applies, and the store decides (retry, or report the miss).
func (c Cutoffs) Miss(id string, st Stored, expect, now int64) error {
	switch {
	case !st.Found, c.Expired(st.EndedAt, st.Ended, now), c.WaitedOut(st.State, st.StatusTime, now):
		return fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	case st.Ended:
		return fmt.Errorf("%w: task %q is %s", store.ErrTerminal, id, StateName(st.State))
	case st.Version != expect:
		return fmt.Errorf("%w: task %q is at version %d, not %d", store.ErrConflict, id, st.Version, expect)
	}
	return nil
}

// StateName is a task state without its TASK_STATE_ prefix.
func StateName(s a2av1.TaskState) string { return strings.TrimPrefix(s.String(), "TASK_STATE_") }
