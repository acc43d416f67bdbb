-- Retention of interrupted tasks (INPUT_REQUIRED = 6, AUTH_REQUIRED = 8):
-- they expire by their status time. Only interrupted tasks are in the
-- index, so writes of running tasks never touch it.
CREATE INDEX tasks_waiting ON tasks (status_time) WHERE state IN (6, 8);
