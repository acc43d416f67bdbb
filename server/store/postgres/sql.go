package postgres

// The SQL of the store. Times are unix nanoseconds. Statements run in pgx's
// default QueryExecModeCacheStatement: each is prepared once per connection.

const (
	// A task write in one statement (autocommit or one of a batch). It
	// matches no row, and so writes nothing, unless the task is at version
	// $3, not terminal, and its push configs did not change since the
	// statement's snapshot was taken (config_gen: a concurrent change of
	// the configs makes the write retry, so that it queues deliveries for
	// exactly the configs the task has when the write commits).
	//
	// $1 tenant, $2 id, $3 expected version, $4 snapshot, $5 state,
	// $6 status time, $7 context id, $8 terminal, $9 runner ('' keeps it),
	// $10 lease, $11 now, $12 events (feed; [NULL] for a terminal write
	// without events), $13 number of events to queue per config, $14 the
	// delivery ids' prefix before the version (see idPrefix), $15 channel, $16 notification payload (after
	// its kind), $17 notify, $18 traceparent and $19 tracestate of the
	// deliveries.
	//
	// A config registered through a version before 1.0 (store.TaskPayload)
	// is queued one delivery per write, with the write's last event's id
	// and the task as written ($4) as its payload.
	//
	// The generation grows by the number of events (count ignores the NULL
	// of an event-less terminal write).
	//
	// Result: the new version, the deliveries queued, the notifications
	// sent; no row when nothing was written.
	sqlUpdateTask = `WITH cur AS (
	SELECT config_gen FROM tasks WHERE tenant = $1 AND id = $2
), upd AS (
	UPDATE tasks t SET version = t.version + 1, generation = t.generation + (SELECT count(g.e) FROM unnest($12::bytea[]) AS g(e)), snapshot = $4, state = $5, status_time = $6, context_id = $7,
		runner = CASE WHEN $8::boolean THEN '' WHEN $9::text <> '' THEN $9::text ELSE t.runner END,
		lease_until = CASE WHEN $8::boolean THEN NULL WHEN $9::text <> '' THEN $10::bigint ELSE t.lease_until END,
		ended_at = CASE WHEN $8::boolean THEN $11::bigint END
	FROM cur
	WHERE t.tenant = $1 AND t.id = $2 AND t.version = $3 AND t.ended_at IS NULL AND t.config_gen = cur.config_gen
	RETURNING t.tenant, t.id, t.version, t.push_count, t.generation
), ev AS (
	INSERT INTO task_events (tenant, task_id, version, idx, event, terminal, generation)
	SELECT upd.tenant, upd.id, upd.version, e.i - 1, e.event, $8::boolean,
		CASE WHEN e.event IS NOT NULL THEN upd.generation - (SELECT count(g.e) FROM unnest($12::bytea[]) AS g(e)) + e.i END
	FROM upd, unnest($12::bytea[]) WITH ORDINALITY AS e(event, i)
), q AS (
	INSERT INTO outbox_queues AS q (tenant, task_id, config_id, next_no, next_attempt)
	SELECT p.tenant, p.task_id, p.id, CASE WHEN p.protocol_version LIKE '0.%' THEN 1 ELSE $13::integer END, $11::bigint
	FROM upd JOIN push_configs p ON p.tenant = upd.tenant AND p.task_id = upd.id
	WHERE upd.push_count > 0 AND $13::integer > 0
	ORDER BY p.id
	ON CONFLICT (tenant, task_id, config_id) DO UPDATE SET next_no = q.next_no + EXCLUDED.next_no,
		next_attempt = CASE WHEN q.head_no = q.next_no THEN EXCLUDED.next_attempt ELSE q.next_attempt END
	RETURNING q.tenant, q.task_id, q.config_id, q.next_no AS end_no
), ob AS (
	INSERT INTO outbox (tenant, task_id, config_id, no, id, config, event, traceparent, tracestate, protocol_version)
	SELECT q.tenant, q.task_id, q.config_id, q.end_no - $13::integer + e.i - 1,
		$14::text || ($3 + 1)::text || '.' || (e.i - 1)::text || '/' || q.config_id, p.config,
		CASE WHEN p.protocol_version LIKE '0.%' THEN $4::bytea ELSE e.event END, $18::text, $19::text, p.protocol_version
	FROM q JOIN push_configs p ON p.tenant = q.tenant AND p.task_id = q.task_id AND p.id = q.config_id,
		unnest($12::bytea[]) WITH ORDINALITY AS e(event, i)
	WHERE p.protocol_version NOT LIKE '0.%' OR e.i = $13::integer
	RETURNING 1
), n AS (
	SELECT pg_notify($15::text, CASE WHEN EXISTS (SELECT 1 FROM ob) THEN 'q' ELSE 'e' END || $16::text)
	FROM upd WHERE $17::boolean
)
SELECT upd.version, (SELECT count(*) FROM ob), (SELECT count(*) FROM n) FROM upd`

	// sqlUpdateTask for a task without push configs: it matches no row when
	// the task has configs (push_count, which every change of the configs
	// sets under the task's row lock), and the write is then made with
	// sqlUpdateTask. It spares PostgreSQL setting up the outbox parts.
	// $1…$12 as sqlUpdateTask, $13 channel, $14 payload, $15 notify.
	sqlUpdateTaskLean = `WITH upd AS (
	UPDATE tasks t SET version = t.version + 1, generation = t.generation + (SELECT count(g.e) FROM unnest($12::bytea[]) AS g(e)), snapshot = $4, state = $5, status_time = $6, context_id = $7,
		runner = CASE WHEN $8::boolean THEN '' WHEN $9::text <> '' THEN $9::text ELSE t.runner END,
		lease_until = CASE WHEN $8::boolean THEN NULL WHEN $9::text <> '' THEN $10::bigint ELSE t.lease_until END,
		ended_at = CASE WHEN $8::boolean THEN $11::bigint END
	WHERE t.tenant = $1 AND t.id = $2 AND t.version = $3 AND t.ended_at IS NULL AND t.push_count = 0
	RETURNING t.tenant, t.id, t.version, t.generation
), ev AS (
	INSERT INTO task_events (tenant, task_id, version, idx, event, terminal, generation)
	SELECT upd.tenant, upd.id, upd.version, e.i - 1, e.event, $8::boolean,
		CASE WHEN e.event IS NOT NULL THEN upd.generation - (SELECT count(g.e) FROM unnest($12::bytea[]) AS g(e)) + e.i END
	FROM upd, unnest($12::bytea[]) WITH ORDINALITY AS e(event, i)
), n AS (
	SELECT pg_notify($13::text, 'e' || $14::text) FROM upd WHERE $15::boolean
)
SELECT upd.version, 0::bigint, (SELECT count(*) FROM n) FROM upd`

	// $1 tenant, $2 id, $3 owner, $4 context id, $5 state, $6 status time,
	// $7 snapshot, $8 runner, $9 lease, $10 ended at, $11 push configs,
	// $12 generation.
	// Result: a row when the task was inserted.
	sqlCreateTask = `INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot, runner, lease_until, ended_at, push_count, generation)
VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10, $11, $12)
ON CONFLICT (tenant, id) DO NOTHING
RETURNING 1::bigint, 0::bigint, 0::bigint`

	// A task created with push configs, which also queues its events for
	// them and, when it did, notifies the replicas' dispatchers.
	// $1…$11 as sqlCreateTask, $12 config ids, $13 configs, $14 number of
	// events, $15 now, $16 events, $17 delivery id prefixes, $18 channel,
	// $19 notification payload (after its kind), $20 traceparent and $21
	// tracestate of the deliveries, $22 the configs' protocol versions (a
	// config of a version before 1.0 is queued the task, $7, once; see
	// sqlUpdateTask), $23 generation.
	// Result: 1 if the task was inserted, deliveries queued, notifications.
	sqlCreateTaskWithConfigs = `WITH ins AS (
	INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot, runner, lease_until, ended_at, push_count, generation)
	VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10, $11, $23)
	ON CONFLICT (tenant, id) DO NOTHING
	RETURNING tenant, id
), cfg AS (
	INSERT INTO push_configs (tenant, task_id, id, config, protocol_version)
	SELECT ins.tenant, ins.id, c.id, c.config, c.version FROM ins, unnest($12::text[], $13::bytea[], $22::text[]) AS c(id, config, version)
	RETURNING tenant, task_id, id, config, protocol_version
), q AS (
	INSERT INTO outbox_queues AS q (tenant, task_id, config_id, next_no, next_attempt)
	SELECT cfg.tenant, cfg.task_id, cfg.id, CASE WHEN cfg.protocol_version LIKE '0.%' THEN 1 ELSE $14::integer END, $15::bigint
	FROM cfg WHERE $14::integer > 0
	ORDER BY cfg.id
	ON CONFLICT (tenant, task_id, config_id) DO UPDATE SET next_no = q.next_no + EXCLUDED.next_no,
		next_attempt = CASE WHEN q.head_no = q.next_no THEN EXCLUDED.next_attempt ELSE q.next_attempt END
	RETURNING q.tenant, q.task_id, q.config_id, q.next_no AS end_no
), ob AS (
	INSERT INTO outbox (tenant, task_id, config_id, no, id, config, event, traceparent, tracestate, protocol_version)
	SELECT q.tenant, q.task_id, q.config_id, q.end_no - $14::integer + e.i - 1, e.prefix || q.config_id, cfg.config,
		CASE WHEN cfg.protocol_version LIKE '0.%' THEN $7::bytea ELSE e.event END, $20::text, $21::text, cfg.protocol_version
	FROM q JOIN cfg ON cfg.id = q.config_id, unnest($16::bytea[], $17::text[]) WITH ORDINALITY AS e(event, prefix, i)
	WHERE cfg.protocol_version NOT LIKE '0.%' OR e.i = $14::integer
	RETURNING 1
), n AS (
	SELECT pg_notify($18::text, 'o' || $19::text) WHERE EXISTS (SELECT 1 FROM ob)
)
SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM ob), (SELECT count(*) FROM n)`

	// Why a write matched no row. $1 tenant, $2 id.
	sqlTaskState = `SELECT version, ended_at, state, status_time FROM tasks WHERE tenant = $1 AND id = $2`

	// Removes a task past its TTL whose id a new task takes. Its pending
	// deliveries stay. $1 tenant, $2 id, $3 earliest end time of a live
	// task, $4 earliest status time of a live interrupted task.
	sqlRemoveExpired = `WITH gone AS (
	DELETE FROM tasks WHERE tenant = $1 AND id = $2 AND (ended_at < $3 OR state IN (6, 8) AND status_time < $4) RETURNING tenant, id
), c AS (
	DELETE FROM push_configs p USING gone WHERE p.tenant = gone.tenant AND p.task_id = gone.id
), e AS (
	DELETE FROM task_events ev USING gone WHERE ev.tenant = gone.tenant AND ev.task_id = gone.id
)
SELECT count(*) FROM gone`

	sqlTask = `SELECT owner, version, generation, snapshot, runner, lease_until, ended_at FROM tasks WHERE tenant = $1 AND id = $2`

	// The feed of one task after a version, with the task's version and
	// state in the same snapshot: every event up to that version is in the
	// result. $1 tenant, $2 id, $3 after.
	sqlEvents = `SELECT t.version, t.ended_at IS NOT NULL, e.version, e.event, e.terminal
FROM tasks t LEFT JOIN task_events e ON e.tenant = t.tenant AND e.task_id = t.id AND e.version > $3
WHERE t.tenant = $1 AND t.id = $2
ORDER BY e.version, e.idx`

	// The task's log between two generations (eventlog.go), and whether
	// the task exists (a row with NULLs when it has no such events).
	// $1 tenant, $2 id, $3 after, $4 up to.
	sqlTaskEvents = `SELECT e.generation, e.version, e.event
FROM tasks t LEFT JOIN task_events e ON e.tenant = t.tenant AND e.task_id = t.id
	AND e.generation > $3 AND e.generation <= $4 AND e.generation IS NOT NULL
WHERE t.tenant = $1 AND t.id = $2
ORDER BY e.generation`

	// Renews a runner's leases. It locks the rows in key order, as the
	// writer's batches do (writer.run): otherwise a renewal and a batch
	// writing two of its tasks can deadlock, and PostgreSQL fails one of
	// them (the batch: every write in it).
	sqlRenew = `UPDATE tasks t SET lease_until = $2
FROM (SELECT tenant, id FROM tasks WHERE runner = $1 AND runner <> '' ORDER BY tenant, id FOR UPDATE) r
WHERE t.tenant = r.tenant AND t.id = r.id`

	// $1 self, $2 now, $3 LIKE pattern of self's host (NULL: none),
	// $4 SUBMITTED, $5 WORKING.
	sqlStaleRuns = `SELECT tenant, id, owner, version, generation, snapshot, runner, lease_until FROM tasks
WHERE runner <> '' AND runner <> $1 AND state IN ($4, $5)
	AND (lease_until IS NULL OR lease_until < $2 OR runner LIKE $3 ESCAPE '\')`
)

