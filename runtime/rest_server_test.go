package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// serveRESTFixture starts the REST handler of the fixture service on a
// loopback socket and returns its URL.
func serveRESTFixture(t *testing.T, opts ...HandlerOption) string {
	t.Helper()
	srv := httptest.NewServer(NewRESTHandler(newRESTTestService(nil), append([]HandlerOption{WithLogger(slogDiscard())}, opts...)...))
	t.Cleanup(srv.Close)
	return srv.URL
}

// restDo sends one raw request; header holds name, value pairs.
func restDo(t *testing.T, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

func TestRESTHandlerBinding(t *testing.T) {
	base := serveRESTFixture(t)
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		want                     string // JSON the response must equal (compact), or a substring with prefix "~"
	}{
		{"path variable", "GET", "/echo/hi", "", nil, 200, `{"text":"hi","version":"1.0"}`},
		{"decoded path variable", "GET", "/echo/a%2Fb%3Ac%20d", "", nil, 200, `{"text":"a/b:c d","version":"1.0"}`},
		{"tenant route", "GET", "/acme/echo/hi", "", nil, 200, `{"text":"hi","tenant":"acme","version":"1.0"}`},
		{"query fields", "GET", "/echo/hi?count=3&activate=x&activate=y,z&unknown=1", "", nil, 200, `{"text":"hi","version":"1.0"}`},
		{"path wins over query", "GET", "/echo/hi?text=other", "", nil, 200, `{"text":"hi","version":"1.0"}`},
		{"body star", "POST", "/echo", `{"text":"b","tenant":"t"}`, []string{"Content-Type", "application/json"}, 200, `{"text":"b","tenant":"t","version":"1.0"}`},
		{"snake_case and unknown members", "POST", "/echo", `{"text":"b","fail_after":1,"nope":true}`, []string{"Content-Type", "application/json"}, 200, `{"text":"b","version":"1.0"}`},
		{"empty body", "POST", "/echo", "", nil, 200, `{"version":"1.0"}`},
		// A body without Content-Type (a browser sends it cross-site with no
		// CORS preflight) or with a form type is refused (issue 13, CSRF).
		{"body without content type", "POST", "/echo", `{"text":"b"}`, nil, 415, `~"message":"the request body has no Content-Type; send application/json or application/a2a+json"`},
		{"text/plain body", "POST", "/echo", `{"text":"b"}`, []string{"Content-Type", "text/plain"}, 415, `~"code":415`},
		{"form body", "POST", "/echo", `text=b`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, `~"reason":"INVALID_REQUEST"`},
		{"null body", "POST", "/echo", "null", []string{"Content-Type", "application/json"}, 200, `{"version":"1.0"}`},
		{"a2a+json body with charset", "POST", "/echo", `{}`, []string{"Content-Type", "application/a2a+json; charset=utf-8"}, 200, `{"version":"1.0"}`},
		{"body field and nested path variable", "PUT", "/messages/m-9", `{"messageId":"ignored","role":"ROLE_USER","parts":[{"text":"x"}]}`, []string{"Content-Type", "application/json"}, 200,
			`{"text":"ok","message":{"messageId":"m-9","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`},
		{"body field null", "PUT", "/messages/m-9", `null`, []string{"Content-Type", "application/json"}, 400, `~message.role`},
		{"non-string path variable", "GET", "/count/12", "", nil, 200, `{"version":"1.0"}`},
		{"bad non-string path variable", "GET", "/count/x", "", nil, 400, `~count`},
		// A lone surrogate escape is named, not "unexpected EOF" (issue 26).
		{"lone surrogate", "POST", "/echo", `{"text":"a\ud800b"}`, []string{"Content-Type", "application/json"}, 400, `~the string escape \\ud800 at byte 10 is a UTF-16 surrogate without its pair`},
		{"lone low surrogate", "POST", "/echo", `{"text":"\udc00"}`, []string{"Content-Type", "application/json"}, 400, `~\\udc00 at byte 9`},
		{"surrogate pair", "POST", "/echo", `{"text":"\ud83d\ude00"}`, []string{"Content-Type", "application/json"}, 200, `{"text":"😀","version":"1.0"}`},
		{"delete answers {}", "DELETE", "/items/x", "", nil, 200, `{}`},
		{"version from the query", "GET", "/echo/hi?A2A-Version=1.0.1", "", nil, 200, `{"text":"hi","version":"1.0"}`},
		{"unsupported version from the query", "GET", "/echo/hi?A2A-Version=2.0", "", nil, 400, `~VERSION_NOT_SUPPORTED`},
		{"header beats query", "GET", "/echo/hi?A2A-Version=2.0", "", []string{"A2A-Version", "1.0"}, 200, `{"text":"hi","version":"1.0"}`},
		{"handler error text not sent", "GET", "/fail/plain", "", nil, 500, `~"status":"INTERNAL"`},
		{"panic is internal", "GET", "/fail/panic", "", nil, 500, `~"message":"internal error"`},
		{"typed error", "GET", "/fail/TaskNotCancelable", "", nil, 400, `~"reason":"TASK_NOT_CANCELABLE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, raw := restDo(t, tt.method, base+tt.path, tt.body, tt.header...)
			if resp.StatusCode != tt.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, tt.status, raw)
			}
			if resp.StatusCode == http.StatusUnsupportedMediaType && resp.Header.Get("Accept") != "application/json, application/a2a+json" {
				t.Errorf("415 with Accept %q, want the accepted media types", resp.Header.Get("Accept"))
			}
			if want, ok := strings.CutPrefix(tt.want, "~"); ok {
				if !bytes.Contains(raw, []byte(want)) {
					t.Errorf("body %s does not contain %s", raw, want)
				}
			} else if got := compactJSON(t, raw); got != tt.want {
				t.Errorf("body = %s, want %s", got, tt.want)
			}
			if bytes.Contains(raw, []byte("hunter2")) {
				t.Errorf("handler error text leaked: %s", raw)
			}
		})
	}
}

func TestRESTHandlerEchoesActivatedExtensions(t *testing.T) {
	base := serveRESTFixture(t)
	resp, raw := restDo(t, "GET", base+"/echo/hi?activate=https://e.example/a,https://e.example/b", "",
		"A2A-Extensions", "https://e.example/a, https://e.example/c")
	if resp.StatusCode != 200 || !strings.Contains(compactJSON(t, raw), `"extensions":["https://e.example/a","https://e.example/c"]`) {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, raw)
	}
	if got := resp.Header.Get("A2A-Extensions"); got != "https://e.example/a,https://e.example/b" {
		t.Errorf("A2A-Extensions = %q", got)
	}
}

func TestRESTHandlerTenant(t *testing.T) {
	base := serveRESTFixture(t, WithTenant("acme"))
	for path, want := range map[string]string{
		"/echo/hi":       `"tenant":"acme"`,
		"/acme/echo/hi":  `"tenant":"acme"`,
		"/other/echo/hi": `"field":"tenant"`,
	} {
		resp, raw := restDo(t, "GET", base+path, "")
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("GET %s: HTTP %d %s, want %s", path, resp.StatusCode, raw, want)
		}
		if path == "/other/echo/hi" && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: HTTP %d, want 400", path, resp.StatusCode)
		}
	}
}

func TestRESTHandlerStreams(t *testing.T) {
	base := serveRESTFixture(t)
	resp, raw := restDo(t, "POST", base+"/stream", `{"count":3,"text":"x"}`, "Accept", "text/event-stream", "Content-Type", "application/json")
	events := sseEvents(t, raw)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || len(events) != 3 {
		t.Fatalf("HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	if compactJSON(t, events[0]) != `{"text":"x"}` || compactJSON(t, events[2]) != `{"text":"x","seq":2}` {
		t.Errorf("events are not bare responses: %q", events)
	}

	resp, raw = restDo(t, "GET", base+"/stream:watch?count=3&fail=TaskNotFound&failAfter=1", "")
	events = sseEvents(t, raw)
	if resp.StatusCode != 200 || len(events) != 2 {
		t.Fatalf("mid-stream failure: HTTP %d: %s", resp.StatusCode, raw)
	}
	var last statusDocument
	if err := json.Unmarshal(events[1], &last); err != nil || last.Error.Code != 404 || last.Error.Status != "NOT_FOUND" {
		t.Errorf("final event %s, want {\"error\":{Status 404 NOT_FOUND}} (%v)", events[1], err)
	}

	resp, raw = restDo(t, "GET", base+"/stream:watch?count=3&fail=Unauthenticated&failAfter=0", "", "Accept", "text/event-stream")
	if resp.StatusCode != 401 || resp.Header.Get("Content-Type") != "application/json" || !bytes.Contains(raw, []byte(`"status":"UNAUTHENTICATED"`)) {
		t.Errorf("pre-stream failure: HTTP %d %s: %s; want a plain 401 Status response", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}

	resp, raw = restDo(t, "GET", base+"/stream:watch?count=0", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || len(raw) != 0 {
		t.Errorf("empty stream: HTTP %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
}

// TestRESTRouterSkipsBadRules checks that rules that do not fit the request
// message, or repeat a route, are logged and left out, and the rest served.
func TestRESTRouterSkipsBadRules(t *testing.T) {
	svc := newRESTTestService(nil)
	desc := *svc.Desc
	desc.Operations = append([]Operation(nil), desc.Operations...)
	echo := &desc.Operations[0]
	echo.HTTPRules = append(append([]HTTPRule(nil), echo.HTTPRules...),
		HTTPRule{Method: "GET", Path: "/nope/{missing}"},
		HTTPRule{Method: "GET", Path: "/old/{text"}, // does not parse
		HTTPRule{Method: "TRACE", Path: "/trace"},
		HTTPRule{Method: "GET", Path: "/fail/{text}"},
	)
	eps := make([]*Endpoint, len(svc.Endpoints))
	for i, ep := range svc.Endpoints {
		c := *ep
		c.Operation = &desc.Operations[i]
		eps[i] = &c
	}
	logger, logs := newTestLogger()
	srv := httptest.NewServer(NewRESTHandler(NewService(&desc, eps...), WithLogger(logger)))
	defer srv.Close()
	for _, want := range []string{"/nope/{missing}", `/old/{text\": unbalanced`, "TRACE", "route already taken"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log does not mention %s:\n%s", want, logs.String())
		}
	}
	if resp, raw := restDo(t, "GET", srv.URL+"/echo/hi", ""); resp.StatusCode != 200 {
		t.Errorf("the good rules are not served: HTTP %d %s", resp.StatusCode, raw)
	}
	// Echo is declared before Fail, so its extra rule takes GET /fail/{…}.
	if resp, raw := restDo(t, "GET", srv.URL+"/fail/TaskNotFound", ""); resp.StatusCode != 200 || !bytes.Contains(raw, []byte(`"TaskNotFound"`)) {
		t.Errorf("the rule declared first must keep the route: HTTP %d %s", resp.StatusCode, raw)
	}
	if !strings.Contains(logs.String(), "servedBy=Echo") {
		t.Errorf("the log does not name the operation keeping the route:\n%s", logs.String())
	}
}

func TestResponseMediaType(t *testing.T) {
	for accept, want := range map[string]string{
		"":                                      mediaTypeJSON,
		"application/json":                      mediaTypeJSON,
		"*/*":                                   mediaTypeJSON,
		"application/a2a+json":                  mediaTypeA2AJSON,
		"text/html, Application/A2A+JSON;q=0.9": mediaTypeA2AJSON,
		"application/a2a+json;q=0":              mediaTypeJSON,
		"application/a2a+json; q=0.0, application/json": mediaTypeJSON,
		"application/a2a+json;level=1":                  mediaTypeA2AJSON,
	} {
		if got := responseMediaType(accept); got != want {
			t.Errorf("responseMediaType(%q) = %q, want %q", accept, got, want)
		}
	}
}
