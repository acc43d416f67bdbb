package sqlrecord

import (
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// Stale tells, among the unfinished tasks of other runners that a
// StaleRuns query returns, those whose runner has stopped.
type Stale struct {
	self      string
	now       int64
	exclusive bool            // the store's file is this process's: every other process has stopped
	gone      map[string]bool // by runner, so that each is asked once
}

// NewStale judges for runner self at now; exclusive says that no other
// process can be running tasks of the store (it holds its file locked).
func NewStale(self string, now time.Time, exclusive bool) *Stale {
	return &Stale{self: self, now: Nanos(now), exclusive: exclusive, gone: make(map[string]bool)}
}

// Stopped reports whether rec's runner has stopped: its lease ended before
// now, or it ran in a process that no longer exists (store.RunnerGone).
func (s *Stale) Stopped(rec store.Record) bool {
	if rec.LeaseUntil.IsZero() || Nanos(rec.LeaseUntil) < s.now {
		return true
	}
	g, ok := s.gone[rec.Runner]
	if !ok {
		g = store.RunnerGone(s.self, rec.Runner) || s.exclusive && !store.SameProcess(s.self, rec.Runner)
		s.gone[rec.Runner] = g
	}
	return g
}
