package a2av03_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// restCall sends one HTTP+JSON request and returns the status and body.
func restCall(t *testing.T, method, url string, body any, header ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func restOK(t *testing.T, method, url string, body any, header ...string) []byte {
	t.Helper()
	status, out := restCall(t, method, url, body, header...)
	if status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, url, status, out)
	}
	return out
}

// restEvents reads the data lines of an SSE answer.
func restEvents(t *testing.T, method, url string, body any, header ...string) []string {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestV03RESTRoundTrip runs the v0.3 HTTP+JSON routes against the dual
// server, under /v1 and at the plain paths with A2A-Version: 0.3 (how the
// official Go SDK's v0.3 client calls them).
func TestV03RESTRoundTrip(t *testing.T) {
	d := newDual(t)
	for _, form := range []struct {
		name, prefix string
		header       []string
	}{{"v1 prefix", "/v1", nil}, {"plain with A2A-Version 0.3", "", []string{"A2A-Version", "0.3"}}} {
		t.Run(form.name, func(t *testing.T) {
			base := d.rest + form.prefix
			h := form.header
			task := decode[a2av03.Task](t, restOK(t, "POST", base+"/message:send", map[string]any{"message": userMessage03("hello")}, h...))
			if task.Kind != "task" || task.Status.State != "completed" {
				t.Fatalf("message:send %+v", task)
			}
			// snake_case bodies are read too.
			snake := map[string]any{"message": map[string]any{"kind": "message", "message_id": "snake", "role": "user",
				"parts": []any{map[string]any{"kind": "text", "text": "hi", "metadata": map[string]any{"keep_me": 1}}}}}
			st := decode[a2av03.Task](t, restOK(t, "POST", base+"/message:send", snake, h...))
			if st.History[0].MessageID != "snake" || !strings.Contains(string(st.History[0].Parts[0].Metadata), "keep_me") {
				t.Fatalf("snake_case message:send %+v", st.History)
			}
			got := decode[a2av03.Task](t, restOK(t, "GET", base+"/tasks/"+task.ID+"?historyLength=1", nil, h...))
			if got.ID != task.ID || len(got.History) != 1 {
				t.Fatalf("GET tasks/{id}: %+v", got)
			}
			evs := restEvents(t, "POST", base+"/message:stream", map[string]any{"message": userMessage03("stream 2")}, h...)
			if len(evs) != 5 || !strings.Contains(evs[0], `"kind":"task"`) || !strings.Contains(evs[4], `"final":true`) {
				t.Fatalf("message:stream events %q", evs)
			}
			// Push configs: create (a bare v0.3 config, as the Go SDK sends), get, list, delete.
			pc := decode[a2av03.TaskPushNotificationConfig](t, restOK(t, "POST", base+"/tasks/"+task.ID+"/pushNotificationConfigs",
				map[string]any{"id": "c1", "url": "http://127.0.0.1:9/hook"}, h...))
			if pc.TaskID != task.ID || pc.PushNotificationConfig.ID != "c1" {
				t.Fatalf("create push config %+v", pc)
			}
			restOK(t, "GET", base+"/tasks/"+task.ID+"/pushNotificationConfigs/c1", nil, h...)
			// A bodiless request is answered by its path: ProtoJSON under /v1,
			// the JSON-RPC form at the plain path.
			listBody := restOK(t, "GET", base+"/tasks/"+task.ID+"/pushNotificationConfigs", nil, h...)
			if form.prefix == "/v1" {
				list := decode[struct{ Configs []map[string]any }](t, listBody)
				if len(list.Configs) != 1 || list.Configs[0]["name"] != "tasks/"+task.ID+"/pushNotificationConfigs/c1" {
					t.Fatalf("list %s", listBody)
				}
			} else if list := decode[[]a2av03.TaskPushNotificationConfig](t, listBody); len(list) != 1 || list[0].TaskID != task.ID {
				t.Fatalf("list %s", listBody)
			}
			restOK(t, "DELETE", base+"/tasks/"+task.ID+"/pushNotificationConfigs/c1", nil, h...)
			if status, body := restCall(t, "GET", base+"/tasks/"+task.ID+"/pushNotificationConfigs/c1", nil, h...); status != http.StatusNotFound {
				t.Fatalf("get after delete: %d %s", status, body)
			}
			// Cancel a running task; subscribe to a finished one is an error.
			slow := decode[a2av03.Task](t, restOK(t, "POST", base+"/message:send", map[string]any{"message": userMessage03("slow 60000"),
				"configuration": map[string]any{"blocking": false}}, h...))
			// An empty body tells no form: the answer's is the path's.
			canceled := decode[a2av03.Task](t, restOK(t, "POST", base+"/tasks/"+slow.ID+":cancel", map[string]any{}, h...))
			if want := map[string]string{"/v1": "TASK_STATE_CANCELLED", "": "canceled"}[form.prefix]; canceled.Status.State != want {
				t.Fatalf("cancel %+v, want state %s", canceled, want)
			}
			status, body := restCall(t, "GET", base+"/tasks/nope", nil, h...)
			if status != http.StatusNotFound || !strings.Contains(string(body), "TASK_NOT_FOUND") {
				t.Fatalf("unknown task: %d %s", status, body)
			}
			card := decode[map[string]any](t, restOK(t, "GET", base+"/card", nil, append([]string{"Authorization", "Bearer x"}, h...)...))
			if card["protocolVersion"] != "0.3.0" {
				t.Fatalf("card %v", card)
			}
		})
	}
}

// TestV03RESTTenantV1: /v1/... is v0.3 unless A2A-Version names 1.0, which
// makes it the v1.0 route of tenant "v1"; plain paths stay v1.0 unless
// A2A-Version names 0.3.
func TestV03RESTTenantV1(t *testing.T) {
	d := newDual(t)
	v1body := map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello"}}}}
	// v1.0 client of tenant v1.
	out := restOK(t, "POST", d.rest+"/v1/message:send", v1body, "A2A-Version", "1.0")
	var resp a2av1.SendMessageResponse
	if err := protojsonUnmarshal(out, &resp); err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("tenant v1 SendMessage: %s %v", out, err)
	}
	// The same body without the header is read as v0.3, and refused naming the field.
	status, body := restCall(t, "POST", d.rest+"/v1/message:send", v1body)
	if status != http.StatusBadRequest || !strings.Contains(string(body), "message.kind") {
		t.Fatalf("v1.0 body on the v0.3 route: %d %s", status, body)
	}
	// Plain path, v1.0.
	restOK(t, "POST", d.rest+"/message:send", v1body)
	// Plain path with a contradicting header.
	status, body = restCall(t, "POST", d.rest+"/message:send", v1body, "A2A-Version", "0.2")
	if status != http.StatusBadRequest || !strings.Contains(string(body), "VERSION_NOT_SUPPORTED") {
		t.Fatalf("A2A-Version 0.2: %d %s", status, body)
	}
	// /v1 route with an unserved version.
	status, body = restCall(t, "POST", d.rest+"/v1/message:send", map[string]any{"message": userMessage03("x")}, "A2A-Version", "0.2")
	if status != http.StatusBadRequest || !strings.Contains(string(body), "1.0,0.3") {
		t.Fatalf("v0.3 route with A2A-Version 0.2: %d %s", status, body)
	}
}

