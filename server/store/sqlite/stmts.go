package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The SQL of the store. Parameters are numbered (?N); times are unix
// nanoseconds.

// writeStmts are prepared on the writer's connection.
type writeStmts struct {
	begin, commit, rollback                               *sql.Stmt
	insertTask, taskState, deleteTask, deleteTaskConfigs  *sql.Stmt
	updateTask, writeFull, writeStatus, writeSnapshot     *sql.Stmt
	upsertConfig, updateOutboxConfig, countConfigs        *sql.Stmt
	deleteConfig, deleteConfigOutbox                      *sql.Stmt
	enqueue, claim, finish, promote, retry                *sql.Stmt
	renew, logEvent                                       *sql.Stmt
	sweepTTLConfigs, sweepTTLTasks                        *sql.Stmt
	sweepOldestConfigs, sweepOldestTasks, oldestEnded     *sql.Stmt
	largestOwners, sweepAnyConfigs, sweepAnyTasks         *sql.Stmt
	sweepWaitingConfigs, sweepWaitingTasks, oldestWaiting *sql.Stmt
	sendKey, claimSendKey, releaseSendKey, purgeSendKeys  *sql.Stmt // sendkeys.go
	oweSendKey                                            *sql.Stmt // early_claims.go
	owners                                                ownerStmts
}

