package postgres

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// Retention per owner (store.Retention's MaxTerminalTasksPerOwner,
// MaxInterruptedTasksPerOwner, MaxBytesPerOwner), as the memory store keeps
// it: one owner — tasks.owner across tenants, the empty owner every
// anonymous caller together — cannot make the store drop another's tasks.
//
// The table owner_counts (migration 8) holds each owner's terminal and
// interrupted tasks and their snapshots' bytes, kept by a trigger in the
// transaction of every write that changes them, in rows of their own per
// backend (so concurrent writers, of any replica, never wait on each
// other's count). After a write that ended or interrupted a task has
// committed, the store that made it reads the owner's counts (one round
// trip: the sum of at most a few rows) and, over a cap, removes the
// owner's oldest terminal tasks (index tasks_owner_ended) or those it left
// waiting longest ago (tasks_owner_waiting) in a transaction that holds an
// advisory lock on the owner, so that replicas enforcing at once do not
// both remove for the same excess (sqlrecord.OwnerCaps.Next says what goes
// first). It never removes the task just written, nor a task of the same
// kind that ended or was interrupted after it (a concurrent write's: that
// write enforces after its own commit), and skips tasks another
// transaction holds. The write's caller gets its answer once the caps hold
// again; a failure is logged and leaves the write in place (the owner's
// next write enforces again).

const (
	// The owner of task $1/$2, where the task stands, and the owner's
	// counts.
	sqlOwnerOf = `SELECT t.owner, t.ended_at, t.status_time, t.state, c.ended, c.waiting, c.bytes
FROM tasks t, LATERAL (` + ownerSums + `t.owner) c
WHERE t.tenant = $1 AND t.id = $2`
	// The counts of owner $1.
	sqlOwnerCounts = ownerSums + `$1`
	ownerSums      = `SELECT coalesce(sum(ended), 0)::bigint AS ended, coalesce(sum(waiting), 0)::bigint AS waiting,
	coalesce(sum(bytes), 0)::bigint AS bytes FROM owner_counts WHERE owner = `

	sqlOwnerLock = `SELECT pg_advisory_xact_lock(hashtextextended('a2agen/owner/' || current_schema() || '/' || $1::text, 0))`

	// Removes the $5 oldest terminal tasks of owner $1 but task $2/$3 and
	// those that ended after it ($4, its ended_at; NULL: it is not
	// terminal), skipping tasks other transactions hold.
	sqlEvictEnded = `WITH gone AS (
	DELETE FROM tasks WHERE (tenant, id) IN (
		SELECT tenant, id FROM tasks WHERE owner = $1 AND ended_at IS NOT NULL AND NOT (tenant = $2 AND id = $3)
			AND ($4::bigint IS NULL OR (ended_at, tenant, id) < ($4::bigint, $2::text, $3::text))
		ORDER BY ended_at, tenant, id LIMIT $5 FOR UPDATE SKIP LOCKED)
	RETURNING tenant, id
)` + sweepTail
	// The same for the interrupted tasks, by status time ($4, the task's
	// status time when it is interrupted).
	sqlEvictWaiting = `WITH gone AS (
	DELETE FROM tasks WHERE (tenant, id) IN (
		SELECT tenant, id FROM tasks WHERE owner = $1 AND state IN (6, 8) AND NOT (tenant = $2 AND id = $3)
			AND ($4::bigint IS NULL OR (status_time, tenant, id) < ($4::bigint, $2::text, $3::text))
		ORDER BY status_time, tenant, id LIMIT $5 FOR UPDATE SKIP LOCKED)
	RETURNING tenant, id
)` + sweepTail

	// Folds the rows of backends that have ended into shard 0, and drops
	// the rows of owners with nothing left to count.
	sqlFoldOwnerCounts = `WITH dead AS (
	DELETE FROM owner_counts WHERE shard <> 0 AND shard NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)
	RETURNING owner, ended, waiting, bytes
), folded AS (
	INSERT INTO owner_counts AS c (owner, shard, ended, waiting, bytes)
	SELECT owner, 0, sum(ended), sum(waiting), sum(bytes) FROM dead GROUP BY owner
	ON CONFLICT (owner, shard) DO UPDATE SET ended = c.ended + EXCLUDED.ended, waiting = c.waiting + EXCLUDED.waiting,
		bytes = c.bytes + EXCLUDED.bytes
)
DELETE FROM owner_counts WHERE shard = 0 AND ended = 0 AND waiting = 0 AND bytes = 0`
)

// capsAfter enforces the per-owner caps after a committed write that left
// task key as row says, when it ended or interrupted the task.
func (s *Store) capsAfter(key topicKey, row sqlrecord.TaskRow) {
	if !s.opts.owners.On() || !row.Terminal && !store.IsInterrupted(row.State) {
		return
	}
	// The write has committed: its caller's deadline is not this work's.
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := s.capOwner(ctx, key); err != nil {
		s.opts.logger.Error("postgres store: per-owner retention failed; the owner's next write tries again", "store", s.name,
			"task", key.id, "err", s.dbErr("enforcing the caps of the owner of task "+strconv.Quote(key.id), err))
	}
}

// capOwner removes what the per-owner caps no longer allow of the owner of
// task key.
func (s *Store) capOwner(ctx context.Context, key topicKey) error {
	caps := s.opts.owners
	var (
		owner      string
		endedAt    *int64
		statusTime int64
		state      int16
		n          sqlrecord.OwnerCounts
	)
	err := s.pool.QueryRow(ctx, sqlOwnerOf, key.tenant, key.id).Scan(&owner, &endedAt, &statusTime, &state, &n.Ended, &n.Waiting, &n.Bytes)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // removed meanwhile
	}
	if err != nil {
		return err
	}
	if _, over := caps.Next(n, false); !over {
		return nil
	}
	var endedKeep, waitingKeep *int64
	switch {
	case endedAt != nil:
		endedKeep = endedAt
	case store.IsInterrupted(a2av1.TaskState(state)):
		waitingKeep = &statusTime
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlOwnerLock, owner); err != nil {
			return err
		}
		read := func() (sqlrecord.OwnerCounts, error) {
			var n sqlrecord.OwnerCounts
			err := tx.QueryRow(ctx, sqlOwnerCounts, owner).Scan(&n.Ended, &n.Waiting, &n.Bytes)
			return n, err
		}
		evict := func(e sqlrecord.Eviction) (int64, error) {
			q, keepAt := sqlEvictWaiting, waitingKeep
			if e.Ended {
				q, keepAt = sqlEvictEnded, endedKeep
			}
			var removed int64
			err := tx.QueryRow(ctx, q, owner, key.tenant, key.id, keepAt, e.N).Scan(&removed)
			return removed, err
		}
		return caps.Enforce(read, evict)
	})
}

// foldEvery is how many sweeps (seconds) apart the count rows of ended
// backends are folded: they only make the owner's sums longer to add up.
const foldEvery = 60

// foldOwnerCounts folds the count rows of ended backends (see above).
func (s *Store) foldOwnerCounts(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, sqlFoldOwnerCounts)
	return err
}
