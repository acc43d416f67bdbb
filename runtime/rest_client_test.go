package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// restRecorder serves the REST fixture and records every request line.
type restRecorder struct {
	*httptest.Server
	mu     sync.Mutex
	lines  []string
	bodies []string
}

func newRESTRecorder(t *testing.T, h http.Handler) *restRecorder {
	t.Helper()
	s := &restRecorder{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.mu.Lock()
		s.lines = append(s.lines, r.Method+" "+r.URL.RequestURI())
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *restRecorder) last() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines[len(s.lines)-1], s.bodies[len(s.bodies)-1]
}

func TestRESTTransportRequests(t *testing.T) {
	srv := newRESTRecorder(t, NewRESTHandler(newRESTTestService(nil), WithLogger(slogDiscard())))
	ctx := context.Background()
	tests := []struct {
		name     string
		opts     []ClientOption
		op       string
		req      string // ProtoJSON of the request
		wantLine string
		wantBody string
		wantResp string
	}{
		{"path variable and query", nil, "Echo", `{"text":"a/b c","count":3,"activate":["x","y"]}`,
			"GET /echo/a%2Fb%20c?count=3&activate=x&activate=y", "", `{"text":"a/b c","version":"1.0"}`},
		{"request tenant takes the tenant route", nil, "Echo", `{"text":"hi","tenant":"t1"}`,
			"GET /t1/echo/hi", "", `{"text":"hi","tenant":"t1","version":"1.0"}`},
		{"client tenant takes the tenant route", []ClientOption{WithClientTenant("acme")}, "Echo", `{"text":"hi"}`,
			"GET /acme/echo/hi", "", `{"text":"hi","tenant":"acme","version":"1.0"}`},
		{"request tenant wins over the client's", []ClientOption{WithClientTenant("acme")}, "Echo", `{"text":"hi","tenant":"t2"}`,
			"GET /t2/echo/hi", "", `{"text":"hi","tenant":"t2","version":"1.0"}`},
		{"no path variable for text: the body rule", nil, "Echo", `{"activate":["a"]}`,
			"POST /echo", `{"activate":["a"]}`, `{"version":"1.0"}`},
		{"body star without the path fields", []ClientOption{WithClientTenant("acme")}, "Send",
			`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`,
			"POST /acme/send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`,
			`{"text":"ok","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`},
		{"body field with a nested path variable", nil, "Send",
			`{"message":{"messageId":"m/1","role":"ROLE_USER","parts":[{"text":"x"}]}}`,
			"PUT /messages/m%2F1", `{"role":"ROLE_USER","parts":[{"text":"x"}]}`,
			`{"text":"ok","message":{"messageId":"m/1","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`},
		{"delete", nil, "Delete", `{"text":"x"}`, "DELETE /items/x", "", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewRESTTransport(srv.URL+"/", tt.opts...)
			op := restOp(tt.op)
			md := mdRequest
			if tt.op == "Send" {
				md = mdSendRequest
			}
			req := newMessage(t, md, tt.req)
			before := proto.Clone(req)
			var resp proto.Message = dynamicpb.NewMessage(mdResponse)
			if tt.op == "Delete" {
				resp = &emptypb.Empty{}
			}
			if err := tr.Unary(ctx, op, req, resp); err != nil {
				t.Fatal(err)
			}
			line, body := srv.last()
			if line != tt.wantLine {
				t.Errorf("request %q, want %q", line, tt.wantLine)
			}
			if tt.wantBody == "" && body != "" || tt.wantBody != "" && compactJSON(t, []byte(body)) != tt.wantBody {
				t.Errorf("body %s, want %s", body, tt.wantBody)
			}
			if got := compactJSON(t, mustMarshal(t, resp)); got != tt.wantResp {
				t.Errorf("response %s, want %s", got, tt.wantResp)
			}
			if !proto.Equal(req, before) {
				t.Errorf("the caller's request was modified: %v", req)
			}
		})
	}
}

func TestRESTTransportLocalErrors(t *testing.T) {
	tr := NewRESTTransport("http://127.0.0.1:1")
	ctx := context.Background()
	// A path the request cannot fill is refused before anything is sent.
	err := tr.Unary(ctx, restOp("Fail"), newMessage(t, mdRequest, `{}`), dynamicpb.NewMessage(mdResponse))
	var e *Error
	if !errors.As(err, &e) || e.Code() != CodeInvalidParams || e.FieldViolations()[0].Field != "fail" {
		t.Errorf("empty path field: %v, want InvalidParams on fail", err)
	}
	// An rpc without HTTP rules cannot be called over this binding.
	err = tr.Unary(ctx, testOp("Echo"), newMessage(t, mdRequest, `{}`), dynamicpb.NewMessage(mdResponse))
	if !errors.Is(err, ErrMethodNotFound) || !strings.Contains(err.Error(), "google.api.http") {
		t.Errorf("no rules: %v, want MethodNotFound", err)
	}
	// Connection failures keep their cause.
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	err = tr.Unary(ctx2, restOp("Echo"), newMessage(t, mdRequest, `{"text":"x"}`), dynamicpb.NewMessage(mdResponse))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
}

