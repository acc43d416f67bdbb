-- The event log (store.TaskEvents, server/store/eventlog.go): every event a
-- task write carried, under the generation the task reached with it, so
-- that a stream cut off after generation N resumes with the events after N,
-- from this file, after a restart too. Written in the transaction of the
-- task write; removed with the task (the trigger: every delete of a task,
-- whichever sweep makes it, takes its events along).
CREATE TABLE task_events (
	tenant     TEXT    NOT NULL,
	task_id    TEXT    NOT NULL,
	generation INTEGER NOT NULL,
	version    INTEGER NOT NULL,
	event      BLOB    NOT NULL,
	PRIMARY KEY (tenant, task_id, generation)
) WITHOUT ROWID;

CREATE TRIGGER task_events_gone AFTER DELETE ON tasks BEGIN
	DELETE FROM task_events WHERE tenant = OLD.tenant AND task_id = OLD.id;
END;