const (
	// ?1 tenant, ?2 id, ?3 owner, ?4 context, ?5 state, ?6 status time,
	// ?7 snapshot, ?8 runner, ?9 lease, ?10 ended at, ?11 push configs,
	// ?12 generation.
	sqlInsertTask = `INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot, runner, lease_until, ended_at, push_count, generation)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, ?8, ?9, ?10, ?11, ?12)
ON CONFLICT (tenant, id) DO NOTHING`

	sqlTaskState = `SELECT version, state, ended_at, status_time FROM tasks WHERE tenant = ?1 AND id = ?2`

	sqlDeleteTask        = `DELETE FROM tasks WHERE tenant = ?1 AND id = ?2`
	sqlDeleteTaskConfigs = `DELETE FROM push_configs WHERE tenant = ?1 AND task_id = ?2`

	// The task writes.
	//
	// ?1 snapshot, ?2 state, ?3 status time, ?4 context, ?5 terminal,
	// ?6 runner ('' keeps it), ?7 lease, ?8 now, ?9 tenant, ?10 id,
	// ?11 expected version; the write's events (how much the generation
	// grows): ?12 in sqlUpdateTask, ?16 in the sqlWrite statements.
	//
	// sqlUpdateTask returns what the row holds besides the task; the writer
	// uses it when the record cache does not hold the task.
	sqlUpdateTask = `UPDATE tasks SET
	version = version + 1, generation = generation + ?12, snapshot = ?1, state = ?2, status_time = ?3, context_id = ?4,
	runner = CASE WHEN ?5 THEN '' WHEN ?6 <> '' THEN ?6 ELSE runner END,
	lease_until = CASE WHEN ?5 THEN NULL WHEN ?6 <> '' THEN ?7 ELSE lease_until END,
	ended_at = CASE WHEN ?5 THEN ?8 END
WHERE tenant = ?9 AND id = ?10 AND version = ?11 AND ended_at IS NULL
RETURNING push_count, owner, runner, lease_until, generation`

	// The sqlWrite statements are used when the cache holds the version
	// the write replaces, so the writer knows the row: they need no
	// RETURNING (which costs SQLite a temporary table per statement), and
	// they check in their WHERE every column the writer takes from the
	// cache (?12 owner, ?13 runner, ?14 lease, ?15 push configs): if the
	// row differed after all, they would match nothing and the writer
	// would fall back to sqlUpdateTask.
	//
	// Every index whose columns an UPDATE assigns costs a page in the WAL,
	// even when the values stay the same, so a write assigns only what it
	// changes: sqlWriteFull everything (a terminal state, a new runner or
	// context); sqlWriteStatus a new status (the listing indexes change, the
	// execution record's does not: the lease is not indexed);
	// sqlWriteSnapshot neither (an artifact, a message, metadata: only the
	// row changes, no index).
	sqlWriteGuard = `tenant = ?9 AND id = ?10 AND version = ?11 AND ended_at IS NULL
	AND owner = ?12 AND runner = ?13 AND lease_until IS ?14 AND push_count = ?15`
	sqlWriteFull = `UPDATE tasks SET
	version = version + 1, generation = generation + ?16, snapshot = ?1, state = ?2, status_time = ?3, context_id = ?4,
	runner = CASE WHEN ?5 THEN '' WHEN ?6 <> '' THEN ?6 ELSE runner END,
	lease_until = CASE WHEN ?5 THEN NULL WHEN ?6 <> '' THEN ?7 ELSE lease_until END,
	ended_at = CASE WHEN ?5 THEN ?8 END
WHERE ` + sqlWriteGuard
	sqlWriteStatus = `UPDATE tasks SET
	version = version + 1, generation = generation + ?16, snapshot = ?1, state = ?2, status_time = ?3,
	lease_until = CASE WHEN ?6 <> '' THEN ?7 ELSE lease_until END
WHERE ` + sqlWriteGuard + ` AND context_id = ?4 AND (?6 = '' OR ?6 = runner) AND NOT ?5`
	sqlWriteSnapshot = `UPDATE tasks SET
	version = version + 1, generation = generation + ?16, snapshot = ?1,
	lease_until = CASE WHEN ?6 <> '' THEN ?7 ELSE lease_until END
WHERE ` + sqlWriteGuard + ` AND state = ?2 AND status_time = ?3 AND context_id = ?4 AND (?6 = '' OR ?6 = runner) AND NOT ?5`

	// One event of the task's log (eventlog.go): tenant, task id,
	// generation, version, event, in that order. Its parameters are
	// anonymous (?), unlike the other statements': the driver makes a Go
	// string of every named parameter's name on every execution, and this
	// statement runs once per event.
	sqlLogEvent = `INSERT OR REPLACE INTO task_events (tenant, task_id, generation, version, event) VALUES (?, ?, ?, ?, ?)`

	// ?5 the config's protocol version.
	sqlUpsertConfig = `INSERT INTO push_configs (tenant, task_id, id, config, protocol_version) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (tenant, task_id, id) DO UPDATE SET config = excluded.config, protocol_version = excluded.protocol_version`
	sqlUpdateOutboxConfig = `UPDATE outbox SET config = ?4 WHERE tenant = ?1 AND task_id = ?2 AND config_id = ?3`
	sqlCountConfigs       = `UPDATE tasks SET push_count = (SELECT COUNT(*) FROM push_configs WHERE tenant = ?1 AND task_id = ?2)
WHERE tenant = ?1 AND id = ?2
RETURNING push_count`
	sqlDeleteConfig       = `DELETE FROM push_configs WHERE tenant = ?1 AND task_id = ?2 AND id = ?3`
	sqlDeleteConfigOutbox = `DELETE FROM outbox WHERE tenant = ?1 AND task_id = ?2 AND config_id = ?3`

	// One row per config of the task for one event, in config id order.
	// ?1 tenant, ?2 task id, ?3 delivery id prefix, ?4 event, ?5 now,
	// ?6 traceparent, ?7 tracestate, ?8 the task as written, ?9 whether the
	// event is the write's last. A row is the head of its config's queue
	// when the config has no other. A config registered through a version
	// before 1.0 (store.TaskPayload) gets a row only for the last event,
	// holding the task instead of the event.
	sqlEnqueue = `INSERT INTO outbox (id, tenant, task_id, config_id, config, event, next_attempt, head, traceparent, tracestate, protocol_version)
SELECT ?3 || p.id, p.tenant, p.task_id, p.id, p.config, CASE WHEN p.protocol_version LIKE '0.%' THEN ?8 ELSE ?4 END, ?5,
	NOT EXISTS (SELECT 1 FROM outbox h WHERE h.tenant = p.tenant AND h.task_id = p.task_id AND h.config_id = p.id), ?6, ?7,
	p.protocol_version
FROM push_configs p WHERE p.tenant = ?1 AND p.task_id = ?2 AND (?9 OR p.protocol_version NOT LIKE '0.%')
ORDER BY p.id`

	// ?1 now, ?2 max, ?3 worker, ?4 lease end.
	sqlClaim = `UPDATE outbox SET lease_owner = ?3, lease_until = ?4
WHERE seq IN (SELECT seq FROM outbox WHERE head = 1 AND next_attempt <= ?1 AND lease_until <= ?1
	ORDER BY next_attempt, seq LIMIT ?2)
RETURNING seq, id, tenant, config, event, attempts, next_attempt, traceparent, tracestate, protocol_version`

	sqlFinish  = `DELETE FROM outbox WHERE id = ?1 RETURNING tenant, task_id, config_id, head`
	sqlPromote = `UPDATE outbox SET head = 1
WHERE seq = (SELECT MIN(seq) FROM outbox WHERE tenant = ?1 AND task_id = ?2 AND config_id = ?3)`
	sqlRetry = `UPDATE outbox SET attempts = ?2, next_attempt = ?3, lease_owner = '', lease_until = 0 WHERE id = ?1`

	sqlRenew = `UPDATE tasks SET lease_until = ?2 WHERE runner = ?1 AND runner <> ''
RETURNING tenant, id`

	sqlSweepTTLConfigs = `DELETE FROM push_configs WHERE (tenant, task_id) IN
	(SELECT tenant, id FROM tasks WHERE ended_at < ?1 ORDER BY ended_at, rowid LIMIT ?2)`
	sqlSweepTTLTasks = `DELETE FROM tasks WHERE rowid IN
	(SELECT rowid FROM tasks WHERE ended_at < ?1 ORDER BY ended_at, rowid LIMIT ?2)
RETURNING tenant, id`
	// The oldest terminal tasks of owner ?1 (retention.go: the owner
	// holding the most, over Retention.MaxTerminalTasks).
	sqlSweepOldestConfigs = `DELETE FROM push_configs WHERE (tenant, task_id) IN
	(SELECT tenant, id FROM tasks WHERE ended_at IS NOT NULL AND owner = ?1 ORDER BY ended_at, rowid LIMIT ?2)`
	sqlSweepOldestTasks = `DELETE FROM tasks WHERE rowid IN
	(SELECT rowid FROM tasks WHERE ended_at IS NOT NULL AND owner = ?1 ORDER BY ended_at, rowid LIMIT ?2)
RETURNING tenant, id`
	// The ?1 terminal tasks that ended first, whoever their owner (no
	// owner holds many: retention.go).
	sqlSweepAnyConfigs = `DELETE FROM push_configs WHERE (tenant, task_id) IN
	(SELECT tenant, id FROM tasks WHERE ended_at IS NOT NULL ORDER BY ended_at, rowid LIMIT ?1)`
	sqlSweepAnyTasks = `DELETE FROM tasks WHERE rowid IN
	(SELECT rowid FROM tasks WHERE ended_at IS NOT NULL ORDER BY ended_at, rowid LIMIT ?1)
RETURNING tenant, id`
	// The two owners holding the most terminal tasks, and how many.
	sqlLargestOwners = `SELECT owner, COUNT(*) AS n FROM tasks WHERE ended_at IS NOT NULL GROUP BY owner ORDER BY n DESC LIMIT 2`
	sqlOldestEnded   = `SELECT MIN(ended_at) FROM tasks WHERE ended_at IS NOT NULL`

	// Interrupted tasks (INPUT_REQUIRED = 6, AUTH_REQUIRED = 8) whose
	// status is older than ?1, oldest first (the partial index
	// tasks_waiting).
	sqlSweepWaitingConfigs = `DELETE FROM push_configs WHERE (tenant, task_id) IN
	(SELECT tenant, id FROM tasks WHERE state IN (6, 8) AND status_time < ?1 ORDER BY status_time LIMIT ?2)`
	sqlSweepWaitingTasks = `DELETE FROM tasks WHERE rowid IN
	(SELECT rowid FROM tasks WHERE state IN (6, 8) AND status_time < ?1 ORDER BY status_time LIMIT ?2)
RETURNING tenant, id`
	sqlOldestWaiting = `SELECT MIN(status_time) FROM tasks WHERE state IN (6, 8)`
)

