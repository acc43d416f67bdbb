-- The claims of send keys (store.SendKeys; docs/storage.md, "Idempotent
-- sends"): one per tenant, owner and key, naming the task the send
-- created or added its message to and the fingerprint of the message, kept
-- until until (unix nanoseconds). Claims that ended are removed as new
-- ones are made (by until).
CREATE TABLE send_keys (
	tenant      TEXT NOT NULL,
	owner       TEXT NOT NULL,
	key         TEXT NOT NULL,
	task_id     TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	claimed     INTEGER NOT NULL,
	until       INTEGER NOT NULL,
	PRIMARY KEY (tenant, owner, key)
) WITHOUT ROWID;
CREATE INDEX send_keys_until ON send_keys (until);
