package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Retention of terminal tasks (WithTerminalTaskTTL, WithMaxTerminalTasks)
// and of interrupted ones (WithInterruptedTaskTTL: by their status time,
// through the partial index tasks_waiting, in the same sweep).
// Every terminal task has ended_at, indexed (partially: running tasks are
// not in the index). Once a second each replica tries to sweep; an advisory
// lock lets one at a time do it. A sweep removes tasks past the TTL and the
// oldest terminal tasks beyond the maximum (counted through the partial
// index then, never per write), each in chunks, oldest first, with their
// push configs and events. Reads treat a task past its TTL as gone whether
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
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := s.sweep(s.ctx); err != nil && s.ctx.Err() == nil {
			s.opts.logger.Error("postgres store: retention sweep failed", "store", s.name, "err", err)
		}
	}
}

// sweep removes what retention no longer allows, unless another replica is
// sweeping; it returns the number of tasks removed.
func (s *Store) sweep(ctx context.Context) (int64, error) {
	var removed int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, sqlSweepLock).Scan(&mine); err != nil || !mine {
			return err
		}
		if s.opts.ttl > 0 {
			cutoff := s.liveSince()
			for range sweepChunks {
				var n int64
				if err := tx.QueryRow(ctx, sqlSweepTTL, cutoff, int64(sweepChunk)).Scan(&n); err != nil {
					return err
				}
				removed += n
				if n < sweepChunk {
					break
				}
			}
		}
		if s.opts.interruptedTTL > 0 {
			cutoff := s.waitingSince()
			for range sweepChunks {
				var n int64
				if err := tx.QueryRow(ctx, sqlSweepWaiting, cutoff, int64(sweepChunk)).Scan(&n); err != nil {
					return err
				}
				if n < sweepChunk {
					break
				}
			}
		}
		if s.opts.maxTerminal > 0 {
			var terminal int64
			if err := tx.QueryRow(ctx, sqlCountTerminal).Scan(&terminal); err != nil {
				return err
			}
			for i := 0; i < sweepChunks && terminal > int64(s.opts.maxTerminal); i++ {
				var n int64
				if err := tx.QueryRow(ctx, sqlSweepOldest, min(terminal-int64(s.opts.maxTerminal), sweepChunk)).Scan(&n); err != nil {
					return err
				}
				removed += n
				terminal -= n
				if n == 0 {
					break
				}
			}
		}
		return nil
	})
	return removed, err
}
