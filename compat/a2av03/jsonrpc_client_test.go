package a2av03_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// v03Agent is a scripted v0.3-only JSON-RPC agent: it checks the method
// and params shapes a v0.3 agent expects and answers in v0.3 shapes.
func v03Agent(t *testing.T) *httptest.Server {
	const task = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"Echo: hello"}]}]}`
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("request body: %v", err)
		}
		if v := r.Header.Get("A2A-Version"); v != "0.3" {
			t.Errorf("%s: A2A-Version %q, want 0.3", req.Method, v)
		}
		reply := func(result string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
		}
		switch req.Method {
		case "message/send":
			m := req.Params["message"].(map[string]any)
			part := m["parts"].([]any)[0].(map[string]any)
			if m["kind"] != "message" || m["role"] != "user" || part["kind"] != "text" {
				t.Errorf("message/send params not in v0.3 shape: %v", req.Params)
			}
			if c := req.Params["configuration"].(map[string]any); c["blocking"] != false {
				t.Errorf("returnImmediately not sent as blocking false: %v", c)
			}
			reply(task)
		case "tasks/get":
			if req.Params["id"] == "missing" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, req.ID)
				return
			}
			if req.Params["id"] != "t1" || req.Params["historyLength"] != 2.0 {
				t.Errorf("tasks/get params = %v", req.Params)
			}
			reply(task)
		case "tasks/pushNotificationConfig/set":
			if req.Params["taskId"] != "t1" || req.Params["pushNotificationConfig"].(map[string]any)["url"] != "https://h/hook" {
				t.Errorf("set params = %v", req.Params)
			}
			reply(`{"taskId":"t1","pushNotificationConfig":{"id":"p1","url":"https://h/hook","authentication":{"schemes":["Bearer"]}}}`)
		case "tasks/pushNotificationConfig/list":
			reply(`[{"taskId":"t1","pushNotificationConfig":{"id":"p1","url":"https://h/hook"}}]`)
		case "tasks/pushNotificationConfig/delete":
			if req.Params["id"] != "t1" || req.Params["pushNotificationConfigId"] != "p1" {
				t.Errorf("delete params = %v", req.Params)
			}
			reply(`null`)
		case "message/stream", "tasks/resubscribe":
			w.Header().Set("Content-Type", "text/event-stream")
			for _, e := range []string{task, `{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"completed"},"final":true}`} {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, e)
			}
		default:
			t.Errorf("unexpected method %q", req.Method)
		}
	}))
}

func TestJSONRPCClientTransportSpeaksV03(t *testing.T) {
	agent := v03Agent(t)
	defer agent.Close()
	c := a2av1.NewA2AServiceClient(a2av03.NewJSONRPCClientTransport(agent.URL))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	resp, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: a2av1.NewTextMessage("hello"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || resp.GetTask().GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" {
		t.Errorf("SendMessage = %v", resp)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1", HistoryLength: proto.Int32(2)}); err != nil {
		t.Error(err)
	}
	var e *runtime.Error
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "missing"}); !errors.As(err, &e) || e.Code() != runtime.CodeTaskNotFound {
		t.Errorf("v0.3 TaskNotFound = %v, want the typed TaskNotFound", err)
	}
	n := 0
	for ev, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("stream"))) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 2 && ev.GetStatusUpdate().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Errorf("second event = %v", ev)
		}
	}
	if n != 2 {
		t.Errorf("%d stream events, want 2", n)
	}
	for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "t1"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	pc, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: "t1", Url: "https://h/hook"})
	if err != nil || pc.GetId() != "p1" || pc.GetTaskId() != "t1" || pc.GetAuthentication().GetScheme() != "Bearer" {
		t.Errorf("CreateTaskPushNotificationConfig = %v, %v", pc, err)
	}
	list, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: "t1"})
	if err != nil || len(list.GetConfigs()) != 1 || list.GetConfigs()[0].GetId() != "p1" {
		t.Errorf("ListTaskPushNotificationConfigs = %v, %v", list, err)
	}
	if _, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: "t1", Id: "p1"}); err != nil {
		t.Error(err)
	}
	if _, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{}); !errors.As(err, &e) || e.Code() != runtime.CodeUnsupportedOperation {
		t.Errorf("ListTasks over v0.3 = %v, want UnsupportedOperation", err)
	}
}
