package interop

import (
	"testing"
)

// ourV03PushHeaders: what a2agen posts to a webhook registered through A2A
// v0.3 — the Task in its v0.3 shape as application/json, as the official Go
// SDK's v0.3 line posts it (docs/bindings.md, "Push notifications by
// registration version") — with the token under both names.
var ourV03PushHeaders = pushHeaders{"application/json", []string{"X-A2A-Notification-Token", "A2A-Notification-Token"}}

// checkV03PushForm checks that every delivery of taskID (a task whose
// webhooks were registered through v0.3) is a v0.3 Task: the form a v0.3
// receiver built on the official Go SDK decodes.
func checkV03PushForm(t *testing.T, hook *webhook, taskID string) {
	t.Helper()
	for i, p := range hook.forTask(taskID) {
		if p.form != "0.3" || p.event.GetTask() == nil {
			t.Errorf("delivery %d of task %s is %s in the %s form, want a v0.3 Task: %s", i, taskID, describeEvent(p.event), p.form, p.body)
		}
	}
}
