package a2av03_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	a2av03pb "github.com/a2agen/a2agen/a2a/v03"
)

// strictPJ decodes an answer as the ProtoJSON of the v0.3 proto message m,
// refusing unknown members (as protobuf's own parsers do by default, the
// Python SDK's among them): an answer that passes has only the proto's
// members.
func strictPJ[M proto.Message](t *testing.T, raw []byte, m M) M {
	t.Helper()
	if err := protojson.Unmarshal(raw, m); err != nil {
		t.Fatalf("not the ProtoJSON of %s: %v\n%s", m.ProtoReflect().Descriptor().FullName(), err, raw)
	}
	return m
}

// TestV03RESTProtoJSON runs every v0.3 HTTP+JSON route under /v1 in the
// ProtoJSON of the v0.3 proto, with the bodies the JS SDK 1.3's v0.3 REST
// client and the Go SDK ≥ v2.4 (a2acompat/a2av0) send, and reads each
// answer strictly as that proto's ProtoJSON.
func TestV03RESTProtoJSON(t *testing.T) {
	d := newDual(t)
	base := d.rest + "/v1"

	// message:send as the JS SDK sends it (SendMessageRequest.toJSON).
	send := map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "content": []any{map[string]any{"text": "hello"}}},
		"configuration": map[string]any{"acceptedOutputModes": []string{"text/plain"}, "blocking": true}}
	resp := strictPJ(t, restOK(t, "POST", base+"/message:send", send), &a2av03pb.SendMessageResponse{})
	task := resp.GetTask()
	if task.GetStatus().GetState() != a2av03pb.TaskState_TASK_STATE_COMPLETED || len(task.GetArtifacts()) != 1 ||
		task.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" || task.GetHistory()[0].GetRole() != a2av03pb.Role_ROLE_USER {
		t.Fatalf("message:send %v", resp)
	}
	// The proto field names (snake_case, "request"), enum numbers and a
	// quoted int32 are ProtoJSON too.
	snake := map[string]any{"request": map[string]any{"message_id": "m2", "role": 1, "content": []any{
		map[string]any{"data": map[string]any{"data": map[string]any{"k": "v"}}},
		map[string]any{"file": map[string]any{"file_with_bytes": "aGk", "mime_type": "text/plain"}}}},
		"configuration": map[string]any{"history_length": "1"}}
	sn := strictPJ(t, restOK(t, "POST", base+"/message:send", snake), &a2av03pb.SendMessageResponse{})
	if h := sn.GetTask().GetHistory(); len(h) != 1 || h[0].GetMessageId() != "m2" || h[0].GetContent()[0].GetData().GetData().GetFields()["k"].GetStringValue() != "v" ||
		string(h[0].GetContent()[1].GetFile().GetFileWithBytes()) != "hi" {
		t.Fatalf("snake_case message:send %v", sn)
	}
	// A part with no content is refused naming it.
	status, body := restCall(t, "POST", base+"/message:send", map[string]any{"message": map[string]any{"messageId": "m3", "role": "ROLE_USER", "content": []any{map[string]any{}}}})
	if status != http.StatusBadRequest || !strings.Contains(string(body), "message.content[0]") {
		t.Fatalf("empty part: %d %s", status, body)
	}

	// GET tasks/{id} (bodiless: ProtoJSON under /v1).
	got := strictPJ(t, restOK(t, "GET", base+"/tasks/"+task.GetId()+"?historyLength=1", nil), &a2av03pb.Task{})
	if got.GetId() != task.GetId() || len(got.GetHistory()) != 1 {
		t.Fatalf("GET task %v", got)
	}

	// message:stream: every event a StreamResponse, the last one final.
	evs := restEvents(t, "POST", base+"/message:stream", map[string]any{"message": map[string]any{"messageId": "m4", "role": "ROLE_USER",
		"content": []any{map[string]any{"text": "stream 2"}}}})
	var cases []string
	for _, e := range evs {
		sr := strictPJ(t, []byte(e), &a2av03pb.StreamResponse{})
		switch p := sr.GetPayload().(type) {
		case *a2av03pb.StreamResponse_Task:
			cases = append(cases, "task")
		case *a2av03pb.StreamResponse_StatusUpdate:
			c := "status:" + p.StatusUpdate.GetStatus().GetState().String()
			if p.StatusUpdate.GetFinal() {
				c += ":final"
			}
			cases = append(cases, c)
		case *a2av03pb.StreamResponse_ArtifactUpdate:
			cases = append(cases, "artifact")
		default:
			cases = append(cases, "?")
		}
	}
	if want := "task status:TASK_STATE_WORKING artifact artifact status:TASK_STATE_COMPLETED:final"; strings.Join(cases, " ") != want {
		t.Fatalf("message:stream %q, want %q", cases, want)
	}

	// Push configs: the JS SDK posts a TaskPushNotificationConfig, the Go
	// SDK ≥ 2.4 a CreateTaskPushNotificationConfigRequest.
	pcs := base + "/tasks/" + task.GetId() + "/pushNotificationConfigs"
	js := strictPJ(t, restOK(t, "POST", pcs, map[string]any{"name": "tasks/" + task.GetId() + "/pushNotificationConfigs/js",
		"pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:9/js", "authentication": map[string]any{"schemes": []string{"Bearer"}}}}),
		&a2av03pb.TaskPushNotificationConfig{})
	if js.GetName() != "tasks/"+task.GetId()+"/pushNotificationConfigs/js" || js.GetPushNotificationConfig().GetUrl() != "http://127.0.0.1:9/js" {
		t.Fatalf("create (JS SDK body) %v", js)
	}
	gosdk := strictPJ(t, restOK(t, "POST", pcs, map[string]any{"parent": "tasks/" + task.GetId(), "configId": "go",
		"config": map[string]any{"pushNotificationConfig": map[string]any{"id": "go", "url": "http://127.0.0.1:9/go"}}}),
		&a2av03pb.TaskPushNotificationConfig{})
	if gosdk.GetName() != "tasks/"+task.GetId()+"/pushNotificationConfigs/go" {
		t.Fatalf("create (Go SDK body) %v", gosdk)
	}
	one := strictPJ(t, restOK(t, "GET", pcs+"/go", nil), &a2av03pb.TaskPushNotificationConfig{})
	if one.GetPushNotificationConfig().GetUrl() != "http://127.0.0.1:9/go" {
		t.Fatalf("get %v", one)
	}
	list := strictPJ(t, restOK(t, "GET", pcs, nil), &a2av03pb.ListTaskPushNotificationConfigResponse{})
	if len(list.GetConfigs()) != 2 {
		t.Fatalf("list %v", list)
	}
	restOK(t, "DELETE", pcs+"/go", nil)

	// Cancel a running task with no body (as both SDKs send it), and
	// subscribe by GET.
	slow := strictPJ(t, restOK(t, "POST", base+"/message:send", map[string]any{"message": map[string]any{"messageId": "m5", "role": "ROLE_USER",
		"content": []any{map[string]any{"text": "slow 60000"}}}, "configuration": map[string]any{"blocking": false}}), &a2av03pb.SendMessageResponse{})
	canceled := strictPJ(t, restOK(t, "POST", base+"/tasks/"+slow.GetTask().GetId()+":cancel", nil), &a2av03pb.Task{})
	if canceled.GetStatus().GetState() != a2av03pb.TaskState_TASK_STATE_CANCELLED {
		t.Fatalf("cancel %v", canceled)
	}
	subs := restEvents(t, "GET", base+"/tasks/"+slow.GetTask().GetId()+":subscribe", nil)
	for _, e := range subs {
		strictPJ(t, []byte(e), &a2av03pb.StreamResponse{})
	}
}