// Push configs. A change of a task's configs first locks the task's row and
// moves its config_gen (so that a concurrent task write computed from the
// old configs retries), then, in later statements of the same transaction
// and so with fresh snapshots, changes the configs and counts them: the
// three go as one pipelined batch.
const (
	// $1 tenant, $2 task id.
	sqlLockTaskConfigs = `UPDATE tasks SET config_gen = config_gen + 1 WHERE tenant = $1 AND id = $2`

	// $1 tenant, $2 task id, $3 config id, $4 config, $5 earliest end time
	// of a live task, $6 earliest status time of a live interrupted task,
	// $7 the config's protocol version. Pending deliveries of the config go
	// to the new one (in the form they were queued in).
	sqlSaveConfig = `WITH live AS (
	SELECT 1 FROM tasks WHERE tenant = $1 AND id = $2 AND (ended_at IS NULL OR ended_at >= $5)
		AND NOT (state IN (6, 8) AND status_time < $6)
), up AS (
	INSERT INTO push_configs (tenant, task_id, id, config, protocol_version) SELECT $1, $2, $3, $4, $7 FROM live
	ON CONFLICT (tenant, task_id, id) DO UPDATE SET config = EXCLUDED.config, protocol_version = EXCLUDED.protocol_version
	RETURNING 1
), ob AS (
	UPDATE outbox SET config = $4 WHERE tenant = $1 AND task_id = $2 AND config_id = $3 AND EXISTS (SELECT 1 FROM live)
)
SELECT count(*) FROM up`

	// $1 tenant, $2 task id, $3 config id.
	// Deliveries already queued for the config stay: they carry a copy of
	// it, and events written while it existed are still delivered.
	sqlDeleteConfig = `WITH d AS (
	DELETE FROM push_configs WHERE tenant = $1 AND task_id = $2 AND id = $3 RETURNING 1
)
SELECT count(*) FROM d`

	// The last statement of a change of configs (it sees the change).
	// $1 tenant, $2 task id.
	sqlCountConfigs = `UPDATE tasks SET push_count = (SELECT count(*) FROM push_configs WHERE tenant = $1 AND task_id = $2)
WHERE tenant = $1 AND id = $2`

	// $1 tenant, $2 task id, $3 config id, $4 earliest end time of a live
	// task, $5 earliest status time of a live interrupted task.
	sqlConfig = `SELECT p.config, p.protocol_version FROM push_configs p JOIN tasks t ON t.tenant = p.tenant AND t.id = p.task_id
WHERE p.tenant = $1 AND p.task_id = $2 AND p.id = $3 AND (t.ended_at IS NULL OR t.ended_at >= $4)
	AND NOT (t.state IN (6, 8) AND t.status_time < $5)`

	// $1 tenant, $2 task id, $3 after, $4 limit (NULL: none), $5 earliest
	// end time of a live task, $6 earliest status time of a live interrupted
	// task.
	sqlConfigs = `SELECT p.config, p.protocol_version FROM push_configs p JOIN tasks t ON t.tenant = p.tenant AND t.id = p.task_id
WHERE p.tenant = $1 AND p.task_id = $2 AND p.id > $3 AND (t.ended_at IS NULL OR t.ended_at >= $5)
	AND NOT (t.state IN (6, 8) AND t.status_time < $6)
ORDER BY p.id LIMIT $4`
)

