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

// ReadStopped reads the rows of a StaleRuns query (tenant, id, owner,
// version, generation, snapshot, runner, lease end or NULL) and keeps the
// records whose runner has stopped, at most limit (limit <= 0: all). A
// failed read is returned as the driver's error, wrapped by fail.
func (s *Stale) ReadStopped(n Names, rows Rows, limit int, fail func(error) error) ([]store.Record, error) {
	var out []store.Record
	for rows.Next() {
		var (
			rec   store.Record
			id    string
			blob  []byte
			lease *int64
		)
		if err := rows.Scan(&rec.Tenant, &id, &rec.Owner, &rec.Version, &rec.Generation, &blob, &rec.Runner, &lease); err != nil {
			return nil, fail(err)
		}
		if lease != nil {
			rec.LeaseUntil = time.Unix(0, *lease)
		}
		if !s.Stopped(rec) {
			continue
		}
		var err error
		if rec.Task, err = n.DecodeTask(id, rec.Generation, blob); err != nil {
			return nil, err
		}
		out = append(out, rec)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	return out, nil
}