func TestRESTTransportStreams(t *testing.T) {
	srv := httptest.NewServer(NewRESTHandler(newRESTTestService(nil), WithLogger(slogDiscard())))
	defer srv.Close()
	tr := NewRESTTransport(srv.URL)
	ctx := context.Background()
	collect := func(req string) (n int, err error) {
		for m, err := range tr.Stream(ctx, restOp("Stream"), newMessage(t, mdRequest, req), newResponse) {
			if err != nil {
				return n, err
			}
			if getInt(m, "seq") != int32(n) {
				t.Errorf("event %d has seq %d", n, getInt(m, "seq"))
			}
			n++
		}
		return n, nil
	}
	if n, err := collect(`{"count":4}`); n != 4 || err != nil {
		t.Errorf("stream: %d events, %v", n, err)
	}
	if n, err := collect(`{"count":4,"fail":"TaskNotFound","failAfter":2}`); n != 2 || !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("mid-stream error: %d events, %v", n, err)
	}
	if n, err := collect(`{"count":4,"fail":"ExtensionSupportRequired","failAfter":0}`); n != 0 || !errors.Is(err, ErrExtensionSupportRequired) {
		t.Errorf("pre-stream error: %d events, %v", n, err)
	}
}

// TestRESTTransportVerbFallback gives the fixture's Stream rpc HTTPVerbs and
// checks the retry rules against servers that refuse a verb. It changes the
// fixture's description, so it must not run in parallel with other tests.
func TestRESTTransportVerbFallback(t *testing.T) {
	op := restOp("Stream")
	op.HTTPVerbs = &HTTPVerbs{
		Server:        []string{http.MethodGet, http.MethodPost},
		Client:        []string{http.MethodPost, http.MethodGet},
		RetryStatuses: []int{http.StatusNotFound, http.StatusMethodNotAllowed},
	}
	defer func() { op.HTTPVerbs = nil }()

	h := NewRESTHandler(newRESTTestService(nil), WithLogger(slogDiscard()))
	var (
		mu   sync.Mutex
		seen []string
	)
	verbs := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(seen, ",")
	}
	reset := func() {
		mu.Lock()
		defer mu.Unlock()
		seen = nil
	}
	refuse := func(status int, verb string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Method)
			mu.Unlock()
			if r.Method == verb {
				w.WriteHeader(status)
				return
			}
			h.ServeHTTP(w, r)
		}))
	}
	for _, tt := range []struct {
		name   string
		status int
		verb   string
		want   string
	}{
		{"server takes both", 0, "", "POST"},
		{"405 on POST", http.StatusMethodNotAllowed, "POST", "POST,GET"},
		{"404 on POST", http.StatusNotFound, "POST", "POST,GET"},
		{"501 on POST is final", http.StatusNotImplemented, "POST", "POST"},
		{"GET refused too", http.StatusMethodNotAllowed, "", "POST"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := refuse(tt.status, tt.verb)
			defer srv.Close()
			reset()
			tr := NewRESTTransport(srv.URL)
			n := 0
			var last error
			for _, err := range tr.Stream(context.Background(), restOp("Stream"), newMessage(t, mdRequest, `{"count":2}`), newResponse) {
				if err != nil {
					last = err
					break
				}
				n++
			}
			if got := verbs(); got != tt.want {
				t.Errorf("verbs %s, want %s", got, tt.want)
			}
			if tt.status == http.StatusNotImplemented {
				if !errors.Is(last, ErrMethodNotFound) {
					t.Errorf("error %v, want MethodNotFound from the 501", last)
				}
			} else if n != 2 || last != nil {
				t.Errorf("%d events, %v", n, last)
			}
		})
	}
	// The route answers TASK_NOT_FOUND: the task is missing, GET would not help.
	reset()
	srv := refuse(0, "")
	defer srv.Close()
	for _, err := range NewRESTTransport(srv.URL).Stream(context.Background(), restOp("Stream"),
		newMessage(t, mdRequest, `{"count":1,"fail":"TaskNotFound","failAfter":0}`), newResponse) {
		if !errors.Is(err, ErrTaskNotFound) {
			t.Errorf("error %v, want TaskNotFound", err)
		}
	}
	if got := verbs(); got != "POST" {
		t.Errorf("verbs %s, want POST only", got)
	}
}

// TestRESTTransportAnswers checks answers other servers give.
func TestRESTTransportAnswers(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        ErrorCode // 0: success
		message     string
	}{
		{"Status with ErrorInfo", 400, "application/json", `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"m",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}`,
			CodeTaskNotCancelable, "m"},
		{"Status as a2a+json", 404, "application/a2a+json", `{"error":{"code":404,"status":"NOT_FOUND","message":"gone"}}`, CodeTaskNotFound, "gone"},
		{"Status as text/plain", 403, "text/plain", `{"error":{"code":403,"status":"PERMISSION_DENIED","message":"no"}}`, CodeUnauthorized, "no"},
		{"problem+json", 415, "application/problem+json", `{"type":"https://a2a-protocol.org/errors/content-type-not-supported","title":"Unsupported","status":415}`,
			CodeContentTypeNotSupported, "Unsupported"},
		{"bare error string", 500, "application/json", `{"error":"boom"}`, CodeInternal, "boom"},
		{"plain text", 502, "text/plain", "bad gateway", CodeInvalidAgentResponse, "HTTP 502 Bad Gateway: bad gateway"},
		{"HTML 200", 200, "text/html", "<html></html>", CodeInvalidAgentResponse, ""},
		{"empty 200", 200, "", "", 0, ""},
		{"null 200", 200, "application/json", "null", 0, ""},
		{"204", 204, "", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			err := NewRESTTransport(srv.URL).Unary(context.Background(), restOp("Echo"), newMessage(t, mdRequest, `{"text":"x"}`), dynamicpb.NewMessage(mdResponse))
			if tt.want == 0 {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code() != tt.want {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.message != "" && e.Message() != tt.message {
				t.Errorf("message = %q, want %q", e.Message(), tt.message)
			}
		})
	}
}
