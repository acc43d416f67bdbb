-- Listing in O(page) (issue 26). A listing by context walks an index of
-- exactly the context's tasks, in listing order, from its cursor: before
-- this, a contextId that has no tasks scanned every task of the owner
-- (anonymous callers share the empty owner). It costs every status change
-- one more index entry (about one WAL page); an index by state would cost
-- two more, and state changes of the counts below one more: a listing by
-- state alone (never an anonymous caller's: they must name a context)
-- still reads the owner's entries of tasks_by_time.
CREATE INDEX tasks_by_context ON tasks (tenant, owner, context_id, status_time, id, state, ended_at);

-- totalSize without counting rows: the tasks of each owner, and of each
-- owner's context, kept by triggers in the transaction of every write that
-- adds, removes or moves a task (the store's one writer: no contention;
-- status changes touch neither). Listings subtract the tasks past their
-- TTL that the retention sweep has not removed yet, found through
-- tasks_by_end and tasks_waiting.
CREATE TABLE task_counts (
	tenant TEXT    NOT NULL,
	owner  TEXT    NOT NULL,
	n      INTEGER NOT NULL,
	PRIMARY KEY (tenant, owner)
) WITHOUT ROWID;
CREATE TABLE context_counts (
	tenant     TEXT    NOT NULL,
	owner      TEXT    NOT NULL,
	context_id TEXT    NOT NULL,
	n          INTEGER NOT NULL,
	PRIMARY KEY (tenant, owner, context_id)
) WITHOUT ROWID;

INSERT INTO task_counts (tenant, owner, n)
	SELECT tenant, owner, COUNT(*) FROM tasks GROUP BY tenant, owner;
INSERT INTO context_counts (tenant, owner, context_id, n)
	SELECT tenant, owner, context_id, COUNT(*) FROM tasks GROUP BY tenant, owner, context_id;

CREATE TRIGGER tasks_counted AFTER INSERT ON tasks BEGIN
	INSERT INTO task_counts (tenant, owner, n) VALUES (new.tenant, new.owner, 1)
		ON CONFLICT (tenant, owner) DO UPDATE SET n = n + 1;
	INSERT INTO context_counts (tenant, owner, context_id, n) VALUES (new.tenant, new.owner, new.context_id, 1)
		ON CONFLICT (tenant, owner, context_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tasks_uncounted AFTER DELETE ON tasks BEGIN
	UPDATE task_counts SET n = n - 1 WHERE tenant = old.tenant AND owner = old.owner;
	DELETE FROM task_counts WHERE tenant = old.tenant AND owner = old.owner AND n = 0;
	UPDATE context_counts SET n = n - 1 WHERE tenant = old.tenant AND owner = old.owner AND context_id = old.context_id;
	DELETE FROM context_counts WHERE tenant = old.tenant AND owner = old.owner AND context_id = old.context_id AND n = 0;
END;

-- Tenant and owner never change; the context does when a follow-up moves
-- the task.
CREATE TRIGGER tasks_recounted AFTER UPDATE OF context_id ON tasks
WHEN old.context_id IS NOT new.context_id BEGIN
	UPDATE context_counts SET n = n - 1 WHERE tenant = old.tenant AND owner = old.owner AND context_id = old.context_id;
	DELETE FROM context_counts WHERE tenant = old.tenant AND owner = old.owner AND context_id = old.context_id AND n = 0;
	INSERT INTO context_counts (tenant, owner, context_id, n) VALUES (new.tenant, new.owner, new.context_id, 1)
		ON CONFLICT (tenant, owner, context_id) DO UPDATE SET n = n + 1;
END;