func (w *writer) prepare(ctx context.Context) error {
	st := &w.st
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.begin, "BEGIN IMMEDIATE"},
		{&st.commit, "COMMIT"},
		{&st.rollback, "ROLLBACK"},
		{&st.insertTask, sqlInsertTask},
		{&st.taskState, sqlTaskState},
		{&st.deleteTask, sqlDeleteTask},
		{&st.deleteTaskConfigs, sqlDeleteTaskConfigs},
		{&st.updateTask, sqlUpdateTask},
		{&st.writeFull, sqlWriteFull},
		{&st.writeStatus, sqlWriteStatus},
		{&st.writeSnapshot, sqlWriteSnapshot},
		{&st.upsertConfig, sqlUpsertConfig},
		{&st.updateOutboxConfig, sqlUpdateOutboxConfig},
		{&st.countConfigs, sqlCountConfigs},
		{&st.deleteConfig, sqlDeleteConfig},
		{&st.deleteConfigOutbox, sqlDeleteConfigOutbox},
		{&st.enqueue, sqlEnqueue},
		{&st.claim, sqlClaim},
		{&st.finish, sqlFinish},
		{&st.promote, sqlPromote},
		{&st.retry, sqlRetry},
		{&st.renew, sqlRenew},
		{&st.logEvent, sqlLogEvent},
		{&st.sweepTTLConfigs, sqlSweepTTLConfigs},
		{&st.sweepTTLTasks, sqlSweepTTLTasks},
		{&st.sweepOldestConfigs, sqlSweepOldestConfigs},
		{&st.sweepOldestTasks, sqlSweepOldestTasks},
		{&st.oldestEnded, sqlOldestEnded},
		{&st.largestOwners, sqlLargestOwners},
		{&st.sweepAnyConfigs, sqlSweepAnyConfigs},
		{&st.sweepAnyTasks, sqlSweepAnyTasks},
		{&st.sweepWaitingConfigs, sqlSweepWaitingConfigs},
		{&st.sweepWaitingTasks, sqlSweepWaitingTasks},
		{&st.oldestWaiting, sqlOldestWaiting},
		{&st.sendKey, sqlSendKey},
		{&st.claimSendKey, sqlClaimSendKey},
		{&st.releaseSendKey, sqlReleaseSendKey},
		{&st.purgeSendKeys, sqlPurgeSendKeys},
		{&st.oweSendKey, sqlOweSendKey},
	} {
		s, err := w.conn.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("%w in %s", err, p.sql)
		}
		*p.dst = s
	}
	return w.prepareOwners(ctx)
}

