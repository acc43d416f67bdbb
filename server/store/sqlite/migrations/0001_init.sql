-- Tasks: one row per task, the snapshot as protobuf binary. Times are unix
-- nanoseconds. ended_at is set when the task becomes terminal (NULL while
-- it runs); runner and lease_until are the execution record.
CREATE TABLE tasks (
	tenant      TEXT    NOT NULL,
	id          TEXT    NOT NULL,
	owner       TEXT    NOT NULL DEFAULT '',
	context_id  TEXT    NOT NULL DEFAULT '',
	state       INTEGER NOT NULL,
	status_time INTEGER NOT NULL,
	version     INTEGER NOT NULL,
	snapshot    BLOB    NOT NULL,
	runner      TEXT    NOT NULL DEFAULT '',
	lease_until INTEGER,
	ended_at    INTEGER,
	push_count  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant, id)
);

-- Listing (newest status first, then greatest id) per tenant and owner.
-- One index serves every filter: context_id, state and ended_at (for the
-- TTL) make it cover the counts, and a filtered page is read in index
-- order. Every index whose key holds the status time is rewritten by each
-- status change and costs WAL pages on the hot path, so there is no
-- separate index by context or state: a filtered listing scans the
-- owner's entries like the unfiltered count does anyway.
CREATE INDEX tasks_by_time    ON tasks (tenant, owner, status_time, id, context_id, state, ended_at);
-- Execution records: only tasks that have a runner (never terminal ones).
-- The lease is not indexed, so that renewing it rewrites no index page.
CREATE INDEX tasks_by_runner  ON tasks (runner) WHERE runner <> '';
-- Retention: terminal tasks in the order they ended.
CREATE INDEX tasks_by_end     ON tasks (ended_at) WHERE ended_at IS NOT NULL;

CREATE TABLE push_configs (
	tenant  TEXT NOT NULL,
	task_id TEXT NOT NULL,
	id      TEXT NOT NULL,
	config  BLOB NOT NULL,
	PRIMARY KEY (tenant, task_id, id)
) WITHOUT ROWID;

-- Outbox: one row per pending delivery (event × webhook config). seq gives
-- the order per config; head marks the oldest pending row of its config,
-- the only one that can be claimed. config is a copy of the webhook config
-- (kept current by SavePushConfig), so that a delivery outlives its task.
CREATE TABLE outbox (
	seq          INTEGER PRIMARY KEY,
	id           TEXT    NOT NULL,
	tenant       TEXT    NOT NULL,
	task_id      TEXT    NOT NULL,
	config_id    TEXT    NOT NULL,
	config       BLOB    NOT NULL,
	event        BLOB    NOT NULL,
	attempts     INTEGER NOT NULL DEFAULT 0,
	next_attempt INTEGER NOT NULL,
	lease_owner  TEXT    NOT NULL DEFAULT '',
	lease_until  INTEGER NOT NULL DEFAULT 0,
	head         INTEGER NOT NULL DEFAULT 0
);

CREATE UNIQUE INDEX outbox_by_id ON outbox (id);
CREATE INDEX outbox_by_config ON outbox (tenant, task_id, config_id, seq);
CREATE INDEX outbox_heads     ON outbox (next_attempt, seq) WHERE head = 1;
