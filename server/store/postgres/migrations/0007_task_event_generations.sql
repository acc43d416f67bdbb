-- The generation each event of the feed brought its task to, so that the
-- feed is also the task's event log (store.TaskEvents, eventlog.go): a
-- stream cut off after generation N resumes with the events after N, on any
-- replica. NULL in the row of a terminal write without events and in rows
-- written before this migration (a resumption then starts from the task's
-- snapshot). The index serves the read by generation.
ALTER TABLE task_events ADD COLUMN generation bigint;
CREATE INDEX task_events_by_generation ON task_events (tenant, task_id, generation) WHERE generation IS NOT NULL;
