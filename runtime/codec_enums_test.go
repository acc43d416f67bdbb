package runtime_test

import (
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestUnknownEnumNameIsTyped: an enum name no value has is refused with an
// *UnknownEnumNameError naming the field's path, the enum and the name, on
// the fast path and on the protojson path alike (the latter tells it from an
// unknown member without reading protojson's error text), while unknown
// members next to known enum names are still ignored.
func TestUnknownEnumNameIsTyped(t *testing.T) {
	refused := []struct {
		doc   string
		field string
		enum  string
		name  string
	}{
		{`{"message":{"messageId":"m","role":"user"}}`, "message.role", "lf.a2a.v1.Role", "user"},
		{`{"unknownMember":1,"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"a"}]},"configuration":{"pushNotificationConfig":{"url":"u"}},"x":{"role":"NOPE"}}`, "", "", ""},
		{`{"message":{"messageId":"m","role":"ROLE_USER","bogus":[1]},"metadata":{"k":"v"},"tenant":"t","extra":{"status":"NOPE"}}`, "", "", ""},
	}
	for _, tt := range refused {
		for _, path := range []struct {
			name   string
			decode func([]byte, *a2av1.SendMessageRequest) error
		}{
			{"UnmarshalJSON", func(b []byte, m *a2av1.SendMessageRequest) error { return runtime.UnmarshalJSON(b, m) }},
			{"protojson path", func(b []byte, m *a2av1.SendMessageRequest) error { return runtime.UnmarshalWithProtojson(b, m) }},
		} {
			var m a2av1.SendMessageRequest
			err := path.decode([]byte(tt.doc), &m)
			if tt.field == "" {
				if err != nil {
					t.Errorf("%s(%s): %v, want unknown members ignored", path.name, tt.doc, err)
				}
				continue
			}
			var e *runtime.UnknownEnumNameError
			if !errors.As(err, &e) {
				t.Errorf("%s(%s) = %v, want an *UnknownEnumNameError", path.name, tt.doc, err)
				continue
			}
			if e.Field != tt.field || string(e.Enum) != tt.enum || e.Name != tt.name {
				t.Errorf("%s(%s): %+v, want field %s, enum %s, name %q", path.name, tt.doc, e, tt.field, tt.enum, tt.name)
			}
		}
	}
}

// TestUnknownEnumNameInListsAndNesting: the path names list positions, and
// an unknown member does not hide an unknown enum name after it.
func TestUnknownEnumNameInListsAndNesting(t *testing.T) {
	doc := `{"tasks":[{"id":"a","status":{"state":"TASK_STATE_WORKING"}},{"id":"b","unknown":true,"status":{"state":"TASK_STATE_NOPE"}}],"totalSize":"2"}`
	var m a2av1.ListTasksResponse
	err := runtime.UnmarshalJSON([]byte(doc), &m)
	var e *runtime.UnknownEnumNameError
	if !errors.As(err, &e) || e.Field != "tasks[1].status.state" || e.Name != "TASK_STATE_NOPE" || e.Enum != "lf.a2a.v1.TaskState" {
		t.Fatalf("UnmarshalJSON = %v (%+v), want the unknown state named at tasks[1].status.state", err, e)
	}
	if len(m.GetTasks()) != 0 {
		t.Errorf("a refused decode left %v", &m)
	}
}
