package a2av03_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// dual is one echo agent served on JSON-RPC and HTTP+JSON in both A2A v1.0
// and v0.3, over loopback.
type dual struct {
	jsonrpc, rest string
	srv           *server.Server
}

func newDual(t *testing.T, opts ...runtime.HandlerOption) *dual {
	t.Helper()
	card := echo.Card(
		&a2av1.AgentInterface{Url: "http://127.0.0.1/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: "http://127.0.0.1/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "0.3"},
	)
	srv, err := server.New(card, &echo.Agent{}, server.WithExtendedCard(echo.ExtendedCard(card)),
		server.WithPushOptions(push.AllowDestinations("127.0.0.1")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	opts = append([]runtime.HandlerOption{runtime.WithVersionAdapter(a2av03.Adapter()),
		runtime.WithAuthenticator(echo.BearerAuthenticator(""), `Bearer realm="echo"`)}, opts...)
	mux := http.NewServeMux()
	mux.Handle("/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv, opts...))
	mux.Handle("/rest/", a2av1.NewA2AServiceRESTHandler(srv, append(opts, runtime.WithPathPrefix("/rest"))...))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return &dual{jsonrpc: hs.URL + "/jsonrpc", rest: hs.URL + "/rest", srv: srv}
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// call posts one JSON-RPC request; header pairs are added to it.
func call(t *testing.T, url, method string, params any, header ...string) rpcResponse {
	t.Helper()
	resp := post(t, url, method, params, header...)
	defer resp.Body.Close()
	var out rpcResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: decoding the answer: %v", method, err)
	}
	return out
}

func post(t *testing.T, url, method string, params any, header ...string) *http.Response {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// stream posts a streaming JSON-RPC request and returns the responses of
// its events.
func stream(t *testing.T, url, method string, params any, header ...string) []rpcResponse {
	t.Helper()
	next := openStream(t, url, method, params, header...)
	var out []rpcResponse
	for {
		r, ok := next()
		if !ok {
			return out
		}
		out = append(out, r)
	}
}

// openStream starts a streaming call; next returns its events one by one.
func openStream(t *testing.T, url, method string, params any, header ...string) (next func() (rpcResponse, bool)) {
	t.Helper()
	resp := post(t, url, method, params, append([]string{"Accept", "text/event-stream"}, header...)...)
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		var out rpcResponse
		_ = json.NewDecoder(resp.Body).Decode(&out)
		done := false
		return func() (rpcResponse, bool) {
			if done {
				return rpcResponse{}, false
			}
			done = true
			return out, true
		}
	}
	sc := bufio.NewScanner(resp.Body)
	return func() (rpcResponse, bool) {
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var r rpcResponse
			if err := json.Unmarshal([]byte(data), &r); err != nil {
				t.Errorf("event %q: %v", data, err)
				return r, false
			}
			return r, true
		}
		return rpcResponse{}, false
	}
}

// userMessage03 is a new v0.3 user message: each has its own messageId,
// since the default server takes a message sent again under its id for a
// retry of the first (idempotent sends).
func userMessage03(text string) map[string]any {
	return map[string]any{"kind": "message", "messageId": fmt.Sprintf("m-%s-%d", text, messageSeq.Add(1)), "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": text}}}
}

var messageSeq atomic.Int64

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

func mustResult(t *testing.T, r rpcResponse) json.RawMessage {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error %d %s", r.Error.Code, r.Error.Message)
	}
	return r.Result
}

