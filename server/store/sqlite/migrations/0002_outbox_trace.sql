-- The W3C trace context (traceparent, tracestate) of the write that queued
-- a delivery, so that the webhook request continues that write's trace
-- whichever process sends it. Empty when tracing is off.
ALTER TABLE outbox ADD COLUMN traceparent TEXT NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN tracestate  TEXT NOT NULL DEFAULT '';
