package a2av1_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

// verbLog records the verbs of :subscribe requests a server received.
type verbLog struct {
	mu    sync.Mutex
	verbs []string
}

func (l *verbLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.verbs, ",")
}

// verbFilter refuses one verb on :subscribe routes with 405, like a server
// that follows only the proto (GET) or only the prose (POST).
func verbFilter(refuse string, h http.Handler, log *verbLog) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":subscribe") {
			log.mu.Lock()
			log.verbs = append(log.verbs, r.Method)
			log.mu.Unlock()
			if r.Method == refuse {
				w.Header().Set("Allow", map[string]string{"GET": "POST", "POST": "GET"}[refuse])
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestRESTSubscribeVerbs checks the D1 override both ways: the server takes
// GET and POST on the plain and tenant routes (ignoring any body), and the
// client sends POST and falls back to GET once on 405.
func TestRESTSubscribeVerbs(t *testing.T) {
	agent := testagent.New()
	url := serveREST(t, agent)
	ctx := context.Background()
	c := a2av1.NewA2AServiceRESTClient(url)
	open, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("input", "")})
	if err != nil {
		t.Fatal(err)
	}
	id := open.GetTask().GetId()
	tc := a2av1.NewA2AServiceRESTClient(url, runtime.WithClientTenant("t1"))
	tOpen, err := tc.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("input", "")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/tasks/" + id + ":subscribe", ""},
		{"POST", "/tasks/" + id + ":subscribe", ""},
		{"POST", "/tasks/" + id + ":subscribe", "null"},
		{"POST", "/tasks/" + id + ":subscribe", `{"id":"ignored"}`},
		{"GET", "/t1/tasks/" + tOpen.GetTask().GetId() + ":subscribe", ""},
		{"POST", "/t1/tasks/" + tOpen.GetTask().GetId() + ":subscribe", "null"},
		{"GET", "/tasks/" + strings.ReplaceAll(id, "-", "%2D") + "%3Asubscribe", ""},
	} {
		t.Run(tt.method+" "+tt.path+" "+tt.body, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, url+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
			}
			if !bytes.HasPrefix(raw, []byte(`data: {"task":{`)) {
				t.Fatalf("stream = %s, want one bare StreamResponse event", raw)
			}
		})
	}

	for _, refuse := range []string{"GET", "POST"} {
		t.Run("client against a server refusing "+refuse, func(t *testing.T) {
			var seen verbLog
			srv := httptest.NewServer(verbFilter(refuse, a2av1.NewA2AServiceRESTHandler(agent), &seen))
			defer srv.Close()
			c := a2av1.NewA2AServiceRESTClient(srv.URL)
			n := 0
			for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}) {
				if err != nil {
					t.Fatal(err)
				}
				if ev.GetTask().GetId() == id {
					n++
				}
			}
			want := map[string]string{"GET": "POST", "POST": "POST,GET"}[refuse]
			if n != 1 || seen.String() != want {
				t.Fatalf("got %d snapshots with verbs %s, want 1 with %s", n, seen.String(), want)
			}
		})
	}
	t.Run("no GET retry when the task is missing", func(t *testing.T) {
		var seen verbLog
		srv := httptest.NewServer(verbFilter("", a2av1.NewA2AServiceRESTHandler(agent), &seen))
		defer srv.Close()
		c := a2av1.NewA2AServiceRESTClient(srv.URL)
		for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "missing"}) {
			if !errors.Is(err, runtime.ErrTaskNotFound) {
				t.Fatalf("err = %v, want TaskNotFound", err)
			}
		}
		if seen.String() != "POST" {
			t.Fatalf("verbs = %s, want POST only: a 404 carrying TASK_NOT_FOUND shows the route exists", seen.String())
		}
	})
}

// statusBody is the google.rpc.Status document of an HTTP+JSON error.
type statusBody struct {
	Error *struct {
		Code    int               `json:"code"`
		Status  string            `json:"status"`
		Message string            `json:"message"`
		Details []json.RawMessage `json:"details"`
	} `json:"error"`
}

