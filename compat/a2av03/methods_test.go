package a2av03

import (
	"maps"
	"testing"
)

// TestMethodsFromTheDescriptor pins the v0.3 JSON-RPC methods that
// Methods derives from the generated descriptor (and RenamedRPCs) against
// the v0.3 specification's names, and checks that every method the
// Adapter serves has its name and its rpc.
func TestMethodsFromTheDescriptor(t *testing.T) {
	want := map[string]string{
		"message/send":                        "SendMessage",
		"message/stream":                      "SendStreamingMessage",
		"tasks/get":                           "GetTask",
		"tasks/cancel":                        "CancelTask",
		"tasks/resubscribe":                   "SubscribeToTask",
		"tasks/pushNotificationConfig/set":    "CreateTaskPushNotificationConfig",
		"tasks/pushNotificationConfig/get":    "GetTaskPushNotificationConfig",
		"tasks/pushNotificationConfig/list":   "ListTaskPushNotificationConfigs",
		"tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
		"agent/getAuthenticatedExtendedCard":  "GetExtendedAgentCard",
	}
	if !maps.Equal(Methods, want) {
		t.Errorf("Methods = %v,\nwant %v", Methods, want)
	}
	served := map[string]string{}
	for _, m := range Adapter().Methods {
		if m.Method == "" || m.Operation == "" {
			t.Errorf("adapted method %+v lacks its name or rpc", m)
		}
		served[m.Method] = m.Operation
	}
	if !maps.Equal(served, want) {
		t.Errorf("the Adapter serves %v,\nwant %v", served, want)
	}
}
