package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"
)

func newTestClient(srv *httptest.Server, opts ...ClientOption) ClientTransport {
	return NewJSONRPCTransport(srv.URL, ClientDefaults(testDesc, append([]ClientOption{WithHTTPClient(srv.Client())}, opts...))...)
}

// recorder wraps a handler and keeps the bodies and headers of the requests.
type recorder struct {
	next http.Handler

	mu      sync.Mutex
	bodies  []string
	headers []http.Header
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.bodies = append(rec.bodies, string(b))
	rec.headers = append(rec.headers, r.Header.Clone())
	rec.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	rec.next.ServeHTTP(w, r)
}

func (rec *recorder) last() (string, http.Header) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.bodies[len(rec.bodies)-1], rec.headers[len(rec.headers)-1]
}

func newRecordingServer(t *testing.T, opts ...HandlerOption) (*httptest.Server, *recorder) {
	t.Helper()
	opts = append([]HandlerOption{WithLogger(slogDiscard())}, opts...)
	rec := &recorder{next: NewJSONRPCHandler(newTestService(nil), opts...)}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestJSONRPCClientUnary(t *testing.T) {
	srv, rec := newRecordingServer(t)
	c := newTestClient(srv, WithHeader("Authorization", "Bearer tok"))
	resp := newResponse()
	if err := c.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{"text":"hello"}`), resp); err != nil {
		t.Fatal(err)
	}
	if got := getString(resp, "text"); got != "hello" {
		t.Errorf("text %q", got)
	}
	if got := getString(resp, "authorization"); got != "Bearer tok" {
		t.Errorf("the handler saw Authorization %q", got)
	}
	body, header := rec.last()
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatal(err)
	}
	if env.JSONRPC != "2.0" || env.Method != "Echo" || len(env.ID) < 3 || env.ID[0] != '"' || !json.Valid(env.Params) {
		t.Errorf("request envelope %s", body)
	}
	for k, want := range map[string]string{"Content-Type": "application/json", "Accept": "application/json", "A2A-Version": "1.0"} {
		if got := header.Get(k); got != want {
			t.Errorf("request header %s %q, want %q", k, got, want)
		}
	}
}

func TestJSONRPCClientSendsEmptyParamsObject(t *testing.T) {
	srv, rec := newRecordingServer(t)
	c := newTestClient(srv)
	if err := c.Unary(context.Background(), testOp("Delete"), newMessage(t, mdRequest, `{}`), &emptypb.Empty{}); err != nil {
		t.Fatal(err)
	}
	body, _ := rec.last()
	if !strings.Contains(body, `"params":{}`) {
		t.Errorf(`request %s lacks "params":{}`, body)
	}
}

func TestJSONRPCClientErrorRoundTrip(t *testing.T) {
	srv := newTestServer(t)
	c := newTestClient(srv)
	sentinels := map[ErrorCode]*Error{
		CodeTaskNotFound: ErrTaskNotFound, CodeTaskNotCancelable: ErrTaskNotCancelable,
		CodePushNotificationNotSupported: ErrPushNotificationNotSupported, CodeUnsupportedOperation: ErrUnsupportedOperation,
		CodeContentTypeNotSupported: ErrContentTypeNotSupported, CodeInvalidAgentResponse: ErrInvalidAgentResponse,
		CodeExtendedAgentCardNotConfigured: ErrExtendedAgentCardNotConfigured, CodeExtensionSupportRequired: ErrExtensionSupportRequired,
		CodeVersionNotSupported: ErrVersionNotSupported, CodeParseError: ErrParse, CodeInvalidRequest: ErrInvalidRequest,
		CodeMethodNotFound: ErrMethodNotFound, CodeInvalidParams: ErrInvalidParams, CodeInternal: ErrInternal,
		CodeUnauthenticated: ErrUnauthenticated, CodeUnauthorized: ErrUnauthorized, CodeResourceExhausted: ErrResourceExhausted,
	}
	for _, code := range allErrorCodes() {
		t.Run(code.String(), func(t *testing.T) {
			err := c.Unary(context.Background(), testOp("Fail"), newMessage(t, mdRequest, `{"fail":"`+code.String()+`"}`), newResponse())
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if !errors.Is(err, sentinels[code]) {
				t.Errorf("errors.Is(%v, Err%s) is false", err, code)
			}
			if e.Code() != code || e.Message() != "fixture "+code.String() {
				t.Errorf("got %v %q", e.Code(), e.Message())
			}
			md := e.Metadata()
			if _, err := time.Parse(time.RFC3339, md["timestamp"]); err != nil {
				t.Errorf("metadata timestamp %q: %v", md["timestamp"], err)
			}
			delete(md, "timestamp")
			if want := map[string]string{"taskId": "task-1"}; !maps.Equal(md, want) {
				t.Errorf("metadata %v, want %v", md, want)
			}
			if want := []FieldViolation{{Field: "message.parts", Description: "must not be empty"}}; !slices.Equal(e.FieldViolations(), want) {
				t.Errorf("violations %v, want %v", e.FieldViolations(), want)
			}
		})
	}
}

func TestJSONRPCClientInternalErrorMessage(t *testing.T) {
	srv := newTestServer(t)
	err := newTestClient(srv).Unary(context.Background(), testOp("Fail"), newMessage(t, mdRequest, `{"fail":"plain"}`), newResponse())
	var e *Error
	if !errors.As(err, &e) || e.Code() != CodeInternal || e.Message() != "internal error" {
		t.Errorf("got %v", err)
	}
}

func TestJSONRPCClientTenant(t *testing.T) {
	srv, rec := newRecordingServer(t)
	c := newTestClient(srv, WithClientTenant("acme"))
	for _, tc := range []struct {
		name, req, wantTenant, wantParams string
	}{
		{"empty params", `{}`, "acme", `{"tenant":"acme"}`},
		{"other members", `{"text":"x"}`, "acme", ""},
		{"caller's tenant wins", `{"tenant":"other"}`, "other", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := newMessage(t, mdRequest, tc.req)
			before := getString(req, "tenant")
			resp := newResponse()
			if err := c.Unary(context.Background(), testOp("Echo"), req, resp); err != nil {
				t.Fatal(err)
			}
			if got := getString(resp, "tenant"); got != tc.wantTenant {
				t.Errorf("server saw tenant %q, want %q", got, tc.wantTenant)
			}
			if got := getString(req, "tenant"); got != before {
				t.Errorf("the caller's request was modified: tenant %q", got)
			}
			body, _ := rec.last()
			if n := strings.Count(body, `"tenant"`); n != 1 {
				t.Errorf("request %s has %d tenant members", body, n)
			}
			var env struct{ Params json.RawMessage }
			if err := json.Unmarshal([]byte(body), &env); err != nil {
				t.Fatalf("request is not JSON: %v\n%s", err, body)
			}
			if tc.wantParams != "" && string(env.Params) != tc.wantParams {
				t.Errorf("params %s, want %s", env.Params, tc.wantParams)
			}
		})
	}
}

func TestJSONRPCClientTenantNeedsTenantField(t *testing.T) {
	tr := NewJSONRPCTransport("http://unused", WithClientTenant("acme")).(*jsonrpcTransport)
	params, err := tr.marshalParams(&emptypb.Empty{})
	if err != nil || string(params) != "{}" {
		t.Errorf("params %s (%v), want {} for a message without a tenant field", params, err)
	}
}

func TestJSONRPCClientExtensionsAndVersion(t *testing.T) {
	srv, rec := newRecordingServer(t)
	c := newTestClient(srv, WithExtensions("urn:a", " urn:b "))
	resp := newResponse()
	if err := c.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), resp); err != nil {
		t.Fatal(err)
	}
	_, header := rec.last()
	if got := header.Values("A2A-Extensions"); len(got) != 1 || got[0] != "urn:a,urn:b" {
		t.Errorf("A2A-Extensions headers %q, want one: urn:a,urn:b", got)
	}
	if got := getStrings(resp, "extensions"); !slices.Equal(got, []string{"urn:a", "urn:b"}) {
		t.Errorf("the handler saw extensions %q", got)
	}
	if got := getString(resp, "version"); got != "1.0" {
		t.Errorf("the handler saw version %q", got)
	}

	c = newTestClient(srv, WithProtocolVersion("0.3"))
	err := c.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
	if !errors.Is(err, ErrVersionNotSupported) {
		t.Errorf("A2A-Version 0.3: got %v, want VersionNotSupported", err)
	}
}

// fakeServer answers every request with status, content type and body, in
// which %ID% is replaced by the request's raw id.
func fakeServer(t *testing.T, status int, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct{ ID json.RawMessage }
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &env)
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, strings.ReplaceAll(body, "%ID%", string(env.ID)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestJSONRPCClientAcceptsMissingResult(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":%ID%}`,
		`{"jsonrpc":"2.0","id":%ID%,"result":null}`,
		`{"jsonrpc":"2.0","id":%ID%,"result":{}}`,
	} {
		srv := fakeServer(t, 200, "application/json", body)
		if err := newTestClient(srv).Unary(context.Background(), testOp("Delete"), newMessage(t, mdRequest, `{}`), &emptypb.Empty{}); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	// And from this package's own server.
	srv := newTestServer(t)
	if err := newTestClient(srv).Unary(context.Background(), testOp("Delete"), newMessage(t, mdRequest, `{}`), &emptypb.Empty{}); err != nil {
		t.Error(err)
	}
}

func TestJSONRPCClientDecodesErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		opts        []ClientOption
		want        ErrorCode
		msgContains string
	}{
		{name: "wrong id", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":"nope","result":{}}`, want: CodeInvalidAgentResponse, msgContains: "id"},
		{name: "numeric id for a string id", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, want: CodeInvalidAgentResponse},
		{name: "not JSON", status: 200, contentType: "application/json", body: `<html>`, want: CodeInvalidAgentResponse},
		{name: "empty body", status: 200, contentType: "application/json", body: ``, want: CodeInvalidAgentResponse},
		{name: "missing jsonrpc", status: 200, contentType: "application/json", body: `{"id":%ID%,"result":{}}`, want: CodeInvalidAgentResponse},
		{name: "undecodable result", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"result":{"text":5}}`, want: CodeInvalidAgentResponse},
		{name: "too large", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"result":{"text":"` + strings.Repeat("x", 100) + `"}}`, opts: []ClientOption{WithMaxResponseBytes(50)}, want: CodeInvalidAgentResponse, msgContains: "50 bytes"},
		{name: "500 text", status: 500, contentType: "text/plain", body: `boom`, want: CodeInternal, msgContains: "500"},
		{name: "401", status: 401, contentType: "text/plain", body: `no`, want: CodeUnauthenticated, msgContains: "401"},
		{name: "403", status: 403, want: CodeUnauthorized},
		{name: "404 is a wrong URL, not a missing task", status: 404, contentType: "text/plain", body: `404 page not found`, want: CodeInternal, msgContains: "404 page not found"},
		{name: "JSON-RPC error body on 400", status: 400, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32001,"message":"gone"}}`, want: CodeTaskNotFound, msgContains: "gone"},
		{name: "error with id null", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32004,"message":"no"}}`, want: CodeUnsupportedOperation},
		{name: "error with another id", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":"x","error":{"code":-32004,"message":"no"}}`, want: CodeInvalidAgentResponse},
		{name: "reason beats code", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32603,"message":"m","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`, want: CodeTaskNotFound},
		{name: "foreign domain ignored", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32002,"message":"m","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"example.com"}]}}`, want: CodeTaskNotCancelable},
		{name: "data not an array", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32001,"message":"m","data":"details"}}`, want: CodeTaskNotFound},
		{name: "unknown code", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32000,"message":"server error"}}`, want: CodeInternal, msgContains: "server error"},
		{name: "error is a string", status: 200, contentType: "application/json", body: `{"jsonrpc":"2.0","id":%ID%,"error":"broken"}`, want: CodeInternal, msgContains: "broken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeServer(t, tc.status, tc.contentType, tc.body)
			err := newTestClient(srv, tc.opts...).Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if e.Code() != tc.want || !strings.Contains(e.Message(), tc.msgContains) {
				t.Errorf("got %v, want %v mentioning %q", e, tc.want, tc.msgContains)
			}
		})
	}
}

