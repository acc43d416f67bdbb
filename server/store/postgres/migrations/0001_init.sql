-- The PostgreSQL store's schema. Times are unix nanoseconds (bigint), as in
-- the SQLite store, so that cursors built from protobuf timestamps compare
-- exactly. Text keys use the "C" collation: listings and cursors order ids
-- bytewise, as every store does, and whatever the database's locale.

-- Tasks: one row per task, the snapshot as protobuf binary. ended_at is set
-- when the task becomes terminal (NULL while it runs); runner and
-- lease_until are the execution record. push_count is the number of push
-- configs (a task without any costs its writes no outbox work);
-- config_gen changes with every change of the task's push configs, so that
-- a task write computed from configs that changed meanwhile is retried.
CREATE TABLE tasks (
	tenant      text COLLATE "C" NOT NULL,
	id          text COLLATE "C" NOT NULL,
	owner       text COLLATE "C" NOT NULL DEFAULT '',
	context_id  text COLLATE "C" NOT NULL DEFAULT '',
	state       smallint NOT NULL,
	status_time bigint   NOT NULL,
	version     bigint   NOT NULL,
	snapshot    bytea    NOT NULL,
	runner      text COLLATE "C" NOT NULL DEFAULT '',
	lease_until bigint,
	ended_at    bigint,
	push_count  integer  NOT NULL DEFAULT 0,
	config_gen  bigint   NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant, id)
);

-- Listing (newest status first, then greatest id) per tenant and owner,
-- optionally by context or state: keyset pages walk these indexes, and
-- counts are index-only scans of the filtered range (ended_at, and state
-- for context listings, are included for the filters on them).
CREATE INDEX tasks_by_time    ON tasks (tenant, owner, status_time, id) INCLUDE (ended_at);
CREATE INDEX tasks_by_context ON tasks (tenant, owner, context_id, status_time, id) INCLUDE (state, ended_at);
CREATE INDEX tasks_by_state   ON tasks (tenant, owner, state, status_time, id) INCLUDE (ended_at);
-- Execution records: only tasks that have a runner (never terminal ones).
CREATE INDEX tasks_by_runner  ON tasks (runner, lease_until) WHERE runner <> '';
-- Retention: terminal tasks in the order they ended.
CREATE INDEX tasks_by_end     ON tasks (ended_at) WHERE ended_at IS NOT NULL;

-- The feed: the stream events of every task write, read by the subscribers
-- of every replica (a notification says only which task and version).
-- event is NULL only in the single row of a terminal write without events,
-- which tells subscribers that the feed ends. Removed with the task.
CREATE TABLE task_events (
	tenant   text COLLATE "C" NOT NULL,
	task_id  text COLLATE "C" NOT NULL,
	version  bigint  NOT NULL,
	idx      integer NOT NULL,
	event    bytea,
	terminal boolean NOT NULL,
	PRIMARY KEY (tenant, task_id, version, idx)
);

CREATE TABLE push_configs (
	tenant  text COLLATE "C" NOT NULL,
	task_id text COLLATE "C" NOT NULL,
	id      text COLLATE "C" NOT NULL,
	config  bytea NOT NULL,
	PRIMARY KEY (tenant, task_id, id)
);

-- The outbox is a queue per webhook config. outbox_queues holds the state
-- of each queue's head, the only delivery of the config that can be
-- claimed: its number (head_no; deliveries are numbered in write order),
-- its failed attempts, when it is due and who holds its lease. next_no is
-- the number the next queued delivery gets; head_no = next_no means the
-- queue is empty. Writes append by updating next_no (INSERT … ON CONFLICT,
-- which always sees the latest row), finishing a delivery advances head_no:
-- both serialise on the queue's row, so no interleaving of writers and
-- senders, on any replica, can lose a queue's head.
CREATE TABLE outbox_queues (
	tenant       text COLLATE "C" NOT NULL,
	task_id      text COLLATE "C" NOT NULL,
	config_id    text COLLATE "C" NOT NULL,
	head_no      bigint  NOT NULL DEFAULT 0,
	next_no      bigint  NOT NULL,
	attempts     integer NOT NULL DEFAULT 0,
	next_attempt bigint  NOT NULL,
	lease_owner  text    NOT NULL DEFAULT '',
	lease_until  bigint  NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant, task_id, config_id)
);

-- Non-empty queues by the time their head is due (its retry time or, when
-- leased, its lease end): claims and NextDelivery read this index only.
CREATE INDEX outbox_queues_due ON outbox_queues ((GREATEST(next_attempt, lease_until))) WHERE head_no < next_no;

-- The deliveries: one row per event and config, numbered within the queue,
-- with a copy of the config (kept current by SavePushConfig) so that a
-- delivery outlives its task, and the delivery id receivers deduplicate on.
CREATE TABLE outbox (
	tenant    text COLLATE "C" NOT NULL,
	task_id   text COLLATE "C" NOT NULL,
	config_id text COLLATE "C" NOT NULL,
	no        bigint NOT NULL,
	id        text COLLATE "C" NOT NULL,
	config    bytea  NOT NULL,
	event     bytea  NOT NULL,
	PRIMARY KEY (tenant, task_id, config_id, no)
);

CREATE UNIQUE INDEX outbox_by_id ON outbox (id);
