package sqlrecord

import (
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Cutoffs says which tasks a read treats as gone before the sweep removes
// them: terminal tasks that ended more than TTL ago, interrupted ones whose
// status is older than InterruptedTTL. Zero durations keep them.
type Cutoffs struct {
	TTL, InterruptedTTL time.Duration
	// Now is the store's clock.
	Now func() time.Time
}

// NowNanos is the clock in unix nanoseconds.
func (c Cutoffs) NowNanos() int64 { return Nanos(c.Now()) }

// LiveSince is the earliest end time, at now, of a terminal task that has
// not outlived the TTL (MinNanos without a TTL).
func (c Cutoffs) LiveSince(now int64) int64 {
	if c.TTL <= 0 {
		return MinNanos
	}
	return now - int64(c.TTL)
}

// WaitingSince is the earliest status time, at now, of an interrupted task
// that has not outlived InterruptedTTL (MinNanos without one).
func (c Cutoffs) WaitingSince(now int64) int64 {
	if c.InterruptedTTL <= 0 {
		return MinNanos
	}
	return now - int64(c.InterruptedTTL)
}

// Expired reports whether a task that ended at endedAt (ended false: it has
// not) has outlived the TTL at now.
func (c Cutoffs) Expired(endedAt int64, ended bool, now int64) bool {
	return c.TTL > 0 && ended && endedAt < now-int64(c.TTL)
}

// WaitedOut reports whether a task in state with that status time is an
// interrupted task that has outlived InterruptedTTL at now.
func (c Cutoffs) WaitedOut(state a2av1.TaskState, statusTime, now int64) bool {
	return c.InterruptedTTL > 0 && store.IsInterrupted(state) && statusTime < now-int64(c.InterruptedTTL)
}