// TestRESTMalformedInput sends raw requests to the generated handler and
// checks the HTTP status, the Status body and the named field paths.
func TestRESTMalformedInput(t *testing.T) {
	agent := testagent.New()
	base := serveREST(t, agent, runtime.WithMaxBodyBytes(2048))
	c := a2av1.NewA2AServiceRESTClient(base)
	sent, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("hi", "")})
	if err != nil {
		t.Fatal(err)
	}
	id := sent.GetTask().GetId()
	big := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("x", 4096) + `"}]}}`
	tests := []struct {
		name, method, path, contentType, body string
		status                                int
		grpcStatus, reason                    string
		mention                               string // substring of the body
		allow                                 string
	}{
		{"bad JSON", "POST", "/message:send", "application/json", `{"message":`, 400, "INVALID_ARGUMENT", "PARSE_ERROR", "", ""},
		{"not an object", "POST", "/message:send", "application/json", `[1,2]`, 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "", ""},
		{"wrong member type", "POST", "/message:send", "application/json", `{"message":{"messageId":5}}`, 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "", ""},
		{"missing required", "POST", "/message:send", "application/json", `{}`, 400, "INVALID_ARGUMENT", "INVALID_PARAMS", `"message"`, ""},
		{"missing nested required", "POST", "/message:send", "application/json", `{"message":{"messageId":"m","role":"ROLE_USER"}}`, 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "message.parts", ""},
		{"bad enum in body", "POST", "/message:send", "application/json", `{"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]}}`, 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "", ""},
		{"pageSize=abc", "GET", "/tasks?pageSize=abc", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "pageSize", ""},
		{"status=NOPE", "GET", "/tasks?status=NOPE", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "status", ""},
		{"historyLength=1.5", "GET", "/tasks/" + id + "?historyLength=1.5", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "historyLength", ""},
		{"int32 out of range", "GET", "/tasks?pageSize=2147483648", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "out of range", ""},
		{"includeArtifacts=maybe", "GET", "/tasks?includeArtifacts=maybe", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "includeArtifacts", ""},
		{"bad timestamp", "GET", "/tasks?statusTimestampAfter=yesterday", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "statusTimestampAfter", ""},
		{"bad timestamp via alias", "GET", "/tasks?lastUpdatedAfter=yesterday", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "lastUpdatedAfter", ""},
		{"singular given twice", "GET", "/tasks?pageSize=1&pageSize=2", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "more than once", ""},
		{"page size out of the agent's range", "GET", "/tasks?pageSize=0", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "pageSize", ""},
		{"unknown route", "GET", "/nope", "", "", 404, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "/nope", ""},
		{"too deep for any route", "POST", "/a/b/message:send", "application/json", `{}`, 404, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "", ""},
		{"trailing slash", "GET", "/tasks/", "", "", 404, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "", ""},
		{"wrong verb", "DELETE", "/message:send", "", "", 405, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "POST", "POST"},
		{"GET on :cancel is not GetTask", "GET", "/tasks/" + id + ":cancel", "", "", 405, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "", "POST"},
		{"wrong verb on a shared path", "PUT", "/tasks/" + id + "/pushNotificationConfigs", "application/json", `{}`, 405, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "", "GET, POST"},
		{"oversized body", "POST", "/message:send", "application/json", big, 413, "INVALID_ARGUMENT", "INVALID_REQUEST", "2048", ""},
		{"wrong content type", "POST", "/message:send", "text/plain", `{}`, 415, "INVALID_ARGUMENT", "INVALID_REQUEST", "text/plain", ""},
		{"form post", "POST", "/tasks/" + id + ":cancel", "application/x-www-form-urlencoded", `a=b`, 415, "INVALID_ARGUMENT", "INVALID_REQUEST", "", ""},
		{"unknown task", "GET", "/tasks/nope?unknownParam=1", "", "", 404, "NOT_FOUND", "TASK_NOT_FOUND", `"taskId":"nope"`, ""},
		{"terminal task not cancelable", "POST", "/tasks/" + id + ":cancel", "application/json", `null`, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE", "", ""},
		{"bad escape in query", "GET", "/tasks?pageSize=%zz", "", "", 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "pageSize", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, base+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("HTTP %d, want %d; body %s", resp.StatusCode, tt.status, raw)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			var st statusBody
			if err := json.Unmarshal(raw, &st); err != nil || st.Error == nil {
				t.Fatalf("body is not a Status document: %v: %s", err, raw)
			}
			if st.Error.Code != tt.status || st.Error.Status != tt.grpcStatus || st.Error.Message == "" {
				t.Errorf("status = %d %s %q, want %d %s", st.Error.Code, st.Error.Status, st.Error.Message, tt.status, tt.grpcStatus)
			}
			if len(st.Error.Details) == 0 || !bytes.Contains(st.Error.Details[0], []byte(`"reason":"`+tt.reason+`"`)) ||
				!bytes.Contains(st.Error.Details[0], []byte(runtime.ErrorDomain)) {
				t.Errorf("first detail is not ErrorInfo %s/%s: %s", tt.reason, runtime.ErrorDomain, raw)
			}
			if tt.mention != "" && !bytes.Contains(raw, []byte(tt.mention)) {
				t.Errorf("body does not mention %s: %s", tt.mention, raw)
			}
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

// TestRESTListTasksAlwaysPresentFields pins the REQUIRED members of
// ListTasksResponse on the wire even at their default values, while task
// defaults (artifacts without includeArtifacts) stay absent.
func TestRESTListTasksAlwaysPresentFields(t *testing.T) {
	base := serveREST(t, testagent.New())
	get := func(path string) map[string]json.RawMessage {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := get("/tasks")
	for member, want := range map[string]string{"tasks": "[]", "nextPageToken": `""`, "pageSize": "50", "totalSize": "0"} {
		if string(doc[member]) != want {
			t.Errorf("%s = %s, want %s (in %v)", member, doc[member], want, doc)
		}
	}
	c := a2av1.NewA2AServiceRESTClient(base)
	if _, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("hi", "")}); err != nil {
		t.Fatal(err)
	}
	doc = get("/tasks")
	if bytes.Contains(doc["tasks"], []byte(`"artifacts"`)) {
		t.Errorf("tasks carry artifacts without includeArtifacts: %s", doc["tasks"])
	}
	if !bytes.Contains(get("/tasks?includeArtifacts=true")["tasks"], []byte(`"artifacts"`)) {
		t.Error("includeArtifacts=true: no artifacts")
	}
}

// TestRESTMounting serves the handler under /a2a/rest both ways: detected
// from a ServeMux subtree pattern and configured with WithPathPrefix.
func TestRESTMounting(t *testing.T) {
	agent := testagent.New()
	mux := http.NewServeMux()
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(agent))
	mux.Handle("POST /verb/{agent}/rest/", a2av1.NewA2AServiceRESTHandler(agent))
	mux.Handle("/stripped/", http.StripPrefix("/stripped", a2av1.NewA2AServiceRESTHandler(agent)))
	mux.Handle("/explicit/", a2av1.NewA2AServiceRESTHandler(agent, runtime.WithPathPrefix("/explicit/")))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	explicit := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(agent, runtime.WithPathPrefix("/a2a/rest")))
	defer explicit.Close()

	for _, base := range []string{srv.URL + "/a2a/rest", srv.URL + "/a2a/rest/", srv.URL + "/verb/x/rest", srv.URL + "/stripped",
		srv.URL + "/explicit", explicit.URL + "/a2a/rest"} {
		t.Run(base, func(t *testing.T) {
			c := a2av1.NewA2AServiceRESTClient(base, runtime.WithClientTenant("a2a"))
			sent, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("hi", "")})
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			if strings.Contains(base, "/verb/") {
				return // the mux pattern is POST only
			}
			if _, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: sent.GetTask().GetId()}); err != nil {
				t.Fatalf("GetTask: %v", err)
			}
		})
	}
	resp, err := http.Get(explicit.URL + "/tasks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /tasks outside the explicit prefix: HTTP %d, want 404", resp.StatusCode)
	}
}

