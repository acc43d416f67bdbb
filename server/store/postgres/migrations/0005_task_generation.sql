-- The task's generation (A2A 1.1, §3.2.7; store.Record.Generation): 1 at
-- creation, one more per event a write carries (the non-NULL elements of
-- a write's events). The column is the store's count, and the snapshot
-- read from a row gets it; a task written before this migration starts
-- counting at 1. A constant default makes ADD COLUMN a catalog change
-- only (no table rewrite).
ALTER TABLE tasks ADD COLUMN generation bigint NOT NULL DEFAULT 1;
