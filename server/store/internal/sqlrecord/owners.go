package sqlrecord

import "github.com/a2agen/a2agen/server/store"

// OwnerCaps are store.Retention's bounds on one owner (Record.Owner, across
// tenants; the empty owner is every anonymous caller together), as both SQL
// stores enforce them: after a write that ends or interrupts a task, the
// store reads the owner's counts (OwnerCounts, kept by triggers) and removes
// what the caps no longer allow — Next says what, one step at a time —
// never the task just written. Zero fields set no bound.
type OwnerCaps struct {
	Terminal, Interrupted int64
	Bytes                 int64
}

// OwnerCapsOf are the per-owner bounds of r.
func OwnerCapsOf(r store.Retention) OwnerCaps {
	return OwnerCaps{Terminal: int64(max(r.MaxTerminalTasksPerOwner, 0)), Interrupted: int64(max(r.MaxInterruptedTasksPerOwner, 0)),
		Bytes: max(r.MaxBytesPerOwner, 0)}
}

// On reports whether any bound is set.
func (c OwnerCaps) On() bool { return c.Terminal > 0 || c.Interrupted > 0 || c.Bytes > 0 }

// OwnerCounts are one owner's terminal and interrupted tasks and their
// snapshots' bytes.
type OwnerCounts struct{ Ended, Waiting, Bytes int64 }

// Eviction is one step of enforcing the caps: remove the owner's N oldest
// terminal tasks (Ended) or the N it left waiting longest ago.
type Eviction struct {
	Ended bool
	N     int64
}

// Next is the next step the caps take at counts n (false: none), in the
// memory store's order: the count of terminal tasks, the count of
// interrupted ones, then bytes, which take terminal tasks first, one at a
// time (noEnded: the owner has none left but the task just written).
func (c OwnerCaps) Next(n OwnerCounts, noEnded bool) (Eviction, bool) {
	switch {
	case c.Terminal > 0 && n.Ended > c.Terminal && !noEnded:
		return Eviction{Ended: true, N: n.Ended - c.Terminal}, true
	case c.Interrupted > 0 && n.Waiting > c.Interrupted:
		return Eviction{N: n.Waiting - c.Interrupted}, true
	case c.Bytes > 0 && n.Bytes > c.Bytes:
		return Eviction{Ended: !noEnded, N: 1}, true
	}
	return Eviction{}, false
}

// Enforce takes the steps of Next until none is left: read gives the
// owner's counts as they are now, evict takes a step and says how many
// tasks it removed. Each round removes a task or ends, so it runs at most
// once per task removed plus twice.
func (c OwnerCaps) Enforce(read func() (OwnerCounts, error), evict func(Eviction) (int64, error)) error {
	noEnded := false
	for {
		n, err := read()
		if err != nil {
			return err
		}
		step, ok := c.Next(n, noEnded)
		if !ok {
			return nil
		}
		removed, err := evict(step)
		if err != nil {
			return err
		}
		if removed == 0 {
			if !step.Ended {
				return nil
			}
			noEnded = true
		}
	}
}
