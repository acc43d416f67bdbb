package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"
)

// rawResponse is an HTTP answer as received on the wire.
type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

// rawCall sends body to url with the given HTTP method and Content-Type
// ("" for none) and extra header pairs.
func rawCall(t *testing.T, url, method, contentType, body string, header ...string) rawResponse {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: b}
}

func rawPost(t *testing.T, url, body string, header ...string) rawResponse {
	t.Helper()
	return rawCall(t, url, http.MethodPost, "application/json", body, header...)
}

// wireResponse is a JSON-RPC response decoded independently of the code
// under test; json.RawMessage keeps the id's bytes as sent.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Data    []json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeWire(t *testing.T, b []byte) wireResponse {
	t.Helper()
	var w wireResponse
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, b)
	}
	if w.JSONRPC != "2.0" {
		t.Fatalf(`response lacks "jsonrpc":"2.0": %s`, b)
	}
	return w
}

func newTestServer(t *testing.T, opts ...HandlerOption) *httptest.Server {
	t.Helper()
	// Quiet by default; a test that reads the logs passes its own logger.
	opts = append([]HandlerOption{WithLogger(slogDiscard())}, opts...)
	srv := httptest.NewServer(NewJSONRPCHandler(newTestService(nil), opts...))
	t.Cleanup(srv.Close)
	return srv
}

func TestJSONRPCServerEchoesID(t *testing.T) {
	srv := newTestServer(t)
	for _, tc := range []struct {
		name, id, want string // id "" = absent
	}{
		{"string", `"abc"`, `"abc"`},
		{"escaped string", `"a\u0062c"`, `"a\u0062c"`},
		{"integer", `1`, `1`},
		{"negative", `-7`, `-7`},
		{"float kept verbatim", `1.50`, `1.50`},
		{"exponent", `1e3`, `1e3`},
		{"null", `null`, `null`},
		{"absent (notification)", ``, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","method":"Echo","params":{"text":"hi"}`
			if tc.id != "" {
				body += `,"id":` + tc.id
			}
			body += `}`
			got := rawPost(t, srv.URL, body)
			if got.status != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", got.status, got.body)
			}
			if ct := got.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			w := decodeWire(t, got.body)
			if string(w.ID) != tc.want {
				t.Errorf("id %s, want %s", w.ID, tc.want)
			}
			if w.Error != nil {
				t.Fatalf("unexpected error %+v", w.Error)
			}
			var res struct{ Text string }
			if err := json.Unmarshal(w.Result, &res); err != nil || res.Text != "hi" {
				t.Errorf("result %s, want text hi (%v)", w.Result, err)
			}
		})
	}
}