// The outbox.
const (
	// Leases the heads of up to $2 queues that are due at $1 and not
	// leased, skipping queues another claim is taking, and returns them
	// with their delivery. $3 worker, $4 lease end.
	sqlClaim = `WITH c AS (
	SELECT tenant, task_id, config_id FROM outbox_queues
	WHERE head_no < next_no AND GREATEST(next_attempt, lease_until) <= $1
	ORDER BY GREATEST(next_attempt, lease_until)
	LIMIT $2
	FOR UPDATE SKIP LOCKED
), u AS (
	UPDATE outbox_queues q SET lease_owner = $3, lease_until = $4
	FROM c WHERE q.tenant = c.tenant AND q.task_id = c.task_id AND q.config_id = c.config_id
	RETURNING q.tenant, q.task_id, q.config_id, q.head_no, q.attempts, q.next_attempt
)
SELECT u.tenant, u.task_id, u.config_id, o.id, o.config, o.event, u.attempts, u.next_attempt, o.traceparent, o.tracestate, o.protocol_version
FROM u LEFT JOIN outbox o ON o.tenant = u.tenant AND o.task_id = u.task_id AND o.config_id = u.config_id AND o.no = u.head_no`

	// Gives back a lease whose delivery the claim could not read (written
	// after the claim's snapshot was taken). $1 tenant, $2 task id,
	// $3 config id, $4 worker.
	sqlUnclaim = `UPDATE outbox_queues SET lease_owner = '', lease_until = 0
WHERE tenant = $1 AND task_id = $2 AND config_id = $3 AND lease_owner = $4`

	// Removes a delivery, its queue's head (only heads are handed out, so
	// numbers never have holes), and makes the next one the head, due at
	// $2. Result: whether the queue is now empty and
	// its task gone (then the queue's row can go too).
	sqlFinish = `WITH d AS (
	DELETE FROM outbox o USING outbox_queues h
	WHERE o.id = $1 AND h.tenant = o.tenant AND h.task_id = o.task_id AND h.config_id = o.config_id AND h.head_no = o.no
	RETURNING o.tenant, o.task_id, o.config_id, o.no
), q AS (
	UPDATE outbox_queues q SET head_no = q.head_no + 1, attempts = 0, next_attempt = $2, lease_owner = '', lease_until = 0
	FROM d WHERE q.tenant = d.tenant AND q.task_id = d.task_id AND q.config_id = d.config_id AND q.head_no = d.no
	RETURNING q.tenant, q.task_id, q.config_id, q.head_no = q.next_no AS empty
)
SELECT q.tenant, q.task_id, q.config_id FROM q
WHERE q.empty AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.tenant = q.tenant AND t.id = q.task_id)`

	// $1 tenant, $2 task id, $3 config id.
	sqlDropEmptyQueue = `DELETE FROM outbox_queues WHERE tenant = $1 AND task_id = $2 AND config_id = $3 AND head_no = next_no`

	// $1 delivery id, $2 attempts, $3 due.
	sqlRetry = `UPDATE outbox_queues q SET attempts = $2, next_attempt = $3, lease_owner = '', lease_until = 0
FROM outbox o
WHERE o.id = $1 AND q.tenant = o.tenant AND q.task_id = o.task_id AND q.config_id = o.config_id AND q.head_no = o.no`

	sqlNextDelivery = `SELECT min(GREATEST(next_attempt, lease_until)) FROM outbox_queues WHERE head_no < next_no`
)

