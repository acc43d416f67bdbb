package a2av1_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

// serveJSONRPC starts the generated JSON-RPC handler on a loopback socket.
func serveJSONRPC(t *testing.T, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
	t.Helper()
	srv := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(h, opts...))
	t.Cleanup(srv.Close)
	return srv.URL
}

func userMessage(text, taskID string) *a2av1.Message {
	return &a2av1.Message{MessageId: "m-" + text, TaskId: taskID, Role: a2av1.Role_ROLE_USER,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}
}

// TestJSONRPCAllOperations drives all eleven operations through the generated
// client against the in-memory agent over loopback.
func TestJSONRPCAllOperations(t *testing.T) {
	agent := testagent.New()
	agent.ExtendedCard = &a2av1.AgentCard{Name: "ext", Description: "extended", Version: "1"}
	c := a2av1.NewA2AServiceJSONRPCClient(serveJSONRPC(t, agent))
	ctx := context.Background()

	sent, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("hello", "")})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	task := sent.GetTask()
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || task.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" {
		t.Fatalf("SendMessage task = %v", task)
	}

	direct, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("message", "")})
	if err != nil || direct.GetMessage().GetParts()[0].GetText() != "Echo: message" {
		t.Fatalf("SendMessage(direct) = %v, %v", direct, err)
	}

	var kinds []string
	for ev, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("streamed", "")}) {
		if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
		switch {
		case ev.GetTask() != nil:
			kinds = append(kinds, "task")
		case ev.GetStatusUpdate() != nil:
			kinds = append(kinds, ev.GetStatusUpdate().GetStatus().GetState().String())
		case ev.GetArtifactUpdate() != nil:
			kinds = append(kinds, "artifact")
		}
	}
	if got, want := strings.Join(kinds, ","), "task,TASK_STATE_WORKING,artifact,TASK_STATE_COMPLETED"; got != want {
		t.Fatalf("stream events = %s, want %s", got, want)
	}

	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId(), HistoryLength: proto.Int32(0)})
	if err != nil || got.GetId() != task.GetId() || len(got.GetHistory()) != 0 {
		t.Fatalf("GetTask = %v, %v", got, err)
	}

	list, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil || list.GetTotalSize() != 2 || list.GetPageSize() != 50 || list.GetTasks()[0].GetArtifacts() != nil {
		t.Fatalf("ListTasks = %v, %v", list, err)
	}

	waiting, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("input", "")})
	if err != nil {
		t.Fatalf("SendMessage(input): %v", err)
	}
	open := waiting.GetTask()
	var snapshots int
	for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: open.GetId()}) {
		if err != nil {
			t.Fatalf("SubscribeToTask: %v", err)
		}
		if ev.GetTask().GetId() != open.GetId() {
			t.Fatalf("SubscribeToTask first event = %v, want the task snapshot", ev)
		}
		snapshots++
	}
	if snapshots != 1 {
		t.Fatalf("SubscribeToTask sent %d events, want 1", snapshots)
	}

	canceled, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: open.GetId()})
	if err != nil || canceled.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatalf("CancelTask = %v, %v", canceled, err)
	}

	cfg, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Url: "https://hooks.example/a2a"})
	if err != nil || cfg.GetId() == "" {
		t.Fatalf("CreateTaskPushNotificationConfig = %v, %v", cfg, err)
	}
	one, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()})
	if err != nil || one.GetUrl() != "https://hooks.example/a2a" {
		t.Fatalf("GetTaskPushNotificationConfig = %v, %v", one, err)
	}
	all, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
	if err != nil || len(all.GetConfigs()) != 1 {
		t.Fatalf("ListTaskPushNotificationConfigs = %v, %v", all, err)
	}
	card, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil || card.GetName() != "ext" {
		t.Fatalf("GetExtendedAgentCard = %v, %v", card, err)
	}
	empty, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()})
	if err != nil || empty == nil {
		t.Fatalf("DeleteTaskPushNotificationConfig = %v, %v", empty, err)
	}
	if _, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("GetTaskPushNotificationConfig after delete: %v, want TaskNotFound", err)
	}
	if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("again", task.GetId())}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Fatalf("SendMessage to a terminal task: %v, want UnsupportedOperation", err)
	}
	if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: task.GetId()}); !errors.Is(err, runtime.ErrTaskNotCancelable) {
		t.Fatalf("CancelTask(completed): %v, want TaskNotCancelable", err)
	}
}

