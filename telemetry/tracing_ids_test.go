package telemetry_test

import (
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2agen/a2agen/telemetry"
)

// TestSpanIDsOfMessagesWithoutTasks: on every binding, the server span of
// a message refused before its task exists, or answered directly, has no
// a2a.task.id (and no a2a.context.id the caller did not send and the answer
// does not carry), like the request log line; one that names a task, or
// whose answer or first stream event carries one, has it.
func TestSpanIDsOfMessagesWithoutTasks(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			k := newKit(t)
			wants := messagesWithoutTasks(t, b, telemetry.Tracing(k.options()...))
			var spans []struct{ name, outcome, task, context string }
			for _, s := range k.spans.GetSpans() {
				if s.SpanKind != trace.SpanKindServer {
					continue
				}
				outcome := "OK"
				if e := attr(s.Attributes, "error.type"); e != "" {
					outcome = map[string]string{"INVALID_PARAMS": "InvalidParams", "UNAUTHENTICATED": "Unauthenticated", "TASK_NOT_FOUND": "TaskNotFound"}[e]
					if outcome == "" {
						outcome = e
					}
				}
				spans = append(spans, struct{ name, outcome, task, context string }{s.Name, outcome,
					attr(s.Attributes, telemetry.AttrTaskID), attr(s.Attributes, telemetry.AttrContextID)})
			}
			if len(spans) != len(wants) {
				t.Fatalf("%d server spans, want %d (one per call): %v", len(spans), len(wants), spanNames(k.spans.GetSpans()))
			}
			for i, w := range wants {
				s := spans[i]
				w.check(t, i, s.name[len(s.name)-len(w.method):], s.outcome, s.task, s.context)
			}
		})
	}
}
