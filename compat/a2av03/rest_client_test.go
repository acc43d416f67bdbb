package a2av03_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// plainRESTAgent is a scripted v0.3 HTTP+JSON agent shaped like the
// official Go SDK's v0.3 server: routes without the /v1 prefix (a /v1 path
// is the mux's text 404), snake_case answers, google.rpc.Status errors, the
// extended card at /extendedAgentCard and SubscribeToTask on POST only.
type plainRESTAgent struct {
	mu    sync.Mutex
	paths []string // method and path of every request
}

func (a *plainRESTAgent) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.paths)
}

const snakeTask = `{"kind":"task","id":"t1","context_id":"c1","status":{"state":"completed"},` +
	`"artifacts":[{"artifact_id":"a1","parts":[{"kind":"text","text":"Echo: hello"}]}],"metadata":{"user_key":1}}`

func statusError(w http.ResponseWriter, code int, status, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"code":%d,"status":%q,"message":%q,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":%q,"domain":"a2a-protocol.org","metadata":{"taskId":"missing"}}]}}`,
		code, status, msg, reason)
}

func (a *plainRESTAgent) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	sse := func(w http.ResponseWriter, events ...string) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}
	mux.HandleFunc("POST /message:send", func(w http.ResponseWriter, r *http.Request) {
		var p map[string]any
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p["message"].(map[string]any)["kind"] != "message" {
			t.Errorf("message:send body = %v, %v", p, err)
		}
		fmt.Fprint(w, snakeTask)
	})
	mux.HandleFunc("POST /message:stream", func(w http.ResponseWriter, r *http.Request) {
		sse(w, `{"kind":"status-update","task_id":"t1","context_id":"c1","status":{"state":"working"},"final":false}`,
			`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"no more","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]}}`)
	})
	mux.HandleFunc("GET /tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "missing" {
			statusError(w, http.StatusNotFound, "NOT_FOUND", "TASK_NOT_FOUND", "task not found")
			return
		}
		if r.URL.Query().Get("historyLength") != "2" {
			t.Errorf("GET task query = %q", r.URL.RawQuery)
		}
		fmt.Fprint(w, snakeTask)
	})
	mux.HandleFunc("POST /tasks/{idAndAction}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("idAndAction") {
		case "t1:subscribe":
			sse(w, snakeTask)
		case "t1:cancel":
			statusError(w, http.StatusBadRequest, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE", "task t1 is completed")
		default:
			http.NotFound(w, r)
		}
	})
	mux.HandleFunc("POST /tasks/{id}/pushNotificationConfigs", func(w http.ResponseWriter, r *http.Request) {
		var c map[string]any
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c["url"] != "http://127.0.0.1:9/hook" || c["id"] != "p1" {
			t.Errorf("push config body = %v, %v (want a bare PushNotificationConfig)", c, err)
		}
		fmt.Fprint(w, `{"task_id":"t1","push_notification_config":{"id":"p1","url":"http://127.0.0.1:9/hook"}}`)
	})
	mux.HandleFunc("GET /tasks/{id}/pushNotificationConfigs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"task_id":"t1","push_notification_config":{"id":"p1","url":"http://127.0.0.1:9/hook"}}]`)
	})
	mux.HandleFunc("DELETE /tasks/{id}/pushNotificationConfigs/{configId}", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /extendedAgentCard", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"protocol_version":"0.3.0","name":"plain","description":"d","version":"1","url":"http://%s/a2a",
			"preferred_transport":"HTTP+JSON","capabilities":{"streaming":true},"default_input_modes":["text/plain"],
			"default_output_modes":["text/plain"],"skills":[]}`, r.Host)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("A2A-Version"); v != "0.3" {
			t.Errorf("%s %s: A2A-Version %q, want 0.3", r.Method, r.URL.Path, v)
		}
		a.mu.Lock()
		a.paths = append(a.paths, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		http.StripPrefix("/a2a", mux).ServeHTTP(w, r)
	})
}

func codeOf(err error) runtime.ErrorCode {
	var e *runtime.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// TestRESTClientTransportPlainPaths: against an agent without the /v1
// routes the transport falls back to the plain paths once and keeps them,
// reads snake_case answers, and maps Status errors (also one ending a
// stream) onto the typed runtime errors.
func TestRESTClientTransportPlainPaths(t *testing.T) {
	agent := &plainRESTAgent{}
	hs := httptest.NewServer(agent.handler(t))
	t.Cleanup(hs.Close)
	c := a2av1.NewA2AServiceClient(a2av03.NewRESTClientTransport(hs.URL + "/a2a/"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	task := resp.GetTask()
	if task.GetContextId() != "c1" || task.GetArtifacts()[0].GetArtifactId() != "a1" || task.GetMetadata().GetFields()["user_key"] == nil {
		t.Errorf("SendMessage task = %v (snake_case members, metadata keys kept)", task)
	}
	if got := agent.seen(); !slices.Equal(got, []string{"POST /a2a/v1/message:send", "POST /a2a/message:send"}) {
		t.Errorf("requests = %q, want the /v1 route, then the plain path", got)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1", HistoryLength: proto.Int32(2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "missing"}); codeOf(err) != runtime.CodeTaskNotFound {
		t.Errorf("GetTask of a missing task: %v, want TaskNotFound", err)
	}
	if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: "t1"}); codeOf(err) != runtime.CodeTaskNotCancelable {
		t.Errorf("CancelTask: %v, want TaskNotCancelable", err)
	}
	var events []*a2av1.StreamResponse
	var streamErr error
	for e, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("s"))) {
		if err != nil {
			streamErr = err
			break
		}
		events = append(events, e)
	}
	if len(events) != 1 || events[0].GetStatusUpdate().GetTaskId() != "t1" || codeOf(streamErr) != runtime.CodeUnsupportedOperation ||
		!strings.Contains(streamErr.Error(), "no more") {
		t.Errorf("stream = %v then %v, want one status update and UnsupportedOperation \"no more\"", events, streamErr)
	}
	n := 0
	for e, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "t1"}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.GetTask().GetId() != "t1" {
			t.Errorf("SubscribeToTask event = %v", e)
		}
		n++
	}
	if n != 1 {
		t.Errorf("SubscribeToTask: %d events, want 1", n)
	}
	created, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "http://127.0.0.1:9/hook"})
	if err != nil || created.GetTaskId() != "t1" || created.GetId() != "p1" {
		t.Errorf("CreateTaskPushNotificationConfig = %v, %v", created, err)
	}
	list, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: "t1"})
	if err != nil || len(list.GetConfigs()) != 1 || list.GetConfigs()[0].GetUrl() != "http://127.0.0.1:9/hook" {
		t.Errorf("ListTaskPushNotificationConfigs = %v, %v", list, err)
	}
	if _, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: "t1", Id: "p1"}); err != nil {
		t.Error(err)
	}
	card, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil || card.GetName() != "plain" || card.GetSupportedInterfaces()[0].GetProtocolBinding() != runtime.BindingHTTPJSON {
		t.Errorf("GetExtendedAgentCard = %v, %v", card, err)
	}
	if _, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{}); codeOf(err) != runtime.CodeUnsupportedOperation {
		t.Errorf("ListTasks: %v, want UnsupportedOperation", err)
	}
	for _, p := range agent.seen()[2:] {
		if strings.Contains(p, "/v1/") {
			t.Errorf("request %q after the fallback: the plain paths should stick", p)
		}
	}
}

// TestRESTClientTransportBadAnswers: answers that are not v0.3 shapes are
// InvalidAgentResponse naming what is wrong, unary and in a stream.
func TestRESTClientTransportBadAnswers(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/v1/message:send":
			fmt.Fprint(w, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}`) // a v1.0 task
		case "/v1/tasks/t1":
			fmt.Fprint(w, `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"sleeping"}}`)
		case "/v1/card":
			fmt.Fprint(w, `{"protocolVersion":"0.3.0","name":"c","url":"http://h","securitySchemes":{"x":{"type":"saml"}}}`)
		case "/v1/message:stream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"kind\":\"artifact-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"text\":\"x\"}]}}\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	c := a2av1.NewA2AServiceClient(a2av03.NewRESTClientTransport(hs.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	check := func(what string, err error, field string) {
		t.Helper()
		if codeOf(err) != runtime.CodeInvalidAgentResponse || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want InvalidAgentResponse naming %s", what, err, field)
		}
	}
	_, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("x")))
	check("a v1.0 task", err, "StreamResponse holds one of task, message")
	_, err = c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"})
	check("an unknown state", err, "body.status.state")
	for _, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("x"))) {
		check("a part without kind", err, "event.artifact.parts[0].kind")
		break
	}
	_, err = c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	check("a card with an unknown scheme type", err, `type "saml" is not an A2A v0.3 security scheme type`)
	// A missing route (404 without an A2A error at both paths) is reported
	// as the /v1 route's answer.
	_, err = c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: "t1", Id: "p"})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a missing route: %v", err)
	}
}