// errorHandler answers GetTask with the error whose code name is the task id.
type errorHandler struct {
	a2av1.UnimplementedA2AServiceHandler
	errs map[string]*runtime.Error
}

func (h errorHandler) GetTask(_ context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	return nil, h.errs[req.GetId()]
}

func (h errorHandler) SubscribeToTask(_ context.Context, req *a2av1.SubscribeToTaskRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	if err := s.Send(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: req.GetId(),
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}}); err != nil {
		return err
	}
	return h.errs[req.GetId()]
}

func allErrors() map[string]*runtime.Error {
	return map[string]*runtime.Error{
		"TaskNotFound":                   runtime.TaskNotFound("t-1"),
		"TaskNotCancelable":              runtime.TaskNotCancelable("t-1"),
		"PushNotificationNotSupported":   runtime.PushNotificationNotSupported(),
		"UnsupportedOperation":           runtime.UnsupportedOperation("not here"),
		"ContentTypeNotSupported":        runtime.ContentTypeNotSupported("image/gif"),
		"InvalidAgentResponse":           runtime.InvalidAgentResponse("agent broke the protocol"),
		"ExtendedAgentCardNotConfigured": runtime.ExtendedAgentCardNotConfigured(),
		"ExtensionSupportRequired":       runtime.ExtensionSupportRequired("https://ext.example/v1"),
		"VersionNotSupported":            runtime.VersionNotSupported("2.0", "1.0"),
		"ParseError":                     runtime.NewError(runtime.CodeParseError, "bad json"),
		"InvalidRequest":                 runtime.NewError(runtime.CodeInvalidRequest, "bad request"),
		"MethodNotFound":                 runtime.NewError(runtime.CodeMethodNotFound, "no such method"),
		"InvalidParams":                  runtime.InvalidParams("bad field", runtime.FieldViolation{Field: "id", Description: "too long"}),
		"Internal":                       runtime.NewError(runtime.CodeInternal, ""),
		"Unauthenticated":                runtime.Unauthenticated("token expired"),
		"Unauthorized":                   runtime.Unauthorized("missing scope tasks:read"),
	}
}

// TestJSONRPCErrorsRoundTrip checks that every A2A error a handler returns
// reaches the generated client as the same typed error, unary and mid-stream.
func TestJSONRPCErrorsRoundTrip(t *testing.T) {
	errs := allErrors()
	c := a2av1.NewA2AServiceJSONRPCClient(serveJSONRPC(t, errorHandler{errs: errs}))
	for name, want := range errs {
		t.Run(name, func(t *testing.T) {
			check := func(how string, err error) {
				var got *runtime.Error
				if !errors.As(err, &got) {
					t.Fatalf("%s: error %v (%T) is not a *runtime.Error", how, err, err)
				}
				if got.Code() != want.Code() || got.Code().String() != name {
					t.Fatalf("%s: code = %v, want %v", how, got.Code(), want.Code())
				}
				if got.Message() != want.Message() {
					t.Errorf("%s: message = %q, want %q", how, got.Message(), want.Message())
				}
				for k, v := range want.Metadata() {
					if got.Metadata()[k] != v {
						t.Errorf("%s: metadata[%q] = %q, want %q", how, k, got.Metadata()[k], v)
					}
				}
				if len(got.FieldViolations()) != len(want.FieldViolations()) {
					t.Errorf("%s: violations = %v, want %v", how, got.FieldViolations(), want.FieldViolations())
				}
				if !errors.Is(err, want) {
					t.Errorf("%s: errors.Is(err, sentinel of %v) = false", how, want.Code())
				}
			}
			_, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: name})
			check("unary", err)

			var events int
			var streamErr error
			for _, err := range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: name}) {
				if err != nil {
					streamErr = err
					break
				}
				events++
			}
			if events != 1 {
				t.Fatalf("stream delivered %d events before the error, want 1", events)
			}
			check("mid-stream", streamErr)
		})
	}
}

