package interop

// Deviations of the SDK's A2A v0.3 layer (v2.4.0; v2.3.1 where named) (a2acompat/a2av0,
// a2agrpc/v0) from the v0.3.0 specification, found by the v0.3 interop
// tests. Each test shows with a recording server that the SDK really sends
// the deviating request, then how a2agen's examples/echo --v03 answers it.

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// v03GRPCRecorder is a gRPC server that serves almost nothing: it records
// the method and, for CreateTaskPushNotificationConfig, the request of
// every call, answers SendMessage with a completed task (so that scenarios
// reach their later steps) and everything else Unimplemented.
type v03GRPCRecorder struct {
	mu      sync.Mutex
	methods []string
	creates []*a2av03pb.CreateTaskPushNotificationConfigRequest
}

func (r *v03GRPCRecorder) handle(_ any, s grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(s)
	r.mu.Lock()
	r.methods = append(r.methods, method)
	r.mu.Unlock()
	switch method {
	case a2av03pb.A2AServiceSendMessageProcedure:
		if err := s.RecvMsg(new(a2av03pb.SendMessageRequest)); err != nil {
			return err
		}
		return s.SendMsg(&a2av03pb.SendMessageResponse{Payload: &a2av03pb.SendMessageResponse_Task{Task: &a2av03pb.Task{
			Id: "recorded-task", ContextId: "recorded-context", Status: &a2av03pb.TaskStatus{State: a2av03pb.TaskState_TASK_STATE_COMPLETED}}}})
	case a2av03pb.A2AServiceCreateTaskPushNotificationConfigProcedure:
		req := new(a2av03pb.CreateTaskPushNotificationConfigRequest)
		if err := s.RecvMsg(req); err != nil {
			return err
		}
		r.mu.Lock()
		r.creates = append(r.creates, req)
		r.mu.Unlock()
	}
	return status.Error(codes.Unimplemented, "recording only")
}

func (r *v03GRPCRecorder) called(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.methods {
		if m == method {
			return true
		}
	}
	return false
}

// newV03GRPCRecorder serves a recorder on loopback and returns it with the
// URL of a card listing it as a 0.3 gRPC interface.
func newV03GRPCRecorder(t *testing.T) (*v03GRPCRecorder, string) {
	t.Helper()
	rec := &v03GRPCRecorder{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.UnknownServiceHandler(rec.handle))
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	card := testCard(&a2av1.AgentInterface{Url: ln.Addr().String(), ProtocolBinding: "GRPC", ProtocolVersion: "0.3"})
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return rec, srv.URL + runtime.AgentCardPath
}

// startOurV03Echo runs examples/echo --v03.
func startOurV03Echo(t *testing.T) *peer {
	t.Helper()
	if echoBuildErr != nil {
		t.Fatalf("examples/echo does not build: %v", echoBuildErr)
	}
	return startPeer(t, "examples/echo --v03", echoBin, []string{"card", "jsonrpc", "rest", "grpc"}, append(echoArgs(), "-v03")...)
}

// TestDeviation_V03GRPCCreatePushConfigWithoutConfigID: the SDK's v0.3
// gRPC client sends CreateTaskPushNotificationConfig with config_id empty
// when the config has no id, although the v0.3.0 proto marks config_id
// REQUIRED (its own v0.3 server ignores config_id and reads the config's
// id). a2agen's v0.3 gRPC service accepts it (liberal in what it accepts):
// the server picks the id, as v1.0 does, after looking the task up, so an
// unknown task is TaskNotFound. (a2agen's own v0.3 client names such a
// config itself.)
func TestDeviation_V03GRPCCreatePushConfigWithoutConfigID(t *testing.T) {
	t.Parallel()
	t.Run("wire", func(t *testing.T) {
		t.Parallel()
		rec, card := newV03GRPCRecorder(t)
		runSDKClient(t, card, "GRPC", "errors", "-version", "0.3")
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.creates) == 0 {
			t.Fatal("the SDK client sent no CreateTaskPushNotificationConfig")
		}
		for _, req := range rec.creates {
			if req.GetConfigId() != "" || req.GetConfig().GetPushNotificationConfig().GetId() != "" {
				t.Errorf("the SDK sent config_id %q (config id %q), want both empty (deviation gone?)",
					req.GetConfigId(), req.GetConfig().GetPushNotificationConfig().GetId())
			}
		}
	})
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		p := startOurV03Echo(t)
		run := runSDKClient(t, p.endpoints["card"], "GRPC", "errors", "-version", "0.3")
		s, ok := run.step("create-push-config-for-unknown-task")
		if !ok {
			t.Fatalf("the SDK client did not run the step (%v); stderr:\n%s", run.err, run.stderr)
		}
		if !s.OK || s.Reason != "TASK_NOT_FOUND" {
			t.Errorf("examples/echo answered ok=%v %s (%s: %s), want TASK_NOT_FOUND (the request without config_id accepted, the task looked up)",
				s.OK, s.Reason, s.Problem, s.Error)
		}
	})
}

