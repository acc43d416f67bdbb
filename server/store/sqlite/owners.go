package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// Retention per owner (store.Retention's MaxTerminalTasksPerOwner,
// MaxInterruptedTasksPerOwner, MaxBytesPerOwner), as the memory store keeps
// it: one owner — tasks.owner across tenants, the empty owner every
// anonymous caller together — cannot make the store drop another's tasks.
//
// The table owner_counts (migration 9) holds, per owner, its terminal and
// interrupted tasks and their snapshots' bytes, kept by triggers in the
// transaction of every write that changes them (while a store with a cap
// has the file open: owner_counts.go). The writer, right after a
// write that ended or interrupted a task and in the same transaction, reads
// the owner's row and, over a cap, removes the owner's oldest terminal
// tasks (index tasks_owner_ended) or those it left waiting longest ago
// (tasks_owner_waiting), never the task just written
// (sqlrecord.OwnerCaps.Next says what goes first). So a write costs one
// primary-key read more, plus the removals, each task removed once: O(log
// n) per write, exact at every commit, as in the memory store.

// ownerStmts are the writer's statements of the per-owner caps (prepared
// only when a cap is set).
type ownerStmts struct {
	counts                       *sql.Stmt
	endedConfigs, endedTasks     *sql.Stmt
	waitingConfigs, waitingTasks *sql.Stmt
}

const (
	sqlOwnerCounts = `SELECT ended, waiting, bytes FROM owner_counts WHERE owner = ?1`

	// The ?4 oldest terminal tasks of owner ?1 but task ?2/?3, and their
	// push configs.
	sqlOwnerEnded        = `SELECT rowid FROM tasks INDEXED BY tasks_owner_ended WHERE owner = ?1 AND ended_at IS NOT NULL AND NOT (tenant = ?2 AND id = ?3) ORDER BY ended_at, rowid LIMIT ?4`
	sqlEvictEndedConfigs = `DELETE FROM push_configs WHERE (tenant, task_id) IN (SELECT tenant, id FROM tasks WHERE rowid IN (` + sqlOwnerEnded + `))`
	sqlEvictEndedTasks   = `DELETE FROM tasks WHERE rowid IN (` + sqlOwnerEnded + `) RETURNING tenant, id`

	// The ?4 interrupted tasks of owner ?1 but task ?2/?3 with the oldest
	// status, and their push configs.
	sqlOwnerWaiting        = `SELECT rowid FROM tasks INDEXED BY tasks_owner_waiting WHERE owner = ?1 AND state IN (6, 8) AND NOT (tenant = ?2 AND id = ?3) ORDER BY status_time, rowid LIMIT ?4`
	sqlEvictWaitingConfigs = `DELETE FROM push_configs WHERE (tenant, task_id) IN (SELECT tenant, id FROM tasks WHERE rowid IN (` + sqlOwnerWaiting + `))`
	sqlEvictWaitingTasks   = `DELETE FROM tasks WHERE rowid IN (` + sqlOwnerWaiting + `) RETURNING tenant, id`
)

func (w *writer) prepareOwners(ctx context.Context) error {
	if !w.s.opts.owners.On() {
		return nil
	}
	st := &w.st.owners
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.counts, sqlOwnerCounts},
		{&st.endedConfigs, sqlEvictEndedConfigs},
		{&st.endedTasks, sqlEvictEndedTasks},
		{&st.waitingConfigs, sqlEvictWaitingConfigs},
		{&st.waitingTasks, sqlEvictWaitingTasks},
	} {
		s, err := w.conn.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("%w in %s", err, p.sql)
		}
		*p.dst = s
	}
	return nil
}

func (st *ownerStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.counts, st.endedConfigs, st.endedTasks, st.waitingConfigs, st.waitingTasks} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	*st = ownerStmts{}
	return errors.Join(errs...)
}

// capOwner enforces the per-owner caps after b's write left task
// tenant/id of owner terminal or interrupted, inside the writer's
// transaction. The tasks it removes are added to b.evicted (for the record
// cache, after the commit) and the terminal ones to b.termDelta.
func (w *writer) capOwner(b *opBase, owner, tenant, id string) error {
	caps := w.s.opts.owners
	st := &w.st.owners
	read := func() (sqlrecord.OwnerCounts, error) {
		var n sqlrecord.OwnerCounts
		err := st.counts.QueryRow(owner).Scan(&n.Ended, &n.Waiting, &n.Bytes)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
		return n, err
	}
	evict := func(e sqlrecord.Eviction) (int64, error) {
		configs, tasks := st.waitingConfigs, st.waitingTasks
		if e.Ended {
			configs, tasks = st.endedConfigs, st.endedTasks
		}
		if _, err := configs.Exec(owner, tenant, id, e.N); err != nil {
			return 0, err
		}
		rows, err := tasks.Query(owner, tenant, id, e.N)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		var n int64
		for rows.Next() {
			var k cacheKey
			if err := rows.Scan(&k.tenant, &k.id); err != nil {
				return n, err
			}
			b.evicted = append(b.evicted, k)
			n++
		}
		if e.Ended {
			b.termDelta -= n
		}
		return n, rows.Err()
	}
	if err := caps.Enforce(read, evict); err != nil {
		return dbErr("removing tasks over the caps of owner "+fmt.Sprintf("%q", owner), err)
	}
	return nil
}

// capsOwner reports whether a write that leaves a task in state (terminal
// or not) makes the writer enforce the per-owner caps.
func (w *writer) capsOwner(row sqlrecord.TaskRow) bool {
	return w.s.opts.owners.On() && (row.Terminal || store.IsInterrupted(row.State))
}
