-- The A2A protocol version (Major.Minor) of the request that registered a
-- push config (A2A PR #2153's TaskPushNotificationConfig.protocol_version),
-- and on each pending delivery the version its config had when the
-- delivery was queued, which is the form it is posted in: for a version
-- before 1.0 the row's event holds the task as written (an a2a Task), else
-- a StreamResponse (store.TaskPayload). Empty: recorded before this
-- migration, delivered in the v1.0 form as before.
ALTER TABLE push_configs ADD COLUMN protocol_version TEXT NOT NULL DEFAULT '';
ALTER TABLE outbox       ADD COLUMN protocol_version TEXT NOT NULL DEFAULT '';