func TestJSONRPCServerRefusesMalformedRequests(t *testing.T) {
	srv := newTestServer(t)
	small := httptest.NewServer(NewJSONRPCHandler(newTestService(nil), WithMaxBodyBytes(64), WithLogger(slogDiscard())))
	defer small.Close()

	const echo = `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{}}`
	for _, tc := range []struct {
		name        string
		url         string // srv.URL when empty
		method      string // POST when empty
		contentType string // application/json when empty; "-" for none
		body        string
		status      int
		code        int
		id          string
		msgContains string
	}{
		{name: "bad JSON", body: `{"jsonrpc":"2.0","id":1,`, status: 200, code: -32700, id: "null"},
		{name: "bad JSON inside params", body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":}}`, status: 200, code: -32700, id: "null"},
		{name: "trailing garbage", body: echo + `x`, status: 200, code: -32700, id: "null"},
		{name: "empty body", body: ``, status: 200, code: -32700, id: "null"},
		{name: "whitespace body", body: " \n\t", status: 200, code: -32700, id: "null"},
		{name: "batch", body: `[` + echo + `]`, status: 200, code: -32600, id: "null", msgContains: "batch"},
		{name: "empty batch", body: `[]`, status: 200, code: -32600, id: "null"},
		{name: "not an object", body: `"Echo"`, status: 200, code: -32600, id: "null"},
		{name: "null document", body: `null`, status: 200, code: -32600, id: "null"},
		{name: "wrong jsonrpc", body: `{"jsonrpc":"1.0","id":1,"method":"Echo"}`, status: 200, code: -32600, id: "1"},
		{name: "numeric jsonrpc", body: `{"jsonrpc":2.0,"id":1,"method":"Echo"}`, status: 200, code: -32600, id: "1"},
		{name: "missing jsonrpc", body: `{"id":1,"method":"Echo"}`, status: 200, code: -32600, id: "1"},
		{name: "member names are case-sensitive", body: `{"JSONRPC":"2.0","id":1,"method":"Echo"}`, status: 200, code: -32600, id: "1"},
		{name: "missing method", body: `{"jsonrpc":"2.0","id":"x"}`, status: 200, code: -32600, id: `"x"`},
		{name: "empty method", body: `{"jsonrpc":"2.0","id":"x","method":""}`, status: 200, code: -32600, id: `"x"`},
		{name: "non-string method", body: `{"jsonrpc":"2.0","id":"x","method":5}`, status: 200, code: -32600, id: `"x"`},
		{name: "null method", body: `{"jsonrpc":"2.0","id":"x","method":null}`, status: 200, code: -32600, id: `"x"`},
		{name: "object id", body: `{"jsonrpc":"2.0","id":{"a":1},"method":"Echo"}`, status: 200, code: -32600, id: "null"},
		{name: "array id", body: `{"jsonrpc":"2.0","id":[1],"method":"Echo"}`, status: 200, code: -32600, id: "null"},
		{name: "boolean id", body: `{"jsonrpc":"2.0","id":true,"method":"Echo"}`, status: 200, code: -32600, id: "null"},
		{name: "duplicate id", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"Echo"}`, status: 200, code: -32600, id: "null"},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"Nope","params":{}}`, status: 200, code: -32601, id: "1", msgContains: `"Nope"`},
		{name: "method of another version", body: `{"jsonrpc":"2.0","id":1,"method":"test/echo","params":{}}`, status: 200, code: -32009, id: "1", msgContains: `method "test/echo" is A2A 0.9, which this interface does not serve; it serves 1.0, whose methods are Echo, Send`},
		{name: "unknown slash method", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}`, status: 200, code: -32601, id: "1", msgContains: "this interface serves Echo, Send, Fail"},
		{name: "params array", body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":[1]}`, status: 200, code: -32602, id: "1"},
		{name: "params string", body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":"x"}`, status: 200, code: -32602, id: "1"},
		{name: "params wrong type", body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":5}}`, status: 200, code: -32602, id: "1", msgContains: "text"},
		{name: "params bad number", body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"count":"many"}}`, status: 200, code: -32602, id: "1", msgContains: "count"},
		{name: "params lone surrogate", body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":"\ud800"}}`, status: 200, code: -32602, id: "1", msgContains: `\ud800 at byte 9 is a UTF-16 surrogate without its pair`},
		{name: "params bad enum", body: `{"jsonrpc":"2.0","id":1,"method":"Send","params":{"message":{"messageId":"m","role":"ROLE_BOSS","parts":[{"text":"x"}]}}}`, status: 200, code: -32602, id: "1"},
		{name: "missing required field", body: `{"jsonrpc":"2.0","id":1,"method":"Send","params":{}}`, status: 200, code: -32602, id: "1"},
		{name: "oversized body", url: small.URL, body: `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":"` + strings.Repeat("x", 100) + `"}}`, status: 200, code: -32600, id: "null", msgContains: "64 bytes"},
		{name: "GET", method: http.MethodGet, body: ``, status: 405, code: -32600, id: "null", msgContains: "POST"},
		{name: "PUT", method: http.MethodPut, body: echo, status: 405, code: -32600, id: "null"},
		{name: "form content type", contentType: "application/x-www-form-urlencoded", body: echo, status: 415, code: -32600, id: "null", msgContains: "application/json"},
		{name: "text/plain", contentType: "text/plain", body: echo, status: 415, code: -32600, id: "null"},
		// A browser posts a body without Content-Type cross-site with no
		// CORS preflight (issue 13, CSRF).
		{name: "no content type", contentType: "-", body: echo, status: 415, code: -32600, id: "null", msgContains: "no Content-Type"},
		{name: "multipart form", contentType: "multipart/form-data; boundary=x", body: echo, status: 415, code: -32600, id: "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, method, ct := srv.URL, http.MethodPost, "application/json"
			if tc.url != "" {
				url = tc.url
			}
			if tc.method != "" {
				method = tc.method
			}
			switch tc.contentType {
			case "":
			case "-":
				ct = ""
			default:
				ct = tc.contentType
			}
			got := rawCall(t, url, method, ct, tc.body)
			if got.status != tc.status {
				t.Errorf("status %d, want %d", got.status, tc.status)
			}
			if got.status == http.StatusMethodNotAllowed && got.header.Get("Allow") != "POST" {
				t.Errorf("Allow %q, want POST", got.header.Get("Allow"))
			}
			if got.status == http.StatusUnsupportedMediaType && got.header.Get("Accept") != "application/json, application/a2a+json" {
				t.Errorf("415 with Accept %q, want the accepted media types", got.header.Get("Accept"))
			}
			if ct := got.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			w := decodeWire(t, got.body)
			if w.Error == nil {
				t.Fatalf("no error in %s", got.body)
			}
			if w.Error.Code != tc.code {
				t.Errorf("code %d, want %d (%s)", w.Error.Code, tc.code, w.Error.Message)
			}
			if string(w.ID) != tc.id {
				t.Errorf("id %s, want %s", w.ID, tc.id)
			}
			if !strings.Contains(w.Error.Message, tc.msgContains) {
				t.Errorf("message %q does not mention %q", w.Error.Message, tc.msgContains)
			}
			if w.Result != nil {
				t.Errorf("error response also has a result: %s", got.body)
			}
			info := errorInfoOf(t, w.Error.Data)
			if want := CodeFromJSONRPC(tc.code).Reason(); info.GetReason() != want {
				t.Errorf("ErrorInfo reason %q, want %q", info.GetReason(), want)
			}
		})
	}
}

