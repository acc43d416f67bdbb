-- Retention of interrupted tasks (INPUT_REQUIRED = 6, AUTH_REQUIRED = 8):
-- they expire by their status time. Only interrupted tasks are in the
-- partial index, so writes of running tasks never touch it. Listings
-- leave expired interrupted tasks out, so the listing index by time now
-- includes the state too (its counts stay index-only scans).
CREATE INDEX tasks_waiting ON tasks (status_time) WHERE state IN (6, 8);
DROP INDEX tasks_by_time;
CREATE INDEX tasks_by_time ON tasks (tenant, owner, status_time, id) INCLUDE (ended_at, state);
