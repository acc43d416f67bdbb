package a2av1_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

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
		{"v0.3 message/send", `{"jsonrpc":"2.0","id":3,"method":"message/send","params":{}}`, -32009, "3", "message/send\\\" is A2A 0.3, which this interface does not serve; it serves 1.0"},
		{"v0.3 tasks/get", `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":"x"}}`, -32009, "4", "tasks/get"},
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
}

// TestJSONRPCEarlyStreamErrorFollowsAccept pins how an error that happens
// before the first event of a stream is answered: as one SSE error event in a
// 200 when the client accepts only text/event-stream (what the official Go
// SDK's client reads), else as a plain application/json error response.
func TestJSONRPCEarlyStreamErrorFollowsAccept(t *testing.T) {
	url := serveJSONRPC(t, testagent.New())
	body := `{"jsonrpc":"2.0","id":"s1","method":"SubscribeToTask","params":{"id":"no-such-task"}}`
	for _, tt := range []struct {
		accept, wantType, wantBody string
	}{
		{"text/event-stream", "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"error\":{\"code\":-32001,"},
		{"application/json, text/event-stream", "application/json", "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"error\":{\"code\":-32001,"},
		{"", "application/json", "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"error\":{\"code\":-32001,"},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, tt.wantType) {
			t.Errorf("Accept %q: HTTP %d %s, want 200 %s", tt.accept, resp.StatusCode, ct, tt.wantType)
		}
		if !strings.HasPrefix(string(raw), tt.wantBody) {
			t.Errorf("Accept %q: body %s, want it to start with %s", tt.accept, raw, tt.wantBody)
		}
	}
}
