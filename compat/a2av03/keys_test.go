package a2av03_test

import (
	"strings"
	"testing"
)

// TestV03UnstorableKeys: v0.3 requests reach the same edge of the default
// server as v1.0's: an id or contextId no store can hold is -32602 naming
// the field, on JSON-RPC, and a 400 on HTTP+JSON.
func TestV03UnstorableKeys(t *testing.T) {
	d := newDual(t)
	msg := userMessage03("hello")
	msg["contextId"] = "a\x00b"
	for _, c := range []struct {
		method string
		params any
		field  string
	}{
		{"tasks/get", map[string]any{"id": "a\x00b"}, "id"},
		{"tasks/cancel", map[string]any{"id": strings.Repeat("k", 300)}, "id"},
		{"message/send", map[string]any{"message": msg}, "message.contextId"},
		{"tasks/pushNotificationConfig/get", map[string]any{"id": "t", "pushNotificationConfigId": "a\x00b"}, "id"},
	} {
		r := call(t, d.jsonrpc, c.method, c.params)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, c.field) {
			t.Errorf("v0.3 %s: %+v; want -32602 naming %s", c.method, r.Error, c.field)
		}
	}
	if status, body := restCall(t, "GET", d.rest+"/v1/tasks/a%00b", nil); status != 400 {
		t.Errorf("v0.3 GET /v1/tasks/a%%00b = %d %s; want 400", status, body)
	}
}