func (w *writer) closeStmts() error {
	st := &w.st
	errs := []error{st.owners.close()}
	for _, s := range []*sql.Stmt{st.begin, st.commit, st.rollback, st.insertTask, st.taskState, st.deleteTask, st.deleteTaskConfigs, st.updateTask,
		st.writeFull, st.writeStatus, st.writeSnapshot,
		st.upsertConfig, st.updateOutboxConfig, st.countConfigs, st.deleteConfig, st.deleteConfigOutbox,
		st.enqueue, st.claim, st.finish, st.promote, st.retry, st.renew, st.logEvent,
		st.sweepTTLConfigs, st.sweepTTLTasks, st.sweepOldestConfigs, st.sweepOldestTasks, st.oldestEnded, st.largestOwners, st.sweepAnyConfigs, st.sweepAnyTasks,
		st.sweepWaitingConfigs, st.sweepWaitingTasks, st.oldestWaiting,
		st.sendKey, st.claimSendKey, st.releaseSendKey, st.purgeSendKeys, st.oweSendKey} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	*st = writeStmts{}
	return errors.Join(errs...)
}

// readStmts are prepared on the read pool.
type readStmts struct {
	task, config, configs, nextDelivery, anyDue, staleRuns, events *sql.Stmt
}

// sqlLiveTask is completed by the parameter of the earliest status time of a
// live interrupted task and two closing parentheses.
const sqlLiveTask = `EXISTS (SELECT 1 FROM tasks t WHERE t.tenant = ?1 AND t.id = ?2 AND (t.ended_at IS NULL OR t.ended_at >= ?3)
	AND NOT (t.state IN (6, 8) AND t.status_time < `