// TestV03JSONRPCRoundTrip runs every v0.3 JSON-RPC method against the dual
// server and reads what v0.3 created over v1.0 and back.
func TestV03JSONRPCRoundTrip(t *testing.T) {
	d := newDual(t)

	// message/send: a task in the v0.3 shape.
	task := decode[a2av03.Task](t, mustResult(t, call(t, d.jsonrpc, "message/send", map[string]any{"message": userMessage03("hello")})))
	if task.Kind != "task" || task.Status.State != "completed" || len(task.Artifacts) != 1 ||
		task.Artifacts[0].Parts[0].Kind != "text" || *task.Artifacts[0].Parts[0].Text != "Echo: hello" {
		t.Fatalf("message/send result %+v", task)
	}
	// The same task over v1.0, from the same store.
	v1c := a2av1.NewA2AServiceJSONRPCClient(d.jsonrpc)
	defer v1c.Close()
	got, err := v1c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: task.ID})
	if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("v1.0 GetTask of a v0.3 task: %v %v", got, err)
	}
	// A task created over v1.0 read over v0.3.
	sent, err := v1c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: a2av1.NewTextMessage("input")})
	if err != nil {
		t.Fatal(err)
	}
	back := decode[a2av03.Task](t, mustResult(t, call(t, d.jsonrpc, "tasks/get", map[string]any{"id": sent.GetTask().GetId(), "historyLength": 1})))
	if back.Status.State != "input-required" || back.ID != sent.GetTask().GetId() || len(back.History) > 1 {
		t.Fatalf("tasks/get of a v1.0 task: %+v", back)
	}

	// message/stream: kinds, lower-case states, final on the last update.
	evs := stream(t, d.jsonrpc, "message/stream", map[string]any{"message": userMessage03("stream 2")})
	var kinds []string
	for _, e := range evs {
		head := decode[struct {
			Kind   string `json:"kind"`
			Final  bool   `json:"final"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}](t, mustResult(t, e))
		k := head.Kind
		if head.Kind == "status-update" {
			k += ":" + head.Status.State
			if head.Final {
				k += ":final"
			}
		}
		kinds = append(kinds, k)
	}
	want := "task status-update:working artifact-update artifact-update status-update:completed:final"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("message/stream events %q, want %q", kinds, want)
	}

	// tasks/cancel and tasks/resubscribe on a slow task.
	slow := decode[a2av03.Task](t, mustResult(t, call(t, d.jsonrpc, "message/send", map[string]any{
		"message": userMessage03("slow 60000"), "configuration": map[string]any{"blocking": false}})))
	if slow.Status.State == "completed" {
		t.Fatalf("non-blocking slow task already %s", slow.Status.State)
	}
	waitWorking(t, d, slow.ID)
	next := openStream(t, d.jsonrpc, "tasks/resubscribe", map[string]any{"id": slow.ID})
	first, _ := next()
	if k := decode[a2av03.Task](t, mustResult(t, first)); k.Kind != "task" || k.ID != slow.ID {
		t.Fatalf("tasks/resubscribe first event %+v", k)
	}
	canceled := decode[a2av03.Task](t, mustResult(t, call(t, d.jsonrpc, "tasks/cancel", map[string]any{"id": slow.ID})))
	if canceled.Status.State != "canceled" {
		t.Fatalf("tasks/cancel: %+v", canceled)
	}
	var lastEvent rpcResponse
	for r, ok := next(); ok; r, ok = next() {
		lastEvent = r
	}
	last := decode[a2av03.TaskStatusUpdateEvent](t, mustResult(t, lastEvent))
	if last.Kind != "status-update" || last.Status.State != "canceled" || !last.Final {
		t.Fatalf("tasks/resubscribe last event %+v", last)
	}

	// Push configs: set, get (with and without its id), list, delete.
	pc := map[string]any{"taskId": task.ID, "pushNotificationConfig": map[string]any{
		"url": "http://127.0.0.1:9/hook", "token": "tok", "authentication": map[string]any{"schemes": []string{"Bearer"}, "credentials": "c"}}}
	set := decode[a2av03.TaskPushNotificationConfig](t, mustResult(t, call(t, d.jsonrpc, "tasks/pushNotificationConfig/set", pc)))
	if set.TaskID != task.ID || set.PushNotificationConfig.ID != task.ID || set.PushNotificationConfig.Authentication.Schemes[0] != "Bearer" {
		t.Fatalf("set: %+v", set)
	}
	named := map[string]any{"taskId": task.ID, "pushNotificationConfig": map[string]any{"id": "second", "url": "http://127.0.0.1:9/other"}}
	mustResult(t, call(t, d.jsonrpc, "tasks/pushNotificationConfig/set", named))
	for _, params := range []map[string]any{{"id": task.ID}, {"id": task.ID, "pushNotificationConfigId": task.ID}} {
		g := decode[a2av03.TaskPushNotificationConfig](t, mustResult(t, call(t, d.jsonrpc, "tasks/pushNotificationConfig/get", params)))
		if g.PushNotificationConfig.URL != "http://127.0.0.1:9/hook" {
			t.Fatalf("get %v: %+v", params, g)
		}
	}
	list := decode[[]a2av03.TaskPushNotificationConfig](t, mustResult(t, call(t, d.jsonrpc, "tasks/pushNotificationConfig/list", map[string]any{"id": task.ID})))
	if len(list) != 2 {
		t.Fatalf("list: %+v", list)
	}
	del := call(t, d.jsonrpc, "tasks/pushNotificationConfig/delete", map[string]any{"id": task.ID, "pushNotificationConfigId": "second"})
	if string(mustResult(t, del)) != "null" {
		t.Fatalf("delete result %s, want null", del.Result)
	}
	v1list, err := v1c.ListTaskPushNotificationConfigs(context.Background(), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.ID})
	if err != nil || len(v1list.GetConfigs()) != 1 {
		t.Fatalf("v1.0 list after the v0.3 delete: %v %v", v1list, err)
	}

	// The extended card, in the union of both shapes.
	card := decode[map[string]any](t, mustResult(t, call(t, d.jsonrpc, "agent/getAuthenticatedExtendedCard", nil, "Authorization", "Bearer x")))
	if card["protocolVersion"] != "0.3.0" || card["url"] != "http://127.0.0.1/jsonrpc" || card["preferredTransport"] != "JSONRPC" || card["supportedInterfaces"] == nil {
		t.Fatalf("extended card %v", card)
	}
}

// waitWorking waits until the task is WORKING.
func waitWorking(t *testing.T, d *dual, id string) {
	t.Helper()
	for range 2000 {
		tk := decode[a2av03.Task](t, mustResult(t, call(t, d.jsonrpc, "tasks/get", map[string]any{"id": id})))
		if tk.Status.State == "working" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s never became working", id)
}