// TestV03PushConfigListIsOnePage: v0.3's push-config list has no paging,
// so it is served as one v1.0 page of at most server.MaxPushConfigPageSize
// configs, over JSON-RPC and HTTP+JSON, and the v1.0 client of a v0.3
// agent gets no nextPageToken (a2av03.Lossy).
func TestV03PushConfigListIsOnePage(t *testing.T) {
	card := echo.Card()
	srv, err := server.New(card, &echo.Agent{}, server.WithMaxPushConfigsPerTask(-1), server.WithPushOptions(push.AllowDestinations("127.0.0.1")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := srv.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	task := resp.GetTask().GetId()
	for i := range server.MaxPushConfigPageSize + 1 {
		if _, err := srv.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: task,
			Id: fmt.Sprintf("p%03d", i), Url: "http://127.0.0.1:9/hook"}); err != nil {
			t.Fatal(err)
		}
	}
	opts := []runtime.HandlerOption{runtime.WithVersionAdapter(a2av03.Adapter())}
	mux := http.NewServeMux()
	mux.Handle("/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv, opts...))
	mux.Handle("/rest/", a2av1.NewA2AServiceRESTHandler(srv, append(opts, runtime.WithPathPrefix("/rest"))...))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	for name, tr := range map[string]runtime.ClientTransport{
		"JSONRPC":   a2av03.NewJSONRPCClientTransport(hs.URL + "/jsonrpc"),
		"HTTP+JSON": a2av03.NewRESTClientTransport(hs.URL + "/rest"),
	} {
		c := a2av1.NewA2AServiceClient(tr)
		list, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task, PageSize: 5})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(list.GetConfigs()) != server.MaxPushConfigPageSize || list.GetNextPageToken() != "" {
			t.Errorf("%s: %d configs, nextPageToken %q; want one page of %d (pageSize dropped), no token",
				name, len(list.GetConfigs()), list.GetNextPageToken(), server.MaxPushConfigPageSize)
		}
	}
}