func TestJSONRPCUnimplementedIsUnsupportedOperation(t *testing.T) {
	c := a2av1.NewA2AServiceJSONRPCClient(serveJSONRPC(t, a2av1.UnimplementedA2AServiceHandler{}))
	_, err := c.ListTasks(context.Background(), &a2av1.ListTasksRequest{})
	if !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Fatalf("ListTasks on Unimplemented: %v, want UnsupportedOperation", err)
	}
	for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
		if !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Fatalf("SendStreamingMessage on Unimplemented: %v, want UnsupportedOperation", err)
		}
	}
}

// rpcResponse is the part of a JSON-RPC response the malformed-input table checks.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Data    []json.RawMessage `json:"data"`
	} `json:"error"`
}

// TestJSONRPCMalformedInput posts raw bodies to the generated handler and
// checks the JSON-RPC error code, the echoed id and the named field paths.
func TestJSONRPCMalformedInput(t *testing.T) {
	url := serveJSONRPC(t, testagent.New(), runtime.WithMaxBodyBytes(2048))
	big := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + strings.Repeat("x", 4096) + `"}}`
	tests := []struct {
		name, body string
		code       int
		id         string
		mention    string // substring of the error (message or data)
	}{
		{"bad JSON", `{"jsonrpc":"2.0",`, -32700, "null", ""},
		{"not an object", `"hello"`, -32600, "null", ""},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}`, -32600, "1", ""},
		{"missing method", `{"jsonrpc":"2.0","id":"a"}`, -32600, `"a"`, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"Frobnicate","params":{}}`, -32601, "2", "Frobnicate"},
		{"v0.3 message/send", `{"jsonrpc":"2.0","id":3,"method":"message/send","params":{}}`, -32601, "3", "message/send"},
		{"v0.3 tasks/get", `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":"x"}}`, -32601, "4", ""},
		{"params not an object", `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":[1]}`, -32602, "5", ""},
		{"wrong param type", `{"jsonrpc":"2.0","id":6,"method":"GetTask","params":{"id":5}}`, -32602, "6", ""},
		{"bad enum", `{"jsonrpc":"2.0","id":7,"method":"ListTasks","params":{"status":"NOPE"}}`, -32602, "7", ""},
		{"missing required id", `{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{}}`, -32602, "8", `"id"`},
		{"missing nested required", `{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER"}}}`, -32602, "9", "message.parts"},
		{"missing message", `{"jsonrpc":"2.0","id":10,"method":"SendMessage","params":{}}`, -32602, "10", "message"},
		{"oversized body", big, -32600, "null", "2048"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]`, -32600, "null", ""},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}`, -32600, "null", ""},
		{"unknown task", `{"jsonrpc":"2.0","id":"s","method":"GetTask","params":{"id":"nope","unknownField":true}}`, -32001, `"s"`, "TASK_NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(url, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("HTTP %d, want 200 (JSON-RPC errors travel in a 200); body %s", resp.StatusCode, raw)
			}
			var r rpcResponse
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("response is not JSON: %v: %s", err, raw)
			}
			if r.JSONRPC != "2.0" || r.Error == nil {
				t.Fatalf("response %s, want a JSON-RPC 2.0 error", raw)
			}
			if r.Error.Code != tt.code {
				t.Errorf("code = %d, want %d (%s)", r.Error.Code, tt.code, raw)
			}
			if string(r.ID) != tt.id {
				t.Errorf("id = %s, want %s", r.ID, tt.id)
			}
			if !bytes.Contains(raw, []byte("google.rpc.ErrorInfo")) || !bytes.Contains(raw, []byte(runtime.ErrorDomain)) {
				t.Errorf("error data lacks ErrorInfo with domain %s: %s", runtime.ErrorDomain, raw)
			}
			if tt.mention != "" && !bytes.Contains(raw, []byte(tt.mention)) {
				t.Errorf("error does not mention %s: %s", tt.mention, raw)
			}
		})
	}
}