// TestDeviation_V03GRPCListTasks: the SDK's v0.3 gRPC client calls
// a2a.v1.A2AService/ListTasks, an rpc the v0.3.0 proto does not have (the
// SDK's own a2apb adds it). a2agen serves the v0.3.0 service, so the call is
// Unimplemented; a2agen's v0.3 client answers ListTasks UnsupportedOperation
// without a call.
func TestDeviation_V03GRPCListTasks(t *testing.T) {
	t.Parallel()
	t.Run("wire", func(t *testing.T) {
		t.Parallel()
		rec, card := newV03GRPCRecorder(t)
		runSDKClient(t, card, "GRPC", "list", "-version", "0.3")
		if !rec.called("/a2a.v1.A2AService/ListTasks") {
			t.Errorf("the SDK client did not call a2a.v1.A2AService/ListTasks (deviation gone?); calls %v", rec.methods)
		}
	})
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		p := startOurV03Echo(t)
		run := runSDKClient(t, p.endpoints["card"], "GRPC", "list", "-version", "0.3")
		s, ok := run.step("list-tasks-without-parameters")
		if !ok {
			t.Fatalf("the SDK client did not run the step (%v); stderr:\n%s", run.err, run.stderr)
		}
		if s.OK || !strings.Contains(s.Error, "ListTasks") {
			t.Errorf("examples/echo answered ok=%v (%s %s), want the unknown-method error naming ListTasks", s.OK, s.Reason, s.Error)
		}
	})
}

// TestDeviation_V03RESTServerPlainPathsSnakeCase: the SDK v2.3.1's v0.3
// HTTP+JSON server (a2acompat/a2av0.NewRESTHandler) serves the v0.3 operations on the
// v1.0 route names, without the /v1 prefix of the v0.3.0 proto's
// google.api.http rules (POST /message:send, not /v1/message:send), and
// answers with snake_case member names (context_id, message_id), where
// proto JSON is camelCase. a2agen's v0.3 HTTP+JSON client tries /v1 and
// falls back to the plain path on a 404 without an A2A error, and reads
// either spelling (TestOurClientToSDKV03Server/HTTP+JSON runs every
// operation through it). v2.4 serves the /v1 routes in the ProtoJSON form
// of the v0.3 proto instead, so this runs the v2.3.1 build.
func TestDeviation_V03RESTServerPlainPathsSnakeCase(t *testing.T) {
	t.Parallel()
	sdk := startSDKPeerOf(t, sdkpeerV231Bin, "-version", "0.3")
	rest := sdk.endpoints["rest"]
	body := []byte(`{"message":{"kind":"message","messageId":"` + newID() + `","role":"user","parts":[{"kind":"text","text":"hello"}]}}`)
	post := func(path string) rawResponse {
		t.Helper()
		ctx := stepContext(t)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rest+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "0.3")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return rawResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b}
	}
	if r := post("/v1/message:send"); r.status != http.StatusNotFound {
		t.Errorf("POST /v1/message:send: status %d (%s), want 404 (deviation gone?)", r.status, r.body)
	}
	r := post("/message:send")
	if r.status != http.StatusOK {
		t.Fatalf("POST /message:send: status %d (%s), want 200", r.status, r.body)
	}
	var task map[string]any
	if err := json.Unmarshal(r.body, &task); err != nil {
		t.Fatalf("answer %s: %v", r.body, err)
	}
	if task["kind"] != "task" || task["context_id"] == nil || task["contextId"] != nil {
		t.Errorf("answer %s, want a v0.3 task (kind task) with snake_case context_id (deviation gone?)", r.body)
	}
}