// Retention, run by one replica at a time.
const (
	sqlSweepLock = `SELECT pg_try_advisory_xact_lock(hashtextextended('a2agen/sweep/' || current_schema(), 0))`
	// The same lock, waited for.
	sqlSweepLockWait = `SELECT true FROM pg_advisory_xact_lock(hashtextextended('a2agen/sweep/' || current_schema(), 0))`

	// Removes up to $2 terminal tasks that ended before $1, oldest first,
	// with their push configs, events and empty outbox queues.
	sqlSweepTTL = `WITH gone AS (
	DELETE FROM tasks WHERE (tenant, id) IN (
		SELECT tenant, id FROM tasks WHERE ended_at IS NOT NULL AND ended_at < $1 ORDER BY ended_at LIMIT $2)
	RETURNING tenant, id
)` + sweepTail

	// Removes up to $2 interrupted tasks (INPUT_REQUIRED = 6,
	// AUTH_REQUIRED = 8) whose status is older than $1, oldest first
	// (the partial index tasks_waiting).
	sqlSweepWaiting = `WITH gone AS (
	DELETE FROM tasks WHERE (tenant, id) IN (
		SELECT tenant, id FROM tasks WHERE state IN (6, 8) AND status_time < $1 ORDER BY status_time LIMIT $2)
	RETURNING tenant, id
)` + sweepTail

	sqlCountTerminal = `SELECT count(*) FROM tasks WHERE ended_at IS NOT NULL`

	// Removes the $1 terminal tasks of owner $2 that ended first.
	sqlSweepOldest = `WITH gone AS (
	DELETE FROM tasks WHERE (tenant, id) IN (
		SELECT tenant, id FROM tasks WHERE ended_at IS NOT NULL AND owner = $2 ORDER BY ended_at LIMIT $1)
	RETURNING tenant, id
)` + sweepTail

	// Removes the $1 terminal tasks that ended first, whoever their owner.
	sqlSweepAny = `WITH gone AS (
	DELETE FROM tasks WHERE (tenant, id) IN (
		SELECT tenant, id FROM tasks WHERE ended_at IS NOT NULL ORDER BY ended_at LIMIT $1)
	RETURNING tenant, id
)` + sweepTail

	// The two owners holding the most terminal tasks, and how many.
	sqlLargestOwners = `SELECT owner, count(*) AS n FROM tasks WHERE ended_at IS NOT NULL GROUP BY owner ORDER BY n DESC LIMIT 2`

	sweepTail = `, c AS (
	DELETE FROM push_configs p USING gone WHERE p.tenant = gone.tenant AND p.task_id = gone.id
), e AS (
	DELETE FROM task_events ev USING gone WHERE ev.tenant = gone.tenant AND ev.task_id = gone.id
), q AS (
	DELETE FROM outbox_queues q USING gone WHERE q.tenant = gone.tenant AND q.task_id = gone.id AND q.head_no = q.next_no
)
SELECT count(*) FROM gone`
)