func TestJSONRPCServerAcceptsJSONMediaTypes(t *testing.T) {
	srv := newTestServer(t)
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "application/a2a+json", "application/a2a+json;charset=UTF-8"} {
		t.Run(ct, func(t *testing.T) {
			got := rawCall(t, srv.URL, http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":"x"}}`)
			w := decodeWire(t, got.body)
			if got.status != http.StatusOK || w.Error != nil {
				t.Fatalf("status %d, body %s", got.status, got.body)
			}
		})
	}
}

func TestJSONRPCServerAbsentParams(t *testing.T) {
	srv := newTestServer(t)
	for _, params := range []string{``, `,"params":null`, `,"params":{}`} {
		got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Echo"`+params+`}`)
		w := decodeWire(t, got.body)
		if w.Error != nil {
			t.Errorf("params %q: error %+v", params, w.Error)
		}
	}
}

func TestJSONRPCServerIgnoresUnknownMembers(t *testing.T) {
	srv := newTestServer(t)
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"extra":[1,{"a":"}"}],"method":"Echo","params":{"text":"x","future":{"y":1}}}`)
	w := decodeWire(t, got.body)
	if w.Error != nil {
		t.Fatalf("error %+v", w.Error)
	}
}

// errorInfoOf checks that data holds ProtoJSON Any values and returns the ErrorInfo.
func errorInfoOf(t *testing.T, data []json.RawMessage) *errdetails.ErrorInfo {
	t.Helper()
	var info *errdetails.ErrorInfo
	for _, d := range data {
		var a anypb.Any
		if err := protojson.Unmarshal(d, &a); err != nil {
			t.Fatalf("data element is not a ProtoJSON Any: %v\n%s", err, d)
		}
		m, err := a.UnmarshalNew()
		if err != nil {
			t.Fatalf("data element %s: %v", d, err)
		}
		if ei, ok := m.(*errdetails.ErrorInfo); ok && info == nil {
			info = ei
		}
	}
	if info == nil {
		t.Fatalf("no ErrorInfo in data %s", data)
	}
	if info.GetDomain() != ErrorDomain {
		t.Errorf("ErrorInfo domain %q, want %q", info.GetDomain(), ErrorDomain)
	}
	ts := info.GetMetadata()["timestamp"]
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", ts); err != nil {
		t.Errorf("ErrorInfo timestamp %q is not RFC 3339 UTC with milliseconds: %v", ts, err)
	}
	return info
}

func TestJSONRPCServerErrorData(t *testing.T) {
	srv := newTestServer(t)
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":"r1","method":"Fail","params":{"fail":"TaskNotFound"}}`)
	if got.status != http.StatusOK {
		t.Fatalf("status %d", got.status)
	}
	w := decodeWire(t, got.body)
	if w.Error == nil || w.Error.Code != -32001 || w.Error.Message != "fixture TaskNotFound" || string(w.ID) != `"r1"` {
		t.Fatalf("unexpected response %s", got.body)
	}
	info := errorInfoOf(t, w.Error.Data)
	if info.GetReason() != "TASK_NOT_FOUND" || info.GetMetadata()["taskId"] != "task-1" {
		t.Errorf("ErrorInfo %v", info)
	}
	if len(w.Error.Data) != 2 {
		t.Fatalf("data has %d elements, want ErrorInfo and BadRequest", len(w.Error.Data))
	}
	var a anypb.Any
	if err := protojson.Unmarshal(w.Error.Data[1], &a); err != nil {
		t.Fatal(err)
	}
	var br errdetails.BadRequest
	if err := a.UnmarshalTo(&br); err != nil {
		t.Fatalf("second data element is not a BadRequest: %v", err)
	}
	if v := br.GetFieldViolations(); len(v) != 1 || v[0].GetField() != "message.parts" || v[0].GetDescription() != "must not be empty" {
		t.Errorf("field violations %v", v)
	}
}

