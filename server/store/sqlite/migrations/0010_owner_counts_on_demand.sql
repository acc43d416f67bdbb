-- The per-owner counts of migration 9 (owner_counts, its three triggers
-- and the partial indexes tasks_owner_ended and tasks_owner_waiting) cost
-- every write that ends or interrupts a task, about 6 % of a SendMessage,
-- also when no per-owner cap is set. From this version on the store
-- creates them at Open, with a recount, only while they are needed
-- (owner_counts.go), and drops them otherwise; owner_counts is then empty.
-- This migration starts every database without them, and records the
-- version that a binary keeping them at all times refuses.
DROP TRIGGER owner_counted;
DROP TRIGGER owner_uncounted;
DROP TRIGGER owner_recounted;
DROP INDEX tasks_owner_ended;
DROP INDEX tasks_owner_waiting;
DELETE FROM owner_counts;
