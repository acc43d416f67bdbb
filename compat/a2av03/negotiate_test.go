package a2av03_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestV03VersionNegotiation: the wire form decides the version of a
// request without A2A-Version; a header that contradicts the form, or
// names a version the interface does not serve, is VersionNotSupported
// naming both served versions; patch versions are ignored.
func TestV03VersionNegotiation(t *testing.T) {
	d := newDual(t)
	strict := newDual(t, runtime.WithVersionPolicy(runtime.VersionStrict))
	v03send := map[string]any{"message": userMessage03("hello")}
	v1send := map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello"}}}}
	tests := []struct {
		name     string
		url      string
		method   string
		params   any
		header   []string
		wantCode int // 0: a result
		wantText string
	}{
		{"v0.3 without header", d.jsonrpc, "message/send", v03send, nil, 0, ""},
		{"v0.3 with 0.3", d.jsonrpc, "message/send", v03send, []string{"A2A-Version", "0.3"}, 0, ""},
		{"v0.3 with patch 0.3.0", d.jsonrpc, "message/send", v03send, []string{"A2A-Version", "0.3.0"}, 0, ""},
		{"v0.3 with 1.0", d.jsonrpc, "message/send", v03send, []string{"A2A-Version", "1.0"}, -32009, `A2A-Version 1.0 does not match method "message/send", which is A2A 0.3; this interface serves 1.0, 0.3`},
		{"v0.3 with 0.2", d.jsonrpc, "message/send", v03send, []string{"A2A-Version", "0.2"}, -32009, "serves 1.0, 0.3"},
		{"v1.0 without header", d.jsonrpc, "SendMessage", v1send, nil, 0, ""},
		{"v1.0 with 1.0.1", d.jsonrpc, "SendMessage", v1send, []string{"A2A-Version", "1.0.1"}, 0, ""},
		{"v1.0 with 0.3", d.jsonrpc, "SendMessage", v1send, []string{"A2A-Version", "0.3"}, -32009, "A2A-Version 0.3 does not match the request, which is in the A2A 1.0 form"},
		{"v1.0 with 2.0", d.jsonrpc, "SendMessage", v1send, []string{"A2A-Version", "2.0"}, -32009, "2.0"},
		{"strict v1.0 without header", strict.jsonrpc, "SendMessage", v1send, nil, -32009, "no A2A-Version was sent, which means 0.3"},
		{"strict v0.3 without header", strict.jsonrpc, "message/send", v03send, nil, 0, ""},
		{"v1.0 body under message/send", d.jsonrpc, "message/send", v1send, nil, -32602, "message.kind"},
		{"v0.3 body under SendMessage", d.jsonrpc, "SendMessage", v03send, nil, -32602, "role"},
		{"v0.3 role spelled v1.0", d.jsonrpc, "message/send", map[string]any{"message": map[string]any{"kind": "message", "messageId": "m", "role": "ROLE_USER",
			"parts": []any{map[string]any{"kind": "text", "text": "x"}}}}, nil, -32602, "message.role"},
		{"wrong JSON type", d.jsonrpc, "tasks/get", map[string]any{"id": 7}, nil, -32602, "id: must be a JSON string"},
		{"missing id", d.jsonrpc, "tasks/get", map[string]any{}, nil, -32602, "id: missing"},
		{"unknown task, v0.3 code", d.jsonrpc, "tasks/get", map[string]any{"id": "nope"}, nil, -32001, ""},
		{"delete without config id", d.jsonrpc, "tasks/pushNotificationConfig/delete", map[string]any{"id": "t"}, nil, -32602, "pushNotificationConfigId"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tc.url, tc.method, tc.params, tc.header...)
			switch {
			case tc.wantCode == 0 && r.Error != nil:
				t.Fatalf("error %d %s, want a result", r.Error.Code, r.Error.Message)
			case tc.wantCode == 0:
				return
			case r.Error == nil:
				t.Fatalf("result %s, want error %d", r.Result, tc.wantCode)
			case r.Error.Code != tc.wantCode || !strings.Contains(r.Error.Message, tc.wantText):
				t.Fatalf("error %d %q, want %d containing %q", r.Error.Code, r.Error.Message, tc.wantCode, tc.wantText)
			}
			if tc.wantCode == -32009 && !strings.Contains(string(r.Error.Data), `"supportedVersions":"1.0,0.3"`) {
				t.Fatalf("VersionNotSupported data %s does not name both versions", r.Error.Data)
			}
		})
	}
}

// TestV03MethodOnV1OnlyAgent: without the adapter, a v0.3 method is
// VersionNotSupported naming 1.0 alone.
func TestV03MethodOnV1OnlyAgent(t *testing.T) {
	srv, err := server.New(echo.Card(), &echo.Agent{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	hs := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(srv))
	t.Cleanup(hs.Close)
	r := call(t, hs.URL, "message/send", map[string]any{"message": userMessage03("hello")})
	if r.Error == nil || r.Error.Code != -32009 || !strings.Contains(string(r.Error.Data), `"supportedVersions":"1.0"`) {
		t.Fatalf("v0.3 method on a v1.0-only agent: %+v", r.Error)
	}
}

// TestV03ErrorCodes: errors a v0.3 client does not know are answered with
// a v0.3 code and keep their message; the others keep theirs.
func TestV03ErrorCodes(t *testing.T) {
	d := newDual(t, runtime.WithRequiredExtensions("urn:x"))
	r := call(t, d.jsonrpc, "tasks/get", map[string]any{"id": "nope"})
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "urn:x") {
		t.Fatalf("ExtensionSupportRequired to a v0.3 client: %+v", r.Error)
	}
	// The v0.3 extensions header activates it.
	r = call(t, d.jsonrpc, "tasks/get", map[string]any{"id": "nope"}, "X-A2A-Extensions", "urn:x")
	if r.Error == nil || r.Error.Code != -32001 {
		t.Fatalf("with X-A2A-Extensions: %+v", r.Error)
	}
	// A v1.0 client still sees -32008.
	r = call(t, d.jsonrpc, "GetTask", map[string]any{"id": "nope"})
	if r.Error == nil || r.Error.Code != -32008 {
		t.Fatalf("ExtensionSupportRequired to a v1.0 client: %+v", r.Error)
	}
	_ = json.Valid
	_ = http.MethodPost
}
