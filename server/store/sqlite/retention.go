package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// Retention of terminal tasks (Retention.TerminalTaskTTL, Retention.MaxTerminalTasks)
// and of interrupted ones (Retention.InterruptedTaskTTL: by their status time,
// through the partial index tasks_waiting, on the same schedule as the
// TTL of terminal tasks).
// Every terminal task has ended_at, indexed. The writer keeps the number of
// terminal tasks (counted once at open, then adjusted by its writes) and
// when the oldest one outlives the TTL, so deciding whether to sweep costs
// nothing. A sweep runs inside a write transaction, at most once a second
// for the TTL and at once when the count exceeds the maximum; it removes at
// most sweepChunk tasks (oldest ended first, through the index; over the
// maximum, those of the owner holding the most: removeOverCap) and runs
// again soon when it stopped there. Reads treat a task past its TTL as gone
// whether or not it has been removed yet, so the TTL holds exactly.
//
// Removing a task removes its push configs but not its pending deliveries:
// a webhook still gets the final event of a task removed right after it
// ended (outbox rows carry a copy of their config).

// sweepChunk is the most tasks one sweep removes.
const sweepChunk = 1000

// sweepEvery is the least time between two TTL sweeps.
const sweepEvery = time.Second

type sweepResult struct {
	ran        bool
	waited     bool  // the part of interrupted tasks ran
	nextWait   int64 // after it: when the oldest remaining interrupted task expires (0: none)
	ttl        bool  // the TTL part ran
	more       bool  // stopped at sweepChunk
	removed    int64 // terminal tasks removed
	deleted    []cacheKey
	nextExpiry int64 // after the TTL part: when the oldest remaining terminal task expires (0: none)
}

