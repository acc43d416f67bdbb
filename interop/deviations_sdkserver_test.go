package interop

// Deviations of the SDK server (v2.4.0; v2.3.1 where named) from the A2A
// specification and proto (docs/bindings.md: what a2agen accepts) that
// a2agen's clients tolerate. Each test first shows, with a raw
// request, that the SDK still answers that way (so the test keeps meaning
// something), then that a2agen's generated client copes.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// sdkServer is a running SDK peer with its card.
type sdkServer struct {
	peer     *peer
	cardJSON []byte
}

func newSDKServer(t *testing.T) *sdkServer {
	t.Helper()
	return newSDKServerOf(t, sdkpeerBin)
}

// newSDKServerOf is newSDKServer with the sdkpeer build bin.
func newSDKServerOf(t *testing.T, bin string) *sdkServer {
	t.Helper()
	p := startSDKPeerOf(t, bin)
	return &sdkServer{peer: p, cardJSON: fetchCardJSON(t, p.endpoints["card"])}
}

func (s *sdkServer) client(t *testing.T, binding string) a2av1.A2AServiceClient {
	return ourClient(t, binding, interfaceURL(t, s.cardJSON, binding))
}

// rawResponse is an HTTP answer read to the end.
type rawResponse struct {
	status      int
	contentType string
	body        []byte
}

// rawDo sends one HTTP request and reads the whole answer.
func rawDo(t *testing.T, method, url, contentType, accept string, body []byte) rawResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return rawResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b}
}