func TestJSONRPCClientDecodesDetails(t *testing.T) {
	srv := fakeServer(t, 200, "application/json", `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32602,"message":"bad","data":[
		{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"x"},
		{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"OTHER","domain":"example.com","metadata":{"a":"b"}},
		{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_PARAMS","domain":"a2a-protocol.org","metadata":{"n":1,"s":"v"}},
		{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"a","description":"d"}]},
		{"@type":"type.googleapis.com/google.rpc.BadRequest","field_violations":[{"field":"b"}]},
		"junk", 5]}}`)
	err := newTestClient(srv).Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
	var e *Error
	if !errors.As(err, &e) || e.Code() != CodeInvalidParams {
		t.Fatalf("got %v", err)
	}
	if want := map[string]string{"n": "1", "s": "v"}; !maps.Equal(e.Metadata(), want) {
		t.Errorf("metadata %v, want %v (from the A2A ErrorInfo)", e.Metadata(), want)
	}
	if want := []FieldViolation{{"a", "d"}, {"b", ""}}; !slices.Equal(e.FieldViolations(), want) {
		t.Errorf("violations %v, want %v", e.FieldViolations(), want)
	}
}

func TestJSONRPCClientTransportErrorsAreNotA2AErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	err := NewJSONRPCTransport(url).Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
	var e *Error
	if err == nil || errors.As(err, &e) {
		t.Errorf("connection refused: got %v, want a plain transport error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = NewJSONRPCTransport(url).Unary(ctx, testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v", err)
	}
}
