-- Per-owner retention (store.Retention's MaxTerminalTasksPerOwner,
-- MaxInterruptedTasksPerOwner, MaxBytesPerOwner; issue 26). One row per
-- owner (tasks.owner, across tenants; '' is every anonymous caller
-- together) holding terminal or interrupted tasks: how many of each, and
-- the bytes of their snapshots (the protobuf size, as the memory store
-- counts). Triggers keep it in the transaction of every write that ends,
-- interrupts, resumes or removes a task (the store's one writer: no
-- contention); writes of running tasks do not fire them. The writer reads
-- one row after each such write and, over a cap, removes the owner's
-- oldest through the two indexes below.
CREATE TABLE owner_counts (
	owner   TEXT    NOT NULL PRIMARY KEY,
	ended   INTEGER NOT NULL,
	waiting INTEGER NOT NULL,
	bytes   INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO owner_counts (owner, ended, waiting, bytes)
	SELECT owner, SUM(ended_at IS NOT NULL), SUM(state IN (6, 8)), SUM(length(snapshot))
	FROM tasks WHERE ended_at IS NOT NULL OR state IN (6, 8) GROUP BY owner;

-- An owner's terminal tasks in the order they ended, and its interrupted
-- tasks (INPUT_REQUIRED = 6, AUTH_REQUIRED = 8) by status time: a cap
-- removes from the front. One index entry for each task that ends or
-- waits; running tasks are in neither.
CREATE INDEX tasks_owner_ended   ON tasks (owner, ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX tasks_owner_waiting ON tasks (owner, status_time) WHERE state IN (6, 8);

CREATE TRIGGER owner_counted AFTER INSERT ON tasks
WHEN new.ended_at IS NOT NULL OR new.state IN (6, 8) BEGIN
	INSERT INTO owner_counts (owner, ended, waiting, bytes)
		VALUES (new.owner, new.ended_at IS NOT NULL, new.state IN (6, 8), length(new.snapshot))
		ON CONFLICT (owner) DO UPDATE SET ended = ended + excluded.ended, waiting = waiting + excluded.waiting,
			bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER owner_uncounted AFTER DELETE ON tasks
WHEN old.ended_at IS NOT NULL OR old.state IN (6, 8) BEGIN
	UPDATE owner_counts SET ended = ended - (old.ended_at IS NOT NULL), waiting = waiting - (old.state IN (6, 8)),
		bytes = bytes - length(old.snapshot)
		WHERE owner = old.owner;
	DELETE FROM owner_counts WHERE owner = old.owner AND ended = 0 AND waiting = 0;
END;

-- The owner never changes; a write may end, interrupt or resume the task,
-- or rewrite the snapshot of an interrupted one.
CREATE TRIGGER owner_recounted AFTER UPDATE OF state, ended_at, snapshot ON tasks
WHEN old.ended_at IS NOT NULL OR old.state IN (6, 8) OR new.ended_at IS NOT NULL OR new.state IN (6, 8) BEGIN
	INSERT INTO owner_counts (owner, ended, waiting, bytes)
		VALUES (new.owner,
			(new.ended_at IS NOT NULL) - (old.ended_at IS NOT NULL),
			(new.state IN (6, 8)) - (old.state IN (6, 8)),
			(CASE WHEN new.ended_at IS NOT NULL OR new.state IN (6, 8) THEN length(new.snapshot) ELSE 0 END) -
			(CASE WHEN old.ended_at IS NOT NULL OR old.state IN (6, 8) THEN length(old.snapshot) ELSE 0 END))
		ON CONFLICT (owner) DO UPDATE SET ended = ended + excluded.ended, waiting = waiting + excluded.waiting,
			bytes = bytes + excluded.bytes;
	DELETE FROM owner_counts WHERE owner = new.owner AND ended = 0 AND waiting = 0;
END;