// rawJSONRPC posts one JSON-RPC request to url.
func rawJSONRPC(t *testing.T, url, method, params, accept string) rawResponse {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"raw-1","method":"` + method + `","params":` + params + `}`
	return rawDo(t, http.MethodPost, url, "application/json", accept, []byte(body))
}

// completedTask runs "hello" to completion on the SDK server.
func completedTask(t *testing.T, c a2av1.A2AServiceClient) *a2av1.Task {
	t.Helper()
	task := sendTask(t, c, stepContext(t), &a2av1.SendMessageRequest{Message: userMessage("hello")})
	wantState(t, task, a2av1.TaskState_TASK_STATE_COMPLETED)
	return task
}

// withPushConfig returns a completed task with one push config registered.
func withPushConfig(t *testing.T, c a2av1.A2AServiceClient) (*a2av1.Task, string) {
	t.Helper()
	task := completedTask(t, c)
	cfg, err := c.CreateTaskPushNotificationConfig(stepContext(t), &a2av1.TaskPushNotificationConfig{
		TaskId: task.GetId(), Id: "dev-cfg", Url: "http://127.0.0.1:9/never",
	})
	if err != nil {
		t.Fatalf("CreateTaskPushNotificationConfig: %v", err)
	}
	return task, cfg.GetId()
}

// TestDeviation_JSONRPCDeleteResultOmitted: the SDK answers
// DeleteTaskPushNotificationConfig without a "result" member;
// a2agen's JSON-RPC client takes the missing result as Empty.
func TestDeviation_JSONRPCDeleteResultOmitted(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	c := sdk.client(t, "JSONRPC")
	task, cfgID := withPushConfig(t, c)

	raw := rawJSONRPC(t, interfaceURL(t, sdk.cardJSON, "JSONRPC"), "DeleteTaskPushNotificationConfig",
		`{"taskId":"`+task.GetId()+`","id":"`+cfgID+`"}`, "")
	var env map[string]json.RawMessage
	if err := json.Unmarshal(raw.body, &env); err != nil {
		t.Fatalf("raw Delete answer %q: %v", raw.body, err)
	}
	if _, has := env["result"]; has || env["error"] != nil {
		t.Errorf("raw Delete answer %s: the SDK now sends a result (or an error); this deviation is gone", raw.body)
	}

	task, cfgID = withPushConfig(t, c)
	if _, err := c.DeleteTaskPushNotificationConfig(stepContext(t), &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfgID}); err != nil {
		t.Errorf("a2agen JSON-RPC client: Delete: %v", err)
	}
}

// TestDeviation_RESTDeleteEmptyBody: the SDK answers a REST Delete with
// 200 and no body, not {} (the proto's Empty); a2agen's REST client
// accepts it.
func TestDeviation_RESTDeleteEmptyBody(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	c := sdk.client(t, "JSONRPC")
	task, cfgID := withPushConfig(t, c)
	base := interfaceURL(t, sdk.cardJSON, "HTTP+JSON")

	raw := rawDo(t, http.MethodDelete, base+"/tasks/"+task.GetId()+"/pushNotificationConfigs/"+cfgID, "", "application/json", nil)
	if raw.status != http.StatusOK || len(bytes.TrimSpace(raw.body)) != 0 {
		t.Errorf("raw Delete: %d %q; want 200 and an empty body (deviation gone?)", raw.status, raw.body)
	}

	task, cfgID = withPushConfig(t, c)
	rc := sdk.client(t, "HTTP+JSON")
	if _, err := rc.DeleteTaskPushNotificationConfig(stepContext(t), &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfgID}); err != nil {
		t.Errorf("a2agen REST client: Delete: %v", err)
	}
}

// TestDeviation_RESTErrorBodyApplicationJSON: the SDK sends REST errors as
// application/json google.rpc.Status bodies (spec: a2a+json
// SHOULD); a2agen's REST client decodes them by ErrorInfo reason.
func TestDeviation_RESTErrorBodyApplicationJSON(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	base := interfaceURL(t, sdk.cardJSON, "HTTP+JSON")
	raw := rawDo(t, http.MethodGet, base+"/tasks/no-such-task", "", "application/a2a+json", nil)
	if raw.status != http.StatusNotFound || !strings.HasPrefix(raw.contentType, "application/json") || !bytes.Contains(raw.body, []byte(`"TASK_NOT_FOUND"`)) {
		t.Errorf("raw GetTask of an unknown task: %d %s %s; want 404 application/json with reason TASK_NOT_FOUND", raw.status, raw.contentType, raw.body)
	}
	_, err := sdk.client(t, "HTTP+JSON").GetTask(stepContext(t), &a2av1.GetTaskRequest{Id: "no-such-task"})
	if !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("a2agen REST client: GetTask of an unknown task: %v, want TaskNotFound", err)
	}
}

// TestDeviation_PreStreamErrorAsSSEEventOn200: the SDK answers a stream
// that fails before its first event with HTTP 200, text/event-stream and
// one error event, on JSON-RPC and HTTP+JSON (as
// data: {"error":{…}}); a2agen's clients surface the A2A error.
func TestDeviation_PreStreamErrorAsSSEEventOn200(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	t.Run("JSONRPC", func(t *testing.T) {
		raw := rawJSONRPC(t, interfaceURL(t, sdk.cardJSON, "JSONRPC"), "SubscribeToTask", `{"id":"no-such-task"}`, "text/event-stream")
		if raw.status != http.StatusOK || !strings.HasPrefix(raw.contentType, "text/event-stream") || !bytes.Contains(raw.body, []byte(`"code":-32001`)) {
			t.Errorf("raw SubscribeToTask: %d %s %q; want 200 SSE with a -32001 error event", raw.status, raw.contentType, raw.body)
		}
		_, err := collect(sdk.client(t, "JSONRPC").SubscribeToTask(stepContext(t), &a2av1.SubscribeToTaskRequest{Id: "no-such-task"}))
		if !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("a2agen JSON-RPC client: %v, want TaskNotFound", err)
		}
	})
	t.Run("HTTP+JSON", func(t *testing.T) {
		base := interfaceURL(t, sdk.cardJSON, "HTTP+JSON")
		raw := rawDo(t, http.MethodPost, base+"/tasks/no-such-task:subscribe", "application/json", "text/event-stream", nil)
		if raw.status != http.StatusOK || !strings.HasPrefix(raw.contentType, "text/event-stream") || !bytes.Contains(raw.body, []byte(`data: {"error":`)) {
			t.Errorf("raw :subscribe: %d %s %q; want 200 SSE with a data: {\"error\":…} event", raw.status, raw.contentType, raw.body)
		}
		_, err := collect(sdk.client(t, "HTTP+JSON").SubscribeToTask(stepContext(t), &a2av1.SubscribeToTaskRequest{Id: "no-such-task"}))
		if !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("a2agen REST client: %v, want TaskNotFound", err)
		}
	})
}

// TestDeviation_SSEEventIDLines: every SDK event carries an "id: <uuid>"
// line before its data line; a2agen's SSE readers skip it.
func TestDeviation_SSEEventIDLines(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	raw := rawJSONRPC(t, interfaceURL(t, sdk.cardJSON, "JSONRPC"), "SendStreamingMessage",
		`{"message":{"messageId":"raw-m","role":"ROLE_USER","parts":[{"text":"stream 2"}]}}`, "text/event-stream")
	if !bytes.Contains(raw.body, []byte("\nid: ")) && !bytes.HasPrefix(raw.body, []byte("id: ")) {
		t.Errorf("raw stream has no id: lines (deviation gone?): %q", raw.body)
	}
	for _, b := range []string{"JSONRPC", "HTTP+JSON"} {
		t.Run(b, func(t *testing.T) {
			events, err := collect(sdk.client(t, b).SendStreamingMessage(stepContext(t), &a2av1.SendMessageRequest{Message: userMessage("stream 2")}))
			if err != nil {
				t.Fatal(err)
			}
			wantSequence(t, events, "task:SUBMITTED", "status:WORKING", "artifact:chunk 1/2;", "artifact+:chunk 2/2;[last]", "status:COMPLETED")
		})
	}
}

// forEachBinding runs f against the SDK server once per binding.
func forEachBinding(t *testing.T, f func(t *testing.T, c a2av1.A2AServiceClient)) {
	t.Parallel()
	sdk := newSDKServer(t)
	for _, b := range bindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			f(t, sdk.client(t, b))
		})
	}
}

// TestDeviation_MessageToTerminalTaskInvalidParams: the SDK refuses a
// message to a terminal task with InvalidParams, not UnsupportedOperation;
// a2agen's clients report it as InvalidParams.
func TestDeviation_MessageToTerminalTaskInvalidParams(t *testing.T) {
	forEachBinding(t, func(t *testing.T, c a2av1.A2AServiceClient) {
		done := completedTask(t, c)
		_, err := c.SendMessage(stepContext(t), &a2av1.SendMessageRequest{Message: followUp(done, "again")})
		if !errors.Is(err, runtime.ErrInvalidParams) {
			t.Errorf("message to a COMPLETED task: %v, want InvalidParams", err)
		}
	})
}

// TestDeviation_SubscribeToTerminalTaskNotFound: the SDK (single process)
// answers SubscribeToTask on a terminal task with TaskNotFound, not
// UnsupportedOperation. Right after the task completes, while the
// SDK has not yet torn down its execution, a subscription may instead get
// the final task and a clean end (seen once in CI on gRPC, under load); the
// test then asks again, a bounded number of times, until the SDK's settled
// answer shows.
func TestDeviation_SubscribeToTerminalTaskNotFound(t *testing.T) {
	forEachBinding(t, func(t *testing.T, c a2av1.A2AServiceClient) {
		done := completedTask(t, c)
		for attempt := 1; ; attempt++ {
			events, err := collect(c.SubscribeToTask(stepContext(t), &a2av1.SubscribeToTaskRequest{Id: done.GetId()}))
			if errors.Is(err, runtime.ErrTaskNotFound) {
				return
			}
			tearingDown := err == nil && len(events) == 1 &&
				events[0].GetTask().GetStatus().GetState() == a2av1.TaskState_TASK_STATE_COMPLETED
			if !tearingDown || attempt == 50 {
				t.Fatalf("subscribe to a COMPLETED task (attempt %d): %v after %q, want TaskNotFound", attempt, err, describeEvents(events))
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestDeviation_MissingPushConfigInternalError: the SDK answers a Get of a
// push config that does not exist with an internal error (-32603 / 500 /
// INTERNAL), not TaskNotFound.
func TestDeviation_MissingPushConfigInternalError(t *testing.T) {
	forEachBinding(t, func(t *testing.T, c a2av1.A2AServiceClient) {
		done := completedTask(t, c)
		_, err := c.GetTaskPushNotificationConfig(stepContext(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: done.GetId(), Id: "missing"})
		if !errors.Is(err, runtime.ErrInternal) {
			t.Errorf("Get of a missing push config: %v, want Internal", err)
		}
	})
}

// TestDeviation_PageSizeOutOfRangeInvalidRequest: the SDK refuses a
// ListTasks pageSize above 100 with InvalidRequest (-32600 / 400), where
// the spec's validation error is InvalidParams.
func TestDeviation_PageSizeOutOfRangeInvalidRequest(t *testing.T) {
	forEachBinding(t, func(t *testing.T, c a2av1.A2AServiceClient) {
		_, err := c.ListTasks(stepContext(t), &a2av1.ListTasksRequest{PageSize: ptr[int32](500)})
		if !errors.Is(err, runtime.ErrInvalidRequest) && !errors.Is(err, runtime.ErrInvalidParams) {
			t.Errorf("ListTasks pageSize 500: %v, want InvalidRequest (or InvalidParams)", err)
		}
	})
}

// TestDeviation_SecurityRequirementSchemesListShape: the SDK encodes a
// SecurityRequirement as {"schemes":{"bearer":["echo"]}}, where ProtoJSON
// has {"schemes":{"bearer":{"list":["echo"]}}}. a2agen must read
// the SDK's card and extended card anyway.
func TestDeviation_SecurityRequirementSchemesListShape(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	if !bytes.Contains(sdk.cardJSON, []byte(`"schemes":{"bearer":["echo"]}`)) {
		t.Errorf("the SDK card no longer uses the list shape (deviation gone?): %s", sdk.cardJSON)
	}
	wantBearerEcho := func(t *testing.T, card *a2av1.AgentCard) {
		t.Helper()
		reqs := card.GetSecurityRequirements()
		if len(reqs) != 1 || !slices.Equal(reqs[0].GetSchemes()["bearer"].GetList(), []string{"echo"}) {
			t.Errorf("securityRequirements %v, want bearer: [echo]", reqs)
		}
	}
	t.Run("public-card", func(t *testing.T) {
		var card a2av1.AgentCard
		if err := runtime.UnmarshalJSON(sdk.cardJSON, &card); err != nil {
			t.Fatalf("runtime.UnmarshalJSON of the SDK card: %v", err)
		}
		wantBearerEcho(t, &card)
	})
	for _, b := range bindings {
		t.Run("GetExtendedAgentCard/"+b, func(t *testing.T) {
			card, err := sdk.client(t, b).GetExtendedAgentCard(stepContext(t), &a2av1.GetExtendedAgentCardRequest{})
			if err != nil {
				t.Fatal(err)
			}
			wantBearerEcho(t, card)
		})
	}
}

// TestDeviation_PushDeliveryApplicationJSONAndTokenHeader: the SDK posts
// webhook events as application/json with the token in
// A2A-Notification-Token; its bodies decode with a2agen's codec
// (done by the webhook) and carry the terminal state.
func TestDeviation_PushDeliveryApplicationJSONAndTokenHeader(t *testing.T) {
	t.Parallel()
	sdk := newSDKServer(t)
	hook := newWebhook(t)
	c := sdk.client(t, "JSONRPC")
	token := "tok-" + newID()
	task := sendTask(t, c, stepContext(t), &a2av1.SendMessageRequest{
		Message: userMessage("hello push"),
		Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{
			Url: hook.url(), Token: token,
		}},
	})
	posts := hook.waitTerminal(t, task.GetId())
	for i, p := range posts {
		if ct := p.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("delivery %d: Content-Type %q, want application/json (deviation gone?)", i, ct)
		}
		if got := p.header.Get("A2A-Notification-Token"); got != token {
			t.Errorf("delivery %d: A2A-Notification-Token %q, want %q", i, got, token)
		}
	}
}

// TestDeviation_RESTListTasksIgnoresQueryTimestampAndHistoryLength: the
// SDK v2.3.1 REST server drops the statusTimestampAfter and historyLength
// query parameters of ListTasks (it parses them into pointer fields its
// type switch does not handle; v2.4.0 reads both).
// Nothing for a client to tolerate but unfiltered answers: a2agen's REST
// client sends both correctly and reads the answer.
func TestDeviation_RESTListTasksIgnoresQueryTimestampAndHistoryLength(t *testing.T) {
	t.Parallel()
	sdk := newSDKServerOf(t, sdkpeerV231Bin)
	c := sdk.client(t, "HTTP+JSON")
	m := userMessage("hello")
	m.ContextId = "interop-" + newID()
	sendTask(t, c, stepContext(t), &a2av1.SendMessageRequest{Message: m})

	base := interfaceURL(t, sdk.cardJSON, "HTTP+JSON")
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	raw := rawDo(t, http.MethodGet, base+"/tasks?contextId="+m.ContextId+"&statusTimestampAfter="+future+"&historyLength=0", "", "application/json", nil)
	var list struct {
		Tasks []struct {
			History []json.RawMessage `json:"history"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(raw.body, &list); err != nil || raw.status != http.StatusOK {
		t.Fatalf("raw ListTasks: %d %s: %v", raw.status, raw.body, err)
	}
	if len(list.Tasks) != 1 || len(list.Tasks[0].History) == 0 {
		t.Errorf("raw ListTasks with statusTimestampAfter in an hour and historyLength 0: %s; want the task, with its history (deviation gone?)", raw.body)
	}

	res, err := c.ListTasks(stepContext(t), &a2av1.ListTasksRequest{ContextId: m.ContextId, StatusTimestampAfter: timestamppb.New(time.Now().Add(time.Hour))})
	if err != nil || len(res.GetTasks()) != 1 {
		t.Errorf("a2agen REST client: ListTasks: %v, %v; want the (unfiltered) task", res, err)
	}
}
