-- The task's generation (A2A 1.1, §3.2.7; store.Record.Generation): 1 at
-- creation, one more per event a write carries. The column is the store's
-- count, and the snapshot read from a row gets it; a task written before
-- this migration starts counting at 1. The default makes ADD COLUMN a
-- change of the schema only (no rewrite of the rows).
ALTER TABLE tasks ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
