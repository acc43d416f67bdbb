-- Per-owner retention (store.Retention's MaxTerminalTasksPerOwner,
-- MaxInterruptedTasksPerOwner, MaxBytesPerOwner; issue 26): per owner
-- (tasks.owner, across tenants; '' is every anonymous caller together), its
-- terminal and interrupted tasks and the bytes of their snapshots (the
-- protobuf size, as the memory store counts), kept by a trigger in the
-- transaction of every write that ends, interrupts, resumes or removes a
-- task; writes of running tasks do not fire it.
--
-- Several replicas, and several transactions of each, write at once, and
-- anonymous callers share one owner: a single row per owner would make
-- their writes queue on its lock until each commit. So the counts are
-- split by shard, the backend (pg_backend_pid()) that wrote them: no two
-- transactions running at once share a row, and an owner's counts are the
-- sum of its rows (one per connection that wrote for it, plus shard 0,
-- into which the sweep folds the rows of backends that have ended).
CREATE TABLE owner_counts (
	owner   text COLLATE "C" NOT NULL,
	shard   integer NOT NULL,
	ended   bigint  NOT NULL,
	waiting bigint  NOT NULL,
	bytes   bigint  NOT NULL,
	PRIMARY KEY (owner, shard)
);

INSERT INTO owner_counts (owner, shard, ended, waiting, bytes)
	SELECT owner, 0, count(*) FILTER (WHERE ended_at IS NOT NULL), count(*) FILTER (WHERE state IN (6, 8)),
		coalesce(sum(octet_length(snapshot)), 0)
	FROM tasks WHERE ended_at IS NOT NULL OR state IN (6, 8) GROUP BY owner;

-- An owner's terminal tasks in the order they ended, and its interrupted
-- tasks (INPUT_REQUIRED = 6, AUTH_REQUIRED = 8) by status time: a cap
-- removes from the front. One index entry for each task that ends or
-- waits; running tasks are in neither.
CREATE INDEX tasks_owner_ended   ON tasks (owner, ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX tasks_owner_waiting ON tasks (owner, status_time) WHERE state IN (6, 8);

CREATE FUNCTION a2agen_owner_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	who text;
	d_ended bigint := 0;
	d_waiting bigint := 0;
	d_bytes bigint := 0;
BEGIN
	IF TG_OP <> 'INSERT' AND (OLD.ended_at IS NOT NULL OR OLD.state IN (6, 8)) THEN
		who := OLD.owner;
		d_ended := d_ended - (OLD.ended_at IS NOT NULL)::int;
		d_waiting := d_waiting - (OLD.state IN (6, 8))::int;
		d_bytes := d_bytes - octet_length(OLD.snapshot);
	END IF;
	IF TG_OP <> 'DELETE' AND (NEW.ended_at IS NOT NULL OR NEW.state IN (6, 8)) THEN
		who := NEW.owner;
		d_ended := d_ended + (NEW.ended_at IS NOT NULL)::int;
		d_waiting := d_waiting + (NEW.state IN (6, 8))::int;
		d_bytes := d_bytes + octet_length(NEW.snapshot);
	END IF;
	IF d_ended <> 0 OR d_waiting <> 0 OR d_bytes <> 0 THEN
		INSERT INTO owner_counts AS c (owner, shard, ended, waiting, bytes)
			VALUES (who, pg_backend_pid(), d_ended, d_waiting, d_bytes)
			ON CONFLICT (owner, shard) DO UPDATE SET ended = c.ended + EXCLUDED.ended,
				waiting = c.waiting + EXCLUDED.waiting, bytes = c.bytes + EXCLUDED.bytes;
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER owner_counted AFTER INSERT ON tasks FOR EACH ROW
	WHEN (NEW.ended_at IS NOT NULL OR NEW.state IN (6, 8)) EXECUTE FUNCTION a2agen_owner_count();
CREATE TRIGGER owner_uncounted AFTER DELETE ON tasks FOR EACH ROW
	WHEN (OLD.ended_at IS NOT NULL OR OLD.state IN (6, 8)) EXECUTE FUNCTION a2agen_owner_count();
-- The owner never changes; a write may end, interrupt or resume the task,
-- or rewrite the snapshot of an interrupted one.
CREATE TRIGGER owner_recounted AFTER UPDATE OF state, ended_at, snapshot ON tasks FOR EACH ROW
	WHEN (OLD.ended_at IS NOT NULL OR OLD.state IN (6, 8) OR NEW.ended_at IS NOT NULL OR NEW.state IN (6, 8))
	EXECUTE FUNCTION a2agen_owner_count();