// streamUntilCanceled sends events until the client goes away, and reports
// when its context ended.
type streamUntilCanceled struct {
	a2av1.UnimplementedA2AServiceHandler
	ended chan struct{}
}

func (h streamUntilCanceled) SendStreamingMessage(ctx context.Context, _ *a2av1.SendMessageRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	defer close(h.ended)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
			TaskId: "t", ContextId: "c", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}}
		if err := s.Send(ev); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// TestJSONRPCStreamCancelLeavesNoGoroutines stops ranging over a stream after
// two events and checks that the handler's context ends and nothing leaks.
func TestJSONRPCStreamCancelLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := streamUntilCanceled{ended: make(chan struct{})}
	srv := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(h))
	client := &http.Client{Transport: &http.Transport{}}
	c := a2av1.NewA2AServiceJSONRPCClient(srv.URL, runtime.WithHTTPClient(client))
	n := 0
	for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	select {
	case <-h.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("handler still running 10s after the client stopped reading")
	}
	client.CloseIdleConnections()
	srv.Close()
}

// tenantEcho answers GetTask with the tenant and extensions the handler saw.
type tenantEcho struct {
	a2av1.UnimplementedA2AServiceHandler
}

func (tenantEcho) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	info, ok := runtime.CallInfoFromContext(ctx)
	if !ok {
		return nil, errors.New("no CallInfo in the handler's context")
	}
	runtime.ActivateExtension(ctx, "https://ext.example/a")
	return &a2av1.Task{Id: req.GetId(), ContextId: info.Tenant + "|" + info.Version + "|" + strings.Join(info.Extensions, ","),
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}, nil
}

func TestJSONRPCServiceParametersReachHandler(t *testing.T) {
	url := serveJSONRPC(t, tenantEcho{}, runtime.WithRequiredExtensions("https://ext.example/a"))
	c := a2av1.NewA2AServiceJSONRPCClient(url, runtime.WithClientTenant("acme"),
		runtime.WithExtensions("https://ext.example/a", "https://ext.example/b"))
	got, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "acme|1.0|https://ext.example/a,https://ext.example/b"; got.GetContextId() != want {
		t.Fatalf("handler saw %q, want %q", got.GetContextId(), want)
	}

	bare := a2av1.NewA2AServiceJSONRPCClient(url)
	if _, err := bare.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); !errors.Is(err, runtime.ErrExtensionSupportRequired) {
		t.Fatalf("without the required extension: %v, want ExtensionSupportRequired", err)
	}
	old := a2av1.NewA2AServiceJSONRPCClient(url, runtime.WithProtocolVersion("0.3"), runtime.WithExtensions("https://ext.example/a"))
	if _, err := old.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); !errors.Is(err, runtime.ErrVersionNotSupported) {
		t.Fatalf("A2A-Version 0.3: %v, want VersionNotSupported", err)
	}
}

func TestJSONRPCStrictVersionPolicyRejectsMissingHeader(t *testing.T) {
	url := serveJSONRPC(t, testagent.New(), runtime.WithVersionPolicy(runtime.VersionStrict))
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r rpcResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Error == nil || r.Error.Code != -32009 {
		t.Fatalf("strict policy without A2A-Version: %+v, want -32009", r.Error)
	}
}

// TestJSONRPCDeleteResultIsEmptyObject pins the emitted shape for
// google.protobuf.Empty results: "result": {}.
func TestJSONRPCDeleteResultIsEmptyObject(t *testing.T) {
	agent := testagent.New()
	c := a2av1.NewA2AServiceJSONRPCClient(serveJSONRPC(t, agent))
	sent, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("hi", "")})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":"d","method":"DeleteTaskPushNotificationConfig","params":{"taskId":"` + sent.GetTask().GetId() + `","id":"none"}}`
	url := serveJSONRPC(t, agent)
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","id":"d","result":{}}`; string(bytes.TrimSpace(raw)) != want {
		t.Fatalf("Delete response = %s, want %s", raw, want)
	}
	var _ = emptypb.Empty{}
}
