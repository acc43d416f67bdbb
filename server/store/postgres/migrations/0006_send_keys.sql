-- The claims of send keys (store.SendKeys; docs/storage.md, "Idempotent
-- sends"): one per tenant, owner and key, naming the task the send
-- created or added its message to and the fingerprint of the message, kept
-- until until (unix nanoseconds). A claim is one INSERT … ON CONFLICT, so
-- of two replicas claiming one key at once exactly one gets it. Claims
-- that ended are removed as new ones are made (by until).
CREATE TABLE send_keys (
	tenant      text NOT NULL,
	owner       text NOT NULL,
	key         text NOT NULL,
	task_id     text NOT NULL,
	fingerprint text NOT NULL,
	claimed     bigint NOT NULL,
	until       bigint NOT NULL,
	PRIMARY KEY (tenant, owner, key)
);
CREATE INDEX send_keys_until ON send_keys (until);