func TestJSONRPCServerValidationViolations(t *testing.T) {
	srv := newTestServer(t)
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Send","params":{"message":{"messageId":"m"}}}`)
	w := decodeWire(t, got.body)
	if w.Error == nil || w.Error.Code != -32602 {
		t.Fatalf("want -32602, got %s", got.body)
	}
	var fields []string
	for _, d := range w.Error.Data {
		var a anypb.Any
		var br errdetails.BadRequest
		if protojson.Unmarshal(d, &a) == nil && a.UnmarshalTo(&br) == nil {
			for _, v := range br.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
		}
	}
	joined := strings.Join(fields, ",")
	if !strings.Contains(joined, "message.role") || !strings.Contains(joined, "message.parts") {
		t.Errorf("violations %q, want message.role and message.parts", joined)
	}
}

func TestJSONRPCServerHidesInternalErrors(t *testing.T) {
	logger, logs := newTestLogger()
	srv := newTestServer(t, WithLogger(logger))
	for _, fail := range []string{"plain", "panic", "typed-nil"} {
		got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Fail","params":{"fail":"`+fail+`"}}`)
		w := decodeWire(t, got.body)
		if got.status != http.StatusOK || w.Error == nil || w.Error.Code != -32603 {
			t.Fatalf("%s: want -32603, got %d %s", fail, got.status, got.body)
		}
		if bytes.Contains(got.body, []byte("hunter2")) || bytes.Contains(got.body, []byte("fixture panic")) {
			t.Errorf("%s: the cause leaked to the client: %s", fail, got.body)
		}
	}
	if l := logs.String(); !strings.Contains(l, "hunter2") || !strings.Contains(l, "fixture panic") {
		t.Errorf("causes were not logged:\n%s", l)
	}
	// The server survived the panic.
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"Echo","params":{}}`)
	if w := decodeWire(t, got.body); w.Error != nil {
		t.Errorf("after a panic: %s", got.body)
	}
}

func TestJSONRPCServerDeleteResultIsEmptyObject(t *testing.T) {
	srv := newTestServer(t)
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Delete","params":{}}`)
	w := decodeWire(t, got.body)
	if w.Error != nil || string(bytes.TrimSpace(w.Result)) != "{}" {
		t.Errorf(`want "result":{}, got %s`, got.body)
	}
}

func TestJSONRPCServerEchoesActivatedExtensions(t *testing.T) {
	srv := newTestServer(t)
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"activate":["urn:a","urn:b","urn:a"]}}`)
	if h := got.header.Values("A2A-Extensions"); len(h) != 1 || h[0] != "urn:a,urn:b" {
		t.Errorf("A2A-Extensions %q, want one header urn:a,urn:b", h)
	}
	got = rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{}}`)
	if h := got.header.Values("A2A-Extensions"); len(h) != 0 {
		t.Errorf("A2A-Extensions %q sent although none was activated", h)
	}
}

