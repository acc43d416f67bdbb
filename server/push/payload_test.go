package push

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestPayloadEncoderByVersion: a notification of a config registered
// through a version with a payload encoder is posted as that encoder writes
// it, with its media type; one of any other version (here 1.0 and an
// unrecorded one) is posted as its StreamResponse, as ContentType.
func TestPayloadEncoderByVersion(t *testing.T) {
	r := newReceiver(t, nil)
	s := NewSender(AllowPrivateNetworks(), WithPayloadEncoder("0.3.0", func(ev *a2av1.StreamResponse) ([]byte, string, error) {
		return []byte(`{"kind":"task","id":"` + ev.GetTask().GetId() + `"}`), "application/json", nil
	}))
	defer s.Close(context.Background())
	task := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t1"}}}
	for _, tc := range []struct{ version, body, contentType string }{
		{"0.3", `{"kind":"task","id":"t1"}`, "application/json"},
		{"1.0", `{"task":{"id":"t1"}}`, ContentType},
		{"", `{"task":{"id":"t1"}}`, ContentType},
	} {
		n := Notification{ID: "d", Config: &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: r.URL + "/hook"}, Event: task, ProtocolVersion: tc.version}
		if err := s.Post(context.Background(), n); err != nil {
			t.Fatalf("Post (version %q): %v", tc.version, err)
		}
		got := r.wait(t)
		if !sameJSON(got.raw, tc.body) || got.header.Get("Content-Type") != tc.contentType {
			t.Errorf("version %q: posted %s as %q, want %s as %q", tc.version, got.raw, got.header.Get("Content-Type"), tc.body, tc.contentType)
		}
	}
}

// TestPayloadFollowsTheConfigsVersion: a config registered through A2A 1.0
// (or through a call that named no version) never receives a field that 1.0
// lacks — here the 1.1 draft's Task.generation, which the server sets on
// every task — while one registered through 1.1 receives it. A strict 1.0
// receiver would refuse the unknown field.
func TestPayloadFollowsTheConfigsVersion(t *testing.T) {
	r := newReceiver(t, nil)
	s := NewSender(AllowPrivateNetworks())
	defer s.Close(context.Background())
	task := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t1", Generation: 3}}}
	for _, tc := range []struct{ version, body string }{
		{"1.0", `{"task":{"id":"t1"}}`},
		{"", `{"task":{"id":"t1"}}`},
		{"1.1", `{"task":{"id":"t1","generation":"3"}}`},
	} {
		n := Notification{ID: "d", Config: &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: r.URL + "/hook"}, Event: task, ProtocolVersion: tc.version}
		if err := s.Post(context.Background(), n); err != nil {
			t.Fatalf("Post (version %q): %v", tc.version, err)
		}
		if got := r.wait(t); !sameJSON(got.raw, tc.body) {
			t.Errorf("version %q: posted %s, want %s", tc.version, got.raw, tc.body)
		}
	}
	if task.GetTask().GetGeneration() != 3 {
		t.Errorf("the queued event was modified: generation %d", task.GetTask().GetGeneration())
	}
}

// sameJSON reports whether two JSON documents hold the same values, spacing
// aside: protojson, which the a2a_protojson build posts through, varies its
// spacing on purpose.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
