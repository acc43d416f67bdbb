package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Retention of terminal tasks (Retention.TerminalTaskTTL, Retention.MaxTerminalTasks)
// and of interrupted ones (Retention.InterruptedTaskTTL: by their status time,
// through the partial index tasks_waiting, in the same sweep).
// Every terminal task has ended_at, indexed (partially: running tasks are
// not in the index). Once a second each replica tries to sweep; an advisory
// lock lets one at a time do it. A sweep removes tasks past the TTL and the
// terminal tasks beyond the maximum (counted through the partial index
// then, never per write) — the oldest of the owner holding the most —
// each in chunks, oldest first, with their push configs and events. Reads treat a task past its TTL as gone whether
// or not it has been removed yet, so the TTL holds exactly.
//
// Removing a task keeps its pending deliveries: a webhook still gets the
// final event of a task removed right after it ended.

// sweepEvery is the time between two sweeps.
const sweepEvery = time.Second

// sweepChunk is the most tasks one statement of a sweep removes;
// sweepChunks the most statements of each kind one sweep runs.
const (
	sweepChunk  = 1000
	sweepChunks = 10
)

func (s *Store) sweepLoop() {
	defer s.bg.Done()
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for ticks := 1; ; ticks++ {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := s.sweep(s.ctx); err != nil && s.ctx.Err() == nil {
			s.opts.logger.Error("postgres store: retention sweep failed", "store", s.name, "err", err)
		}
		if ticks%foldEvery != 0 {
			continue
		}
		if err := s.foldOwnerCounts(s.ctx); err != nil && s.ctx.Err() == nil {
			s.opts.logger.Error("postgres store: folding the per-owner counts failed", "store", s.name, "err", err)
		}
	}
}

// sweep removes what retention no longer allows, unless another replica is
// sweeping; it returns the number of tasks removed.
func (s *Store) sweep(ctx context.Context) (int64, error) {
	return s.sweepUnder(ctx, sqlSweepLock)
}

// sweepAfterOthers is sweep that waits for a sweep under way (this store's
// own, or another replica's) to finish instead of skipping: its counts then
// see every write made before it was called. Tests use it; the background
// loop never waits.
func (s *Store) sweepAfterOthers(ctx context.Context) (int64, error) {
	return s.sweepUnder(ctx, sqlSweepLockWait)
}

// sweepUnder sweeps once lock (a query answering whether this transaction
// holds the sweep lock) says so.
func (s *Store) sweepUnder(ctx context.Context, lock string) (int64, error) {
	var removed int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, lock).Scan(&mine); err != nil || !mine {
			return err
		}
		var err error
		removed, err = s.sweepTx(ctx, tx)
		return err
	})
	return removed, err
}

// sweepTx removes, in the sweep's transaction, the terminal tasks past the
// TTL, the interrupted tasks past theirs and the terminal tasks over the
// maximum, and returns how many terminal tasks went.
func (s *Store) sweepTx(ctx context.Context, tx pgx.Tx) (int64, error) {
	var removed int64
	if s.opts.ttl > 0 {
		n, err := sweepChunked(ctx, tx, sqlSweepTTL, s.liveSince())
		if err != nil {
			return 0, err
		}
		removed += n
	}
	if s.opts.interruptedTTL > 0 {
		if _, err := sweepChunked(ctx, tx, sqlSweepWaiting, s.waitingSince()); err != nil {
			return 0, err
		}
	}
	if s.opts.maxTerminal > 0 {
		n, err := s.sweepOverMax(ctx, tx)
		if err != nil {
			return 0, err
		}
		removed += n
	}
	return removed, nil
}

// sweepChunked runs a sweep statement (cutoff $1, at most $2 tasks) until
// it removes less than a chunk, at most sweepChunks times, and returns how
// many tasks went.
func sweepChunked(ctx context.Context, tx pgx.Tx, sweep string, cutoff int64) (int64, error) {
	var removed int64
	for range sweepChunks {
		var n int64
		if err := tx.QueryRow(ctx, sweep, cutoff, int64(sweepChunk)).Scan(&n); err != nil {
			return removed, err
		}
		removed += n
		if n < sweepChunk {
			break
		}
	}
	return removed, nil
}

// sweepOverMax removes the terminal tasks over the maximum: those of the
// owner holding the most first, the oldest of all while no owner holds
// many.
func (s *Store) sweepOverMax(ctx context.Context, tx pgx.Tx) (int64, error) {
	var terminal, removed int64
	if err := tx.QueryRow(ctx, sqlCountTerminal).Scan(&terminal); err != nil {
		return 0, err
	}
	for i := 0; i < sweepChunks && terminal > int64(s.opts.maxTerminal); i++ {
		owner, room, err := largestOwner(ctx, tx)
		if err != nil {
			return 0, err
		}
		var n int64
		limit := min(terminal-int64(s.opts.maxTerminal), sweepChunk)
		if room < 0 { // no owner holds many: the oldest of all
			err = tx.QueryRow(ctx, sqlSweepAny, limit).Scan(&n)
		} else {
			err = tx.QueryRow(ctx, sqlSweepOldest, min(limit, room), owner).Scan(&n)
		}
		if err != nil {
			return 0, err
		}
		removed += n
		terminal -= n
		if n == 0 {
			break
		}
	}
	return removed, nil
}

// ownerSlack is how many terminal tasks the cap takes from the owner
// holding the most before counting again, at least: owners whose counts
// are that close are treated alike. While no owner holds more than twice
// as many, the sweep takes the oldest of all (no one floods; among many
// small owners, one step per owner would not keep up with the writes), so
// a flood removes at most about that many tasks of others before only its
// own go.
const ownerSlack = 256

// largestOwner is the owner holding the most terminal tasks, and how many
// the cap may take from it before counting again: its lead over the next
// owner, at least ownerSlack; -1 when no owner holds more than twice
// ownerSlack (take the oldest of all). Over Retention.MaxTerminalTasks the sweep removes
// its oldest, so that one owner's flood (anonymous callers together are
// one owner) removes only its own tasks.
func largestOwner(ctx context.Context, tx pgx.Tx) (string, int64, error) {
	rows, err := tx.Query(ctx, sqlLargestOwners)
	if err != nil {
		return "", 0, err
	}
	var owners []string
	var counts []int64
	for rows.Next() {
		var owner string
		var n int64
		if err := rows.Scan(&owner, &n); err != nil {
			rows.Close()
			return "", 0, err
		}
		owners, counts = append(owners, owner), append(counts, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", 0, err
	}
	switch {
	case len(counts) == 0:
		return "", 0, nil
	case counts[0] <= 2*ownerSlack:
		return "", -1, nil
	case len(counts) == 1:
		return owners[0], counts[0], nil
	}
	return owners[0], max(counts[0]-counts[1], ownerSlack), nil
}