// TestRESTSDKStyleRequests sends what the official Go SDK v2.3.1 client
// sends: a null body with Content-Type application/json on :cancel, and
// lastUpdatedAfter for statusTimestampAfter; and checks content negotiation.
func TestRESTSDKStyleRequests(t *testing.T) {
	agent := testagent.New()
	base := serveREST(t, agent)
	c := a2av1.NewA2AServiceRESTClient(base)
	open, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("input", "")})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, raw
	}
	resp, raw := do("POST", "/tasks/"+open.GetTask().GetId()+":cancel", "null", "Content-Type", "application/json", "Accept", "application/json")
	if resp.StatusCode != 200 || !bytes.Contains(raw, []byte("TASK_STATE_CANCELED")) || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf(":cancel with a null body: HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	for _, body := range []string{"", "{}", `{"metadata":{"why":"test"}}`} {
		resp, raw = do("POST", "/tasks/"+open.GetTask().GetId()+":cancel", body, "Content-Type", "application/json; charset=utf-8")
		if resp.StatusCode != 200 {
			t.Fatalf(":cancel with body %q: HTTP %d: %s", body, resp.StatusCode, raw)
		}
	}
	since := url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
	resp, raw = do("GET", "/tasks?lastUpdatedAfter="+since+"&A2A-Version=1.0", "", "Accept", "application/a2a+json, application/json;q=0.5")
	if resp.StatusCode != 200 || !bytes.Contains(raw, []byte(`"totalSize":1`)) {
		t.Fatalf("ListTasks with lastUpdatedAfter: HTTP %d: %s", resp.StatusCode, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/a2a+json" {
		t.Errorf("Content-Type = %q, want application/a2a+json when Accept lists it", ct)
	}
	resp, _ = do("GET", "/tasks/nope", "", "Accept", "application/a2a+json")
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 404 || ct != "application/a2a+json" {
		t.Errorf("error: HTTP %d Content-Type %q, want 404 application/a2a+json", resp.StatusCode, ct)
	}
	resp, raw = do("DELETE", "/tasks/"+open.GetTask().GetId()+"/pushNotificationConfigs/none", "")
	if resp.StatusCode != 200 || string(bytes.TrimSpace(raw)) != "{}" {
		t.Errorf("Delete: HTTP %d %s, want 200 {}", resp.StatusCode, raw)
	}
	// Strict version policy: the query parameter satisfies it.
	strict := serveREST(t, agent, runtime.WithVersionPolicy(runtime.VersionStrict))
	for path, want := range map[string]int{"/tasks": 400, "/tasks?A2A-Version=1.0": 200, "/tasks?a2a-version=1.0": 200} {
		r, err := http.Get(strict + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != want {
			t.Errorf("strict policy, GET %s: HTTP %d, want %d", path, r.StatusCode, want)
		}
	}
	// A pre-stream error is a normal Status response, not an SSE stream.
	resp, raw = do("POST", "/tasks/missing:subscribe", "", "Accept", "text/event-stream")
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" || !bytes.Contains(raw, []byte("TASK_NOT_FOUND")) {
		t.Errorf("pre-stream error: HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
}

// TestRESTActivatedExtensionsHeader checks that the extensions a handler
// activates come back in the A2A-Extensions response header, on a /{tenant}
// route of an interface that requires one extension.
func TestRESTActivatedExtensionsHeader(t *testing.T) {
	base := serveREST(t, paramsEcho{}, runtime.WithRequiredExtensions("https://ext.example/a"))
	req, _ := http.NewRequest("GET", base+"/acme/tasks/t", nil)
	req.Header.Set("A2A-Extensions", "https://ext.example/a")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("A2A-Extensions"); got != "https://ext.example/a" {
		t.Errorf("A2A-Extensions response header = %q, want the activated extension", got)
	}
}

// TestRESTClientAcceptsOtherServers checks the answers of servers that
// follow other readings of the spec: errors as application/problem+json or
// text/plain, Delete with an empty body, errors sent inside a 200 SSE
// response.
func TestRESTClientAcceptsOtherServers(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/tasks/problem"):
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"type":"about:blank","title":"Task not found","status":404,"detail":"no task problem"}`)
		case strings.HasSuffix(r.URL.Path, "/tasks/text"):
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "token expired")
		case strings.HasSuffix(r.URL.Path, "/tasks/status-only"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"no details"}}`)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK) // the official Go SDK: 200, empty body
		case strings.HasSuffix(r.URL.Path, ":subscribe"):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"error\":{\"code\":400,\"status\":\"FAILED_PRECONDITION\",\"message\":\"terminal\","+
				"\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"UNSUPPORTED_OPERATION\",\"domain\":\"a2a-protocol.org\"}]}}\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := a2av1.NewA2AServiceRESTClient(srv.URL)
	ctx := context.Background()
	_, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "problem"})
	var e *runtime.Error
	if !errors.As(err, &e) || e.Code() != runtime.CodeTaskNotFound || e.Message() != "no task problem" {
		t.Errorf("problem+json 404: %v, want TaskNotFound with the detail", err)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "text"}); !errors.Is(err, runtime.ErrUnauthenticated) || !strings.Contains(err.Error(), "token expired") {
		t.Errorf("text/plain 401: %v, want Unauthenticated with the text", err)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "status-only"}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Errorf("Status without ErrorInfo: %v, want the code of FAILED_PRECONDITION (UnsupportedOperation)", err)
	}
	if _, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: "t", Id: "c"}); err != nil {
		t.Errorf("Delete answered with an empty body: %v", err)
	}
	n := 0
	for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "t"}) {
		n++
		if !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Errorf("200 SSE whose only event is an error: %v, want UnsupportedOperation", err)
		}
	}
	if n != 1 {
		t.Errorf("stream yielded %d times, want once (the error)", n)
	}
}