func protojsonUnmarshal(b []byte, m *a2av1.SendMessageResponse) error {
	return runtime.UnmarshalJSON(b, m)
}

// TestV03RESTListTasks: GET /v1/tasks reads a v0.3 state filter (either
// spelling) and refuses an unknown one naming status.
func TestV03RESTListTasks(t *testing.T) {
	d := newDual(t)
	task := decode[a2av03.Task](t, restOK(t, "POST", d.rest+"/v1/message:send", map[string]any{"message": userMessage03("input")}))
	// Under /v1 the tasks are in ProtoJSON; the proto's state names filter too.
	for _, status := range []string{"input-required", "TASK_STATE_INPUT_REQUIRED"} {
		raw := restOK(t, "GET", d.rest+"/v1/tasks?status="+status+"&contextId="+task.ContextID, nil)
		list := decode[struct {
			Tasks     []map[string]any
			TotalSize int
		}](t, raw)
		if len(list.Tasks) != 1 || list.Tasks[0]["id"] != task.ID || list.Tasks[0]["kind"] != nil || list.TotalSize != 1 ||
			list.Tasks[0]["status"].(map[string]any)["state"] != "TASK_STATE_INPUT_REQUIRED" {
			t.Fatalf("list by %s: %s", status, raw)
		}
	}
	// At the plain path with A2A-Version: 0.3, the JSON-RPC form.
	list := decode[a2av03.ListTasksResult](t, restOK(t, "GET", d.rest+"/tasks?status=input-required&contextId="+task.ContextID, nil, "A2A-Version", "0.3"))
	if len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID || list.Tasks[0].Kind != "task" || list.TotalSize != 1 {
		t.Fatalf("list %+v", list)
	}
	status, body := restCall(t, "GET", d.rest+"/v1/tasks?status=INPUT_REQUIRED", nil)
	if status != http.StatusBadRequest || !strings.Contains(string(body), `"status`) || !strings.Contains(string(body), "not an A2A v0.3 task state") {
		t.Fatalf("unknown state: %d %s", status, body)
	}
	// A v0.3 state under the v1.0 route is refused by the v1.0 decoder.
	status, body = restCall(t, "GET", d.rest+"/tasks?status=working", nil)
	if status != http.StatusBadRequest {
		t.Fatalf("v0.3 state on the v1.0 route: %d %s", status, body)
	}
}
