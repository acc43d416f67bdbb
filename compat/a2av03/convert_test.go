package a2av03_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

func meta(t *testing.T) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(map[string]any{"trace": "abc", "n": 3.0, "nested": map[string]any{"ok": true}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func dataValue(t *testing.T) *structpb.Value {
	t.Helper()
	v, err := structpb.NewValue(map[string]any{"city": "Oslo", "days": []any{1.0, 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// v1Message is a message using every field and every part kind that has an
// exact v0.3 counterpart.
func v1Message(t *testing.T) *a2av1.Message {
	return &a2av1.Message{
		MessageId: "m1", ContextId: "c1", TaskId: "t1", Role: a2av1.Role_ROLE_AGENT,
		Parts: []*a2av1.Part{
			{Content: &a2av1.Part_Text{Text: "hello"}, Metadata: meta(t)},
			{Content: &a2av1.Part_Text{Text: ""}},
			{Content: &a2av1.Part_Raw{Raw: []byte{0, 1, 2, 255}}, Filename: "a.bin", MediaType: "application/octet-stream"},
			{Content: &a2av1.Part_Url{Url: "https://example.com/a.png"}, Filename: "a.png", MediaType: "image/png"},
			{Content: &a2av1.Part_Data{Data: dataValue(t)}},
		},
		Metadata: meta(t), Extensions: []string{"urn:x"}, ReferenceTaskIds: []string{"t0"},
	}
}

func v1Task(t *testing.T) *a2av1.Task {
	return &a2av1.Task{
		Id: "t1", ContextId: "c1",
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Message: v1Message(t),
			Timestamp: timestamppb.New(time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC))},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a1", Name: "n", Description: "d",
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "x"}}}, Metadata: meta(t), Extensions: []string{"urn:y"}}},
		History:  []*a2av1.Message{v1Message(t), {MessageId: "m2", Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "q"}}}}},
		Metadata: meta(t),
	}
}

// throughJSON encodes a v0.3 value and decodes it into a fresh one, as the
// wire does.
func throughJSON[T any](t *testing.T, v T) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}

func same(t *testing.T, what string, want, got proto.Message) {
	t.Helper()
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("%s round trip (-want +got):\n%s", what, diff)
	}
}

// TestRoundTrips: every message type survives v1.0 → v0.3 JSON → v1.0.
func TestRoundTrips(t *testing.T) {
	msg := v1Message(t)
	m3, err := a2av03.MessageFromV1(msg)
	if err != nil {
		t.Fatal(err)
	}
	m3 = ptr(throughJSON(t, *m3))
	back, err := a2av03.MessageToV1(m3, "message")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Message", msg, back)

	task := v1Task(t)
	t3, err := a2av03.TaskFromV1(task)
	if err != nil {
		t.Fatal(err)
	}
	t3 = ptr(throughJSON(t, *t3))
	tback, err := a2av03.TaskToV1(t3, "result")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Task", task, tback)

	for _, ev := range []*a2av1.StreamResponse{
		{Payload: &a2av1.StreamResponse_Message{Message: msg}},
		{Payload: &a2av1.StreamResponse_Task{Task: task}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1", ContextId: "c1",
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}, Metadata: meta(t)}}},
		{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t1", ContextId: "c1",
			Artifact: task.Artifacts[0], Append: true, LastChunk: true, Metadata: meta(t)}}},
	} {
		v, err := a2av03.EventFromV1(ev)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a2av03.EventToV1(raw, "result")
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		same(t, "StreamResponse", ev, got)
	}

	for _, r := range []*a2av1.SendMessageResponse{
		{Payload: &a2av1.SendMessageResponse_Message{Message: msg}},
		{Payload: &a2av1.SendMessageResponse_Task{Task: task}},
	} {
		v, err := a2av03.SendResultFromV1(r)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(v)
		got, err := a2av03.SendResultToV1(raw, "result")
		if err != nil {
			t.Fatal(err)
		}
		same(t, "SendMessageResponse", r, got)
	}

	pc := &a2av1.TaskPushNotificationConfig{Id: "p1", TaskId: "t1", Url: "https://hooks.example/x", Token: "tok",
		Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "secret"}}
	p3 := throughJSON(t, *a2av03.PushConfigFromV1(pc))
	pback, err := a2av03.PushConfigToV1(p3.TaskID, &p3.PushNotificationConfig, "params.pushNotificationConfig")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "TaskPushNotificationConfig", pc, pback)

	req := &a2av1.SendMessageRequest{Message: msg, Metadata: meta(t), Configuration: &a2av1.SendMessageConfiguration{
		AcceptedOutputModes: []string{"text/plain"}, HistoryLength: proto.Int32(2), ReturnImmediately: true,
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{TaskId: "t1", Url: "https://hooks.example/y"}}}
	s3, err := a2av03.SendParamsFromV1(req)
	if err != nil {
		t.Fatal(err)
	}
	s3 = ptr(throughJSON(t, *s3))
	sback, err := a2av03.SendParamsToV1(s3)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "SendMessageRequest", req, sback)
}

// TestV03Shapes pins the v0.3 wire form: kinds, lower-case enums, nested
// files, final.
func TestV03Shapes(t *testing.T) {
	ev, err := a2av03.EventFromV1(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: "t1", ContextId: "c1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED}}}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ev)
	if want := `{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"input-required"},"final":true}`; string(raw) != want {
		t.Errorf("status update\n got %s\nwant %s", raw, want)
	}
	p, err := a2av03.PartFromV1(&a2av1.Part{Content: &a2av1.Part_Raw{Raw: []byte("hi")}, Filename: "h.txt", MediaType: "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(p)
	if want := `{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"h.txt"}}`; string(raw) != want {
		t.Errorf("file part\n got %s\nwant %s", raw, want)
	}
	m, _ := a2av03.MessageFromV1(&a2av1.Message{MessageId: "m", Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "x"}}}})
	raw, _ = json.Marshal(m)
	if want := `{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]}`; string(raw) != want {
		t.Errorf("message\n got %s\nwant %s", raw, want)
	}
}