// TestRESTClientSnakeCaseMapKeys: a snake_case answer is read as camelCase
// outside metadata and data, map keys included (a2av03.Lossy).
func TestRESTClientSnakeCaseMapKeys(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"protocol_version":"0.3.0","name":"s","url":"http://h/a2a",
			"security_schemes":{"my_key":{"type":"apiKey","in":"header","name":"X-Key"}},"security":[{"my_key":[]}]}`)
	}))
	t.Cleanup(hs.Close)
	c := a2av1.NewA2AServiceClient(a2av03.NewRESTClientTransport(hs.URL))
	card, err := c.GetExtendedAgentCard(context.Background(), &a2av1.GetExtendedAgentCardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if card.GetSecuritySchemes()["myKey"] == nil || card.GetSecurityRequirements()[0].GetSchemes()["myKey"] == nil {
		t.Errorf("snake_case scheme name read as %v / %v, want myKey (the documented loss)", card.GetSecuritySchemes(), card.GetSecurityRequirements())
	}
}

// TestRESTClientURLEndingInV1: a card url that already ends in /v1 reaches
// the /v1 routes through the plain-path fallback.
func TestRESTClientURLEndingInV1(t *testing.T) {
	var paths []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path != "/v1/tasks/t1" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}`)
	}))
	t.Cleanup(hs.Close)
	c := a2av1.NewA2AServiceClient(a2av03.NewRESTClientTransport(hs.URL + "/v1"))
	task, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t1"})
	if err != nil || task.GetId() != "t1" {
		t.Fatalf("GetTask = %v, %v (requests %q)", task, err, paths)
	}
	if !slices.Equal(paths, []string{"/v1/v1/tasks/t1", "/v1/tasks/t1"}) {
		t.Errorf("requests = %q", paths)
	}
}