// TestV03RESTFormFollowsRequest pins how the two forms are told apart: a
// body answers in its own form wherever it is sent; a request whose body
// tells neither answers in ProtoJSON under /v1 and in the JSON-RPC form at
// the plain path.
func TestV03RESTFormFollowsRequest(t *testing.T) {
	d := newDual(t)
	kindBody := map[string]any{"message": userMessage03("hello")}
	pjBody := map[string]any{"message": map[string]any{"messageId": "p", "role": "ROLE_USER", "content": []any{map[string]any{"text": "hello"}}}}
	for _, c := range []struct {
		name, url string
		body      any
		header    []string
		kind      bool
	}{
		{"kind body under /v1", d.rest + "/v1/message:send", kindBody, nil, true},
		{"kind body at the plain path", d.rest + "/message:send", kindBody, []string{"A2A-Version", "0.3"}, true},
		{"ProtoJSON body under /v1", d.rest + "/v1/message:send", pjBody, nil, false},
		{"ProtoJSON body at the plain path", d.rest + "/message:send", pjBody, []string{"A2A-Version", "0.3"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var top map[string]json.RawMessage
			if err := json.Unmarshal(restOK(t, "POST", c.url, c.body, c.header...), &top); err != nil {
				t.Fatal(err)
			}
			if gotKind := top["kind"] != nil; gotKind != c.kind || (!c.kind && top["task"] == nil) {
				t.Fatalf("answer members %v, want the kind form %v", keys(top), c.kind)
			}
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestV03RESTProtoJSONOmittedBlocking pins how a v0.3 HTTP+JSON send says
// blocking: ProtoJSON leaves a false bool out, so a ProtoJSON configuration
// without "blocking" returns at once (what the JS SDK's v0.3 REST client
// sends for blocking false), while a send without a configuration, or a
// JSON-RPC-form configuration without the member, waits for the task.
func TestV03RESTProtoJSONOmittedBlocking(t *testing.T) {
	d := newDual(t)
	base := d.rest + "/v1"
	pjMessage := func(id, text string) map[string]any {
		return map[string]any{"messageId": id, "role": "ROLE_USER", "content": []any{map[string]any{"text": text}}}
	}

	quick := strictPJ(t, restOK(t, "POST", base+"/message:send", map[string]any{"message": pjMessage("b1", "slow 60000"),
		"configuration": map[string]any{"acceptedOutputModes": []string{"text/plain"}}}), &a2av03pb.SendMessageResponse{})
	if st := quick.GetTask().GetStatus().GetState(); st != a2av03pb.TaskState_TASK_STATE_SUBMITTED && st != a2av03pb.TaskState_TASK_STATE_WORKING {
		t.Fatalf("ProtoJSON configuration without blocking: state %v, want the running task at once", st)
	}
	restOK(t, "POST", base+"/tasks/"+quick.GetTask().GetId()+":cancel", nil)

	waited := strictPJ(t, restOK(t, "POST", base+"/message:send", map[string]any{"message": pjMessage("b2", "hello")}), &a2av03pb.SendMessageResponse{})
	if st := waited.GetTask().GetStatus().GetState(); st != a2av03pb.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("ProtoJSON send without configuration: state %v, want COMPLETED (blocking)", st)
	}

	var kind struct {
		Status struct{ State string } `json:"status"`
	}
	raw := restOK(t, "POST", base+"/message:send", map[string]any{"message": userMessage03("hello"),
		"configuration": map[string]any{"acceptedOutputModes": []string{"text/plain"}}})
	if err := json.Unmarshal(raw, &kind); err != nil || kind.Status.State != "completed" {
		t.Fatalf("kind-form configuration without blocking: %s (%v), want completed (blocking)", raw, err)
	}
}