// TestLossyConversions checks each documented loss does what Lossy says.
func TestLossyConversions(t *testing.T) {
	// Non-object data is wrapped.
	p, err := a2av03.PartFromV1(&a2av1.Part{Content: &a2av1.Part_Data{Data: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(1)}})}})
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Data) != `{"value":[1]}` {
		t.Errorf("list data written as %s, want {\"value\":[1]}", p.Data)
	}
	// Only the first scheme survives.
	pc, err := a2av03.PushConfigToV1("t", &a2av03.PushNotificationConfig{URL: "https://h.example",
		Authentication: &a2av03.PushNotificationAuthenticationInfo{Schemes: []string{"Bearer", "Basic"}}}, "p")
	if err != nil || pc.GetAuthentication().GetScheme() != "Bearer" {
		t.Errorf("schemes: %v, %v", pc, err)
	}
	// final is computed, and dropped on the way in.
	for state, final := range map[a2av1.TaskState]bool{
		a2av1.TaskState_TASK_STATE_WORKING: false, a2av1.TaskState_TASK_STATE_AUTH_REQUIRED: false,
		a2av1.TaskState_TASK_STATE_COMPLETED: true, a2av1.TaskState_TASK_STATE_INPUT_REQUIRED: true,
	} {
		if a2av03.Final(state) != final {
			t.Errorf("Final(%v) = %v", state, !final)
		}
	}
	// Absent blocking is blocking.
	req, err := a2av03.SendParamsToV1(&a2av03.MessageSendParams{Message: &a2av03.Message{Kind: "message", MessageID: "m", Role: "user",
		Parts: []a2av03.Part{{Kind: "text", Text: ptr("x")}}}, Configuration: &a2av03.MessageSendConfiguration{}})
	if err != nil || req.GetConfiguration().GetReturnImmediately() {
		t.Errorf("absent blocking: %v, %v", req, err)
	}
	if len(a2av03.Lossy) == 0 {
		t.Error("Lossy is empty")
	}
}

// TestRefusesOtherShapes: v1.0 bodies, unknown kinds and unknown enum
// spellings are InvalidParams naming the field.
func TestRefusesOtherShapes(t *testing.T) {
	tests := []struct {
		name, params, field string
	}{
		{"v1.0 part without kind", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"text":"hi"}]}}`, "message.parts[0].kind"},
		{"v1.0 role", `{"message":{"kind":"message","messageId":"m","role":"ROLE_USER","parts":[{"kind":"text","text":"hi"}]}}`, "message.role"},
		{"v1.0 message without kind", `{"message":{"messageId":"m","role":"user","parts":[]}}`, "message.kind"},
		{"unknown part kind", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"video"}]}}`, "message.parts[0].kind"},
		{"bad base64", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"file","file":{"bytes":"!!"}}]}}`, "message.parts[0].file.bytes"},
		{"file with bytes and uri", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"file","file":{"bytes":"aGk=","uri":"https://x"}}]}}`, "message.parts[0].file"},
		{"data not an object", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":[1]}]}}`, "message.parts[0].data"},
		{"no message", `{}`, "message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p a2av03.MessageSendParams
			if err := json.Unmarshal([]byte(tt.params), &p); err != nil {
				t.Fatal(err)
			}
			_, err := a2av03.SendParamsToV1(&p)
			wantField(t, err, tt.field)
		})
	}
	_, err := a2av03.EventToV1(json.RawMessage(`{"kind":"task","id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}`), "result")
	wantField(t, err, "result.status.state")
	_, err = a2av03.EventToV1(json.RawMessage(`{"kind":"task","id":"t","contextId":"c","status":{"state":"paused"}}`), "result")
	wantField(t, err, "result.status.state")
	_, err = a2av03.EventToV1(json.RawMessage(`{"id":"t","status":{"state":"TASK_STATE_WORKING"}}`), "result")
	wantField(t, err, "result.kind")
	_, err = a2av03.SendResultToV1(json.RawMessage(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}`), "result")
	wantField(t, err, "result.kind")
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	if !errors.Is(err, runtime.ErrInvalidParams) {
		t.Fatalf("error %v, want InvalidParams", err)
	}
	v := runtime.ErrorOrInternal(err).FieldViolations()
	if len(v) != 1 || v[0].Field != field {
		t.Fatalf("violations %+v, want one naming %s (error %v)", v, field, err)
	}
}

func TestErrorMapping(t *testing.T) {
	if got := a2av03.ErrorCodeToV03(runtime.CodeVersionNotSupported); got != runtime.CodeInvalidRequest {
		t.Errorf("VersionNotSupported → %v", got)
	}
	if got := a2av03.ErrorCodeToV03(runtime.CodeTaskNotFound); got != runtime.CodeTaskNotFound {
		t.Errorf("TaskNotFound → %v", got)
	}
	if a2av03.ErrorNames[runtime.CodeExtendedAgentCardNotConfigured] != "AuthenticatedExtendedCardNotConfiguredError" {
		t.Error("v0.3 name of -32007")
	}
}

func ptr[T any](v T) *T { return &v }