const (
	sqlTask = `SELECT owner, version, generation, snapshot, runner, lease_until, ended_at, push_count FROM tasks WHERE tenant = ?1 AND id = ?2`

	// ?1 tenant, ?2 task id, ?3 earliest end time of a live task, ?4 id,
	// ?5 earliest status time of a live interrupted task.
	sqlConfig = `SELECT config, protocol_version FROM push_configs WHERE tenant = ?1 AND task_id = ?2 AND id = ?4 AND ` + sqlLiveTask + `?5))`
	// ?4 after, ?5 limit (-1: none), ?6 earliest status time of a live
	// interrupted task.
	sqlConfigs = `SELECT config, protocol_version FROM push_configs WHERE tenant = ?1 AND task_id = ?2 AND id > ?4 AND ` + sqlLiveTask + `?6))
ORDER BY id LIMIT ?5`

	sqlNextDelivery = `SELECT MIN(MAX(next_attempt, lease_until)) FROM outbox WHERE head = 1`
	// ?1 now.
	sqlAnyDue = `SELECT EXISTS (SELECT 1 FROM outbox WHERE head = 1 AND next_attempt <= ?1 AND lease_until <= ?1)`

	// ?1 self, ?2 now, ?3 LIKE pattern of self's host (NULL: none),
	// ?4 SUBMITTED, ?5 WORKING.
	sqlStaleRuns = `SELECT tenant, id, owner, version, generation, snapshot, runner, lease_until FROM tasks
WHERE runner <> '' AND runner <> ?1 AND state IN (?4, ?5)
	AND (lease_until IS NULL OR lease_until < ?2 OR runner LIKE ?3 ESCAPE '\')`

	// The task's log between two generations, and whether the task
	// exists (a row with NULLs when it has no such events). ?1 tenant,
	// ?2 id, ?3 after, ?4 up to.
	sqlTaskEvents = `SELECT e.generation, e.version, e.event FROM tasks t
LEFT JOIN task_events e ON e.tenant = t.tenant AND e.task_id = t.id AND e.generation > ?3 AND e.generation <= ?4
WHERE t.tenant = ?1 AND t.id = ?2
ORDER BY e.generation`
)

func (r *readStmts) prepare(ctx context.Context, db *sql.DB) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&r.task, sqlTask},
		{&r.config, sqlConfig},
		{&r.configs, sqlConfigs},
		{&r.nextDelivery, sqlNextDelivery},
		{&r.anyDue, sqlAnyDue},
		{&r.staleRuns, sqlStaleRuns},
		{&r.events, sqlTaskEvents},
	} {
		s, err := db.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("%w in %s", err, p.sql)
		}
		*p.dst = s
	}
	return nil
}

func (r *readStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{r.task, r.config, r.configs, r.nextDelivery, r.anyDue, r.staleRuns, r.events} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	*r = readStmts{}
	return errors.Join(errs...)
}