// TestRESTClientTransportJSSDKServer: against an agent shaped like the JS
// SDK 1.3's v0.3 REST server (ProtoJSON answers, 201 for message:send and
// the create, errors as a top-level JSON-RPC {"code","message"}, a stream's
// error as "event: error") the transport reads every answer and types every
// error.
func TestRESTClientTransportJSSDKServer(t *testing.T) {
	const pjTask = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a1","parts":[{"text":"Echo: hello"}]}]}`
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		jsError := func(status, code int, msg string) {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"code":%d,"message":%q}`, code, msg)
		}
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/message:send":
			var p map[string]any
			if json.Unmarshal(body, &p) != nil || p["message"].(map[string]any)["content"] == nil {
				t.Errorf("message:send body %s, want ProtoJSON", body)
			}
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"task":`+pjTask+`}`)
		case "GET /v1/tasks/t1":
			fmt.Fprint(w, pjTask)
		case "GET /v1/tasks/missing":
			jsError(404, -32001, "Task not found: missing")
		case "POST /v1/tasks/t1:cancel":
			jsError(400, -32002, "Task not cancelable: t1")
		case "POST /v1/tasks/t1/pushNotificationConfigs":
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"name":"tasks/t1/pushNotificationConfigs/p1","pushNotificationConfig":{"id":"p1","url":"http://127.0.0.1:9/hook"}}`)
		case "GET /v1/tasks/t1/pushNotificationConfigs":
			fmt.Fprint(w, `{"configs":[{"name":"tasks/t1/pushNotificationConfigs/p1","pushNotificationConfig":{"id":"p1","url":"http://127.0.0.1:9/hook"}}],"nextPageToken":""}`)
		case "POST /v1/message:stream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n"+
				"event: error\ndata: {\"code\":-32004,\"message\":\"no more\"}\n\n")
		default:
			jsError(404, -32601, "no route "+r.URL.Path)
		}
	}))
	t.Cleanup(hs.Close)
	c := a2av1.NewA2AServiceClient(a2av03.NewRESTClientTransport(hs.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED ||
		resp.GetTask().GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" {
		t.Fatalf("SendMessage: %v %v", resp, err)
	}
	if task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"}); err != nil || task.GetId() != "t1" {
		t.Fatalf("GetTask: %v %v", task, err)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "missing"}); codeOf(err) != runtime.CodeTaskNotFound {
		t.Fatalf("GetTask missing: %v, want TaskNotFound", err)
	}
	if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: "t1"}); codeOf(err) != runtime.CodeTaskNotCancelable {
		t.Fatalf("CancelTask: %v, want TaskNotCancelable", err)
	}
	cfg, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "http://127.0.0.1:9/hook"})
	if err != nil || cfg.GetTaskId() != "t1" || cfg.GetId() != "p1" {
		t.Fatalf("CreateTaskPushNotificationConfig: %v %v", cfg, err)
	}
	list, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: "t1"})
	if err != nil || len(list.GetConfigs()) != 1 || list.GetConfigs()[0].GetTaskId() != "t1" {
		t.Fatalf("ListTaskPushNotificationConfigs: %v %v", list, err)
	}
	var got []string
	for e, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("x"))) {
		if err != nil {
			got = append(got, "error:"+codeOf(err).String())
			break
		}
		got = append(got, e.GetStatusUpdate().GetStatus().GetState().String())
	}
	if want := "TASK_STATE_WORKING error:" + runtime.CodeUnsupportedOperation.String(); strings.Join(got, " ") != want {
		t.Fatalf("stream %q, want %q", got, want)
	}
}
