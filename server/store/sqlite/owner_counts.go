package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// The per-owner counts (owner_counts, owners.go) are kept only while a
// store that needs them has the file open. Their triggers and the two
// partial indexes by owner cost every write that ends or interrupts a task
// (about 35,000 instructions of a SendMessage), so a store without a
// per-owner cap drops them, and one with a cap creates them again, with a
// recount of owner_counts from the tasks, in one transaction at Open,
// before it serves anything.
//
// The schema says which of the two a database is in: with all five
// objects, owner_counts is exact; with none, it is empty. A flag of its own
// (a row saying "stale") could disagree with the schema; the objects
// themselves cannot.
//
// Only a store that holds the file's lock (lock_unix.go: no other agent
// process has it open) drops them. Without the lock — WithSharedAccess, or
// a system without flock — another process may have the file open with a
// cap and count on the triggers, so the store keeps them, caps or not. An
// agent that holds the lock already takes every other process's executions
// for ended (StaleRuns), so a shared process next to it is not a
// configuration that works today either.

// ownerCountObjects is how many schema objects keep owner_counts: the three
// triggers and the two indexes below.
const ownerCountObjects = 5

const (
	sqlOwnerCountObjects = `SELECT COUNT(*) FROM sqlite_master WHERE name IN
	('tasks_owner_ended', 'tasks_owner_waiting', 'owner_counted', 'owner_uncounted', 'owner_recounted')`

	sqlDropOwnerCounts = `DROP TRIGGER IF EXISTS owner_counted;
DROP TRIGGER IF EXISTS owner_uncounted;
DROP TRIGGER IF EXISTS owner_recounted;
DROP INDEX IF EXISTS tasks_owner_ended;
DROP INDEX IF EXISTS tasks_owner_waiting;
DELETE FROM owner_counts;`

	// As migration 9 made them: one row per owner holding terminal or
	// interrupted tasks (INPUT_REQUIRED = 6, AUTH_REQUIRED = 8), how many
	// of each and their snapshots' bytes; an owner's terminal tasks in the
	// order they ended and its interrupted ones by status time, which a
	// cap removes from the front; triggers that keep the counts in the
	// transaction of every write that ends, interrupts, resumes or removes
	// a task (the owner of a task never changes).
	sqlBuildOwnerCounts = `INSERT INTO owner_counts (owner, ended, waiting, bytes)
	SELECT owner, SUM(ended_at IS NOT NULL), SUM(state IN (6, 8)), SUM(length(snapshot))
	FROM tasks WHERE ended_at IS NOT NULL OR state IN (6, 8) GROUP BY owner;

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
END;`
)

// keepsOwnerCounts reports whether the store keeps the per-owner counts:
// with a per-owner cap, or without the file's lock.
func (s *Store) keepsOwnerCounts() bool { return s.opts.owners.On() || s.lock == nil }

// settleOwnerCounts creates the per-owner counts, counted from the tasks
// stored, or drops them, as keepsOwnerCounts says, in one transaction of
// the writer's connection (conn, not in a transaction); a database already
// as wanted is left as it is.
func (s *Store) settleOwnerCounts(ctx context.Context, conn *sql.Conn) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("per-owner counts: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			err = fmt.Errorf("per-owner counts: %w", err)
		}
	}()
	var n int
	if err := conn.QueryRowContext(ctx, sqlOwnerCountObjects).Scan(&n); err != nil {
		return err
	}
	keep := s.keepsOwnerCounts()
	if keep && n < ownerCountObjects || !keep && n > 0 {
		change := sqlDropOwnerCounts
		if keep {
			change += "\n" + sqlBuildOwnerCounts
		}
		if _, err := conn.ExecContext(ctx, change); err != nil {
			return err
		}
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}