func TestJSONRPCServerUnsupportedVersion(t *testing.T) {
	srv := newTestServer(t)
	got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{}}`, "A2A-Version", "9.9")
	w := decodeWire(t, got.body)
	if got.status != http.StatusOK || w.Error == nil || w.Error.Code != -32009 || string(w.ID) != "1" {
		t.Fatalf("want -32009 with id 1, got %d %s", got.status, got.body)
	}
}

// sseEvents splits an SSE body into the data of its events, checking that
// each event is exactly one data line followed by a blank line.
func sseEvents(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, ev := range bytes.Split(bytes.TrimSuffix(body, []byte("\n\n")), []byte("\n\n")) {
		if len(ev) == 0 {
			continue
		}
		data, ok := bytes.CutPrefix(ev, []byte("data: "))
		if !ok || bytes.ContainsAny(data, "\r\n") {
			t.Fatalf("event %q is not a single data line", ev)
		}
		out = append(out, data)
	}
	if len(out) > 0 && !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Errorf("the last event is not followed by a blank line: %q", body)
	}
	return out
}

func TestJSONRPCServerStreamWire(t *testing.T) {
	srv := newTestServer(t)
	for _, tc := range []struct {
		name      string
		params    string
		results   int
		errorCode int // of the final error event; 0 for none
	}{
		{"events", `{"count":3,"text":"t"}`, 3, 0},
		{"no events", `{"count":0}`, 0, 0},
		{"error mid-stream", `{"count":3,"fail":"TaskNotCancelable","failAfter":2}`, 2, -32002},
		{"panic mid-stream", `{"count":3,"fail":"panic","failAfter":1}`, 1, -32603},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":"s-1","method":"Stream","params":`+tc.params+`}`)
			if got.status != http.StatusOK {
				t.Fatalf("status %d", got.status)
			}
			for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
				if v := got.header.Get(k); v != want {
					t.Errorf("%s %q, want %q", k, v, want)
				}
			}
			events := sseEvents(t, got.body)
			wantEvents := tc.results
			if tc.errorCode != 0 {
				wantEvents++
			}
			if len(events) != wantEvents {
				t.Fatalf("%d events, want %d:\n%s", len(events), wantEvents, got.body)
			}
			for i, ev := range events {
				w := decodeWire(t, ev)
				if string(w.ID) != `"s-1"` {
					t.Errorf("event %d has id %s", i, w.ID)
				}
				if i < tc.results {
					var res struct{ Seq int }
					if w.Error != nil || json.Unmarshal(w.Result, &res) != nil || res.Seq != i {
						t.Errorf("event %d: %s", i, ev)
					}
					continue
				}
				if w.Error == nil || w.Error.Code != tc.errorCode {
					t.Errorf("final event %s, want error %d", ev, tc.errorCode)
				}
			}
		})
	}
}

func TestJSONRPCServerStreamErrorBeforeFirstEventIsJSON(t *testing.T) {
	srv := newTestServer(t)
	for _, tc := range []struct {
		name, body string
		code       int
	}{
		{"handler fails first", `{"jsonrpc":"2.0","id":7,"method":"Stream","params":{"count":3,"fail":"TaskNotFound","failAfter":0}}`, -32001},
		{"bad params", `{"jsonrpc":"2.0","id":7,"method":"Stream","params":{"count":"x"}}`, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawPost(t, srv.URL, tc.body)
			if got.status != http.StatusOK || got.header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, Content-Type %q", got.status, got.header.Get("Content-Type"))
			}
			w := decodeWire(t, got.body)
			if w.Error == nil || w.Error.Code != tc.code || string(w.ID) != "7" {
				t.Errorf("got %s, want error %d with id 7", got.body, tc.code)
			}
		})
	}
}

func TestJSONRPCServerInterfaceTenantAndRequiredExtensions(t *testing.T) {
	srv := newTestServer(t, WithTenant("acme"), WithRequiredExtensions("urn:must"))
	for _, tc := range []struct {
		name, params, extensions string
		code                     int
		tenant                   string
	}{
		{"tenant filled in", `{}`, "urn:must", 0, "acme"},
		{"same tenant", `{"tenant":"acme"}`, "urn:must", 0, "acme"},
		{"other tenant", `{"tenant":"evil"}`, "urn:must", -32602, ""},
		{"required extension missing", `{}`, "urn:other", -32008, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Echo","params":`+tc.params+`}`, "A2A-Extensions", tc.extensions)
			w := decodeWire(t, got.body)
			if tc.code != 0 {
				if w.Error == nil || w.Error.Code != tc.code || string(w.ID) != "1" {
					t.Errorf("got %s, want error %d with id 1", got.body, tc.code)
				}
				return
			}
			var res struct{ Tenant string }
			if w.Error != nil || json.Unmarshal(w.Result, &res) != nil || res.Tenant != tc.tenant {
				t.Errorf("got %s, want the handler to see tenant %q", got.body, tc.tenant)
			}
		})
	}
}
