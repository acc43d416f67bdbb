-- The W3C trace context (traceparent, tracestate) of the write that queued
-- a delivery, so that the webhook request continues that write's trace
-- whichever replica sends it. Empty when tracing is off. A constant default
-- makes ADD COLUMN a catalog change only (no table rewrite).
ALTER TABLE outbox ADD COLUMN traceparent text NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN tracestate  text NOT NULL DEFAULT '';