// loadRetention reads the number of terminal tasks and the oldest end time.
func (w *writer) loadRetention(ctx context.Context) error {
	if err := w.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks WHERE ended_at IS NOT NULL`).Scan(&w.terminal); err != nil {
		return fmt.Errorf("counting terminal tasks: %w", err)
	}
	w.s.terminal.Store(w.terminal)
	if w.s.opts.interruptedTTL > 0 {
		var oldest sql.NullInt64
		if err := w.conn.QueryRowContext(ctx, sqlOldestWaiting).Scan(&oldest); err != nil {
			return fmt.Errorf("reading the oldest interrupted task: %w", err)
		}
		if oldest.Valid {
			w.nextWaitExpiry = oldest.Int64 + int64(w.s.opts.interruptedTTL) + 1
		}
	}
	if w.s.opts.ttl > 0 {
		var oldest sql.NullInt64
		if err := w.conn.QueryRowContext(ctx, `SELECT MIN(ended_at) FROM tasks WHERE ended_at IS NOT NULL`).Scan(&oldest); err != nil {
			return fmt.Errorf("reading the oldest terminal task: %w", err)
		}
		if oldest.Valid {
			w.nextExpiry = oldest.Int64 + int64(w.s.opts.ttl) + 1
		}
	}
	return nil
}

// sweepDue reports whether a sweep should run now, with terminal tasks
// stored.
func (w *writer) sweepDue(now time.Time, terminal int64) bool {
	o := w.s.opts
	switch {
	case !w.retains(), now.Before(w.blockedUntil):
		return false
	case w.sweepSoon, o.maxTerminal > 0 && terminal > int64(o.maxTerminal):
		return true
	}
	return o.ttl > 0 && w.nextExpiry != 0 && sqlrecord.Nanos(now) >= w.nextExpiry && now.Sub(w.lastSweep) >= sweepEvery ||
		o.interruptedTTL > 0 && w.nextWaitExpiry != 0 && sqlrecord.Nanos(now) >= w.nextWaitExpiry && now.Sub(w.lastWaitSweep) >= sweepEvery
}

// retains reports whether any retention option is on.
func (w *writer) retains() bool {
	o := w.s.opts
	return o.ttl > 0 || o.maxTerminal > 0 || o.interruptedTTL > 0
}

// waiting notes, after its commit, an operation that left a task
// interrupted, so that the writer sweeps when it expires.
func (w *writer) waiting(op writeOp) {
	var row *sqlrecord.TaskRow
	switch o := op.(type) {
	case *createOp:
		row = &o.row
	case *updateOp:
		row = &o.row
	default:
		return
	}
	if !store.IsInterrupted(row.State) {
		return
	}
	if at := row.StatusTime + int64(w.s.opts.interruptedTTL) + 1; w.nextWaitExpiry == 0 || at < w.nextWaitExpiry {
		w.nextWaitExpiry = at
	}
}

// nextSweep is when the idle writer should wake up to sweep.
func (w *writer) nextSweep() (time.Time, bool) {
	o := w.s.opts
	if !w.retains() {
		return time.Time{}, false
	}
	var at time.Time
	switch {
	case w.sweepSoon || o.maxTerminal > 0 && w.terminal > int64(o.maxTerminal):
		at = o.now()
	default:
		due := func(expiry int64, last time.Time) time.Time {
			t := time.Unix(0, expiry)
			if next := last.Add(sweepEvery); next.After(t) {
				t = next
			}
			return t
		}
		if o.ttl > 0 && w.nextExpiry != 0 {
			at = due(w.nextExpiry, w.lastSweep)
		}
		if o.interruptedTTL > 0 && w.nextWaitExpiry != 0 {
			if t := due(w.nextWaitExpiry, w.lastWaitSweep); at.IsZero() || t.Before(at) {
				at = t
			}
		}
		if at.IsZero() {
			return time.Time{}, false
		}
	}
	if w.blockedUntil.After(at) {
		at = w.blockedUntil
	}
	return at, true
}

// blockSweeps holds off sweeps for a second after one failed, so that a
// persistent failure does not keep the writer busy.
func (w *writer) blockSweeps() {
	w.blockedUntil = w.s.opts.now().Add(sweepEvery)
	w.sweepSoon = false
	w.largestRoom = 0
}

// sweep removes the terminal tasks retention no longer allows, inside the
// writer's transaction, behind a savepoint: a failure is logged and undoes
// only the sweep.
func (w *writer) sweep(ctx context.Context, now time.Time, terminal int64) sweepResult {
	res, err := w.trySweep(ctx, now, terminal)
	if err == nil {
		_, err = w.conn.ExecContext(ctx, "RELEASE sweep")
	}
	if err != nil {
		_, _ = w.conn.ExecContext(ctx, "ROLLBACK TO sweep")
		_, _ = w.conn.ExecContext(ctx, "RELEASE sweep")
		w.s.opts.logger.Error("sqlite store: retention sweep failed", "path", w.s.path, "err", err)
		w.blockSweeps()
		return sweepResult{}
	}
	return res
}

func (w *writer) trySweep(ctx context.Context, now time.Time, terminal int64) (sweepResult, error) {
	res := sweepResult{ran: true}
	if _, err := w.conn.ExecContext(ctx, "SAVEPOINT sweep"); err != nil {
		return res, err
	}
	o := w.s.opts
	if o.ttl > 0 {
		cutoff := sqlrecord.Nanos(now) - int64(o.ttl)
		n, err := w.removeTasks(ctx, &res, w.st.sweepTTLConfigs, w.st.sweepTTLTasks, cutoff, sweepChunk)
		if err != nil {
			return res, err
		}
		res.ttl, res.removed, res.more = true, n, n == sweepChunk
	}
	if left := terminal - res.removed; o.maxTerminal > 0 && left > int64(o.maxTerminal) {
		excess := min(left-int64(o.maxTerminal), sweepChunk)
		n, err := w.removeOverCap(ctx, &res, excess)
		if err != nil {
			return res, err
		}
		res.removed += n
		res.more = res.more || terminal-res.removed > int64(o.maxTerminal)
	}
	if o.interruptedTTL > 0 {
		n, err := w.removeTasks(ctx, &res, w.st.sweepWaitingConfigs, w.st.sweepWaitingTasks, sqlrecord.Nanos(now)-int64(o.interruptedTTL), sweepChunk)
		if err != nil {
			return res, err
		}
		res.waited, res.more = true, res.more || n == sweepChunk
		var oldest sql.NullInt64
		if err := w.st.oldestWaiting.QueryRowContext(ctx).Scan(&oldest); err != nil {
			return res, fmt.Errorf("reading the oldest interrupted task: %w", err)
		}
		if oldest.Valid {
			res.nextWait = oldest.Int64 + int64(o.interruptedTTL) + 1
		}
	}
	if o.ttl > 0 {
		var oldest sql.NullInt64
		if err := w.st.oldestEnded.QueryRowContext(ctx).Scan(&oldest); err != nil {
			return res, fmt.Errorf("reading the oldest terminal task: %w", err)
		}
		if oldest.Valid {
			res.nextExpiry = oldest.Int64 + int64(o.ttl) + 1
		}
	}
	return res, nil
}

// ownerSlack is how many terminal tasks the cap takes from the owner
// holding the most before counting again, at least: owners whose counts
// are that close are treated alike. While no owner holds more than twice
// as many, the cap takes the oldest of all (ownerSlack of them before
// counting again): no one floods, and counting once per removal among
// many small owners would cost a pass over the terminal tasks per write.
// So a flood that starts at the cap removes at most about 3 × ownerSlack
// tasks of others before it removes only its own.
const ownerSlack = 64

// removeOverCap removes excess terminal tasks over Retention.MaxTerminalTasks:
// the oldest of the owner holding the most, so that one owner's flood
// removes only its own tasks. Which owner that is is counted (one pass over
// the terminal tasks) when the last count's room is used up: the room is
// half the lead of the largest owner over the next, at least ownerSlack.
func (w *writer) removeOverCap(ctx context.Context, res *sweepResult, excess int64) (int64, error) {
	var removed int64
	for removed < excess {
		counted := false
		if w.largestRoom <= 0 {
			if err := w.countOwners(ctx); err != nil {
				return removed, err
			}
			if w.largestRoom <= 0 {
				break // no terminal task left
			}
			counted = true
		}
		k := min(excess-removed, w.largestRoom)
		configs, tasks, owner := w.st.sweepOldestConfigs, w.st.sweepOldestTasks, any(w.largest)
		if w.anyOwner {
			configs, tasks, owner = w.st.sweepAnyConfigs, w.st.sweepAnyTasks, nil
		}
		n, err := w.removeTasks(ctx, res, configs, tasks, owner, k)
		if err != nil {
			return removed, err
		}
		removed += n
		w.largestRoom -= k
		if n < k {
			w.largestRoom = 0 // it has no more: count again
			if counted && n == 0 {
				break
			}
		}
	}
	return removed, nil
}

// countOwners finds the owner holding the most terminal tasks.
func (w *writer) countOwners(ctx context.Context) error {
	w.largest, w.largestRoom, w.anyOwner = "", 0, false
	rows, err := w.st.largestOwners.QueryContext(ctx)
	if err != nil {
		return fmt.Errorf("counting terminal tasks by owner: %w", err)
	}
	defer rows.Close()
	var counts []int64
	for rows.Next() {
		var owner string
		var n int64
		if err := rows.Scan(&owner, &n); err != nil {
			return fmt.Errorf("counting terminal tasks by owner: %w", err)
		}
		if len(counts) == 0 {
			w.largest = owner
		}
		counts = append(counts, n)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("counting terminal tasks by owner: %w", err)
	}
	switch {
	case len(counts) == 0:
	case counts[0] <= 2*ownerSlack:
		w.anyOwner, w.largestRoom = true, ownerSlack
	case len(counts) == 1:
		w.largestRoom = counts[0]
	default:
		w.largestRoom = max((counts[0]-counts[1])/2, ownerSlack)
	}
	return nil
}

// removeTasks deletes up to limit terminal tasks chosen by the statements
// (with cutoff, when not nil, as their first argument) and their push
// configs, and adds the tasks to res.deleted (for the record cache).
// (cutoff is the owner for the statements of removeOverCap.)
func (w *writer) removeTasks(ctx context.Context, res *sweepResult, configs, tasks *sql.Stmt, cutoff any, limit int64) (int64, error) {
	args := []any{limit}
	if cutoff != nil {
		args = []any{cutoff, limit}
	}
	if _, err := configs.ExecContext(ctx, args...); err != nil {
		return 0, fmt.Errorf("removing push configs of ended tasks: %w", err)
	}
	rows, err := tasks.QueryContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("removing ended tasks: %w", err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var k cacheKey
		if err := rows.Scan(&k.tenant, &k.id); err != nil {
			return 0, fmt.Errorf("removing ended tasks: %w", err)
		}
		res.deleted = append(res.deleted, k)
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("removing ended tasks: %w", err)
	}
	return n, nil
}

// swept records the outcome of a committed sweep.
func (w *writer) swept(sw sweepResult) {
	if !sw.ran {
		return
	}
	w.sweepSoon = sw.more
	if sw.ttl {
		w.lastSweep = w.s.opts.now()
		w.nextExpiry = sw.nextExpiry
	}
	if sw.waited {
		w.lastWaitSweep = w.s.opts.now()
		w.nextWaitExpiry = sw.nextWait
	}
}