// TestDeviation_V03CardSchemesUnderV03Names: the SDK's v0.3 card
// (a2av0.NewStaticAgentCardProducer) is a union of both card versions, but
// nests each security scheme's v1.0 form under the v0.3 type's name
// ("http": {...}) instead of v1.0's ("httpAuthSecurityScheme": {...}), so
// a v1.0 reading sees an empty scheme (the SDK's own v1.0 card parser
// refuses the card: "unknown security scheme type"). a2agen's
// agentcard.Discover reads such a scheme from its v0.3 members (checked in
// TestOurClientToSDKV03Server).
func TestDeviation_V03CardSchemesUnderV03Names(t *testing.T) {
	t.Parallel()
	sdk := startSDKPeer(t, "-version", "0.3")
	var card struct {
		SecuritySchemes     map[string]map[string]json.RawMessage `json:"securitySchemes"`
		SupportedInterfaces []json.RawMessage                     `json:"supportedInterfaces"`
	}
	doc := fetchCardJSON(t, sdk.endpoints["card"])
	if err := json.Unmarshal(doc, &card); err != nil {
		t.Fatalf("card %s: %v", doc, err)
	}
	bearer := card.SecuritySchemes["bearer"]
	if len(card.SupportedInterfaces) == 0 || bearer["http"] == nil || bearer["httpAuthSecurityScheme"] != nil || string(bearer["type"]) != `"http"` {
		t.Errorf("card %s: want supportedInterfaces and the bearer scheme's v1.0 form under \"http\", not \"httpAuthSecurityScheme\" (deviation gone?)", doc)
	}
}

// postV03 posts a JSON body to a v0.3 HTTP+JSON route with A2A-Version 0.3.
func postV03(t *testing.T, url, body string) rawResponse {
	t.Helper()
	ctx := stepContext(t)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "0.3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b}
}

// v03RESTTask sends "hello" in the ProtoJSON form of the v0.3 proto to a
// v0.3 HTTP+JSON interface and returns the id of the task it answers.
func v03RESTTask(t *testing.T, rest string) string {
	t.Helper()
	r := postV03(t, rest+"/v1/message:send",
		`{"message":{"messageId":"`+newID()+`","role":"ROLE_USER","content":[{"text":"hello"}]}}`)
	var answer struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if err := json.Unmarshal(r.body, &answer); err != nil || r.status != http.StatusOK || answer.Task.ID == "" {
		t.Fatalf("POST %s/v1/message:send: %d %s (%v), want a task", rest, r.status, r.body, err)
	}
	return answer.Task.ID
}

// TestDeviation_V03RESTCreatePushConfigWrapped: the SDK v2.4.0's v0.3
// HTTP+JSON server reads the body of POST /v1/tasks/{id}/pushNotificationConfigs
// as the whole CreateTaskPushNotificationConfigRequest ({"parent", "configId",
// "config"}) and answers a ParseError to the config itself, which the v0.3
// proto's rule (body: "config") makes the body and which a2agen's v0.3 client
// and the JS SDK send (so a2agen's client cannot create push configs on that
// server: TestOurClientToSDKV03Server skips that check). examples/echo --v03
// takes both forms.
func TestDeviation_V03RESTCreatePushConfigWrapped(t *testing.T) {
	t.Parallel()
	forms := func(taskID string) (config, wrapped string) {
		cfg := `{"name":"tasks/` + taskID + `/pushNotificationConfigs/cfg1","pushNotificationConfig":{"id":"cfg1","url":"http://127.0.0.1:9/never"}}`
		return cfg, `{"parent":"tasks/` + taskID + `","configId":"cfg1","config":` + cfg + `}`
	}
	t.Run("sdk", func(t *testing.T) {
		t.Parallel()
		rest := startSDKPeer(t, "-version", "0.3").endpoints["rest"]
		id := v03RESTTask(t, rest)
		config, wrapped := forms(id)
		if r := postV03(t, rest+"/v1/tasks/"+id+"/pushNotificationConfigs", config); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "PARSE_ERROR") {
			t.Errorf("the config as the body: %d %s, want 400 PARSE_ERROR (deviation gone?)", r.status, r.body)
		}
		if r := postV03(t, rest+"/v1/tasks/"+id+"/pushNotificationConfigs", wrapped); r.status != http.StatusOK {
			t.Errorf("the wrapped request as the body: %d %s, want 200", r.status, r.body)
		}
	})
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		rest := interfaceURL(t, fetchCardJSON(t, startOurV03Echo(t).endpoints["card"]), "HTTP+JSON")
		id := v03RESTTask(t, rest)
		config, wrapped := forms(id)
		for name, body := range map[string]string{"config": config, "wrapped": wrapped} {
			if r := postV03(t, rest+"/v1/tasks/"+id+"/pushNotificationConfigs", body); r.status/100 != 2 {
				t.Errorf("%s as the body: %d %s, want it created", name, r.status, r.body)
			}
		}
	})
}
