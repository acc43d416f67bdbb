package a2av03_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// v03ClientError is the JSON-RPC error object as the official Go SDK's
// v0.3 line (a2a-go v0.3.x, internal/jsonrpc) declares it: data is an
// object. Decoding an answer into it fails when data is an array.
type v03ClientError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

type v03ClientResponse struct {
	Error *v03ClientError `json:"error"`
}

// v03Error posts a v0.3 JSON-RPC request and decodes its error the way a
// v0.3 client does; a streaming call's error is read from its SSE event.
func v03Error(t *testing.T, url, method string, params any, header ...string) *v03ClientError {
	t.Helper()
	resp := post(t, url, method, params, header...)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		raw = nil
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raw = []byte(d)
				break
			}
		}
	}
	var out v03ClientResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: a v0.3 client cannot decode the answer %s: %v", method, raw, err)
	}
	if out.Error == nil {
		t.Fatalf("%s: no error in %s", method, raw)
	}
	return out.Error
}

// TestV03JSONRPCErrorDataIsAnObject pins the v0.3 form of JSON-RPC errors:
// for a request without A2A-Version (the v0.3 line's clients) error.data is
// an object (the google.rpc.ErrorInfo), which the Go SDK's v0.3 client
// decodes into map[string]any, for every error such a client meets; a
// request naming A2A-Version 0.3 and the v1.0 methods keep the array.
func TestV03JSONRPCErrorDataIsAnObject(t *testing.T) {
	d := newDual(t)
	done := decode[struct {
		ID string `json:"id"`
	}](t, mustResult(t, call(t, d.jsonrpc, "message/send", map[string]any{"message": userMessage03("hello")})))

	unknown := userMessage03("hello")
	unknown["taskId"] = "no-such-task"
	cases := []struct {
		name, method string
		params       any
		header       []string
		code         int
		reason       string
	}{
		{"tasks/get unknown", "tasks/get", map[string]any{"id": "no-such-task"}, nil, -32001, "TASK_NOT_FOUND"},
		{"tasks/cancel unknown", "tasks/cancel", map[string]any{"id": "no-such-task"}, nil, -32001, "TASK_NOT_FOUND"},
		{"tasks/resubscribe unknown", "tasks/resubscribe", map[string]any{"id": "no-such-task"}, []string{"Accept", "text/event-stream"}, -32001, "TASK_NOT_FOUND"},
		{"tasks/resubscribe unknown, JSON", "tasks/resubscribe", map[string]any{"id": "no-such-task"}, nil, -32001, "TASK_NOT_FOUND"},
		{"message/send unknown taskId", "message/send", map[string]any{"message": unknown}, nil, -32001, "TASK_NOT_FOUND"},
		{"message/stream unknown taskId", "message/stream", map[string]any{"message": unknown}, []string{"Accept", "text/event-stream"}, -32001, "TASK_NOT_FOUND"},
		{"tasks/cancel completed", "tasks/cancel", map[string]any{"id": done.ID}, nil, -32002, "TASK_NOT_CANCELABLE"},
		{"push config get unknown task", "tasks/pushNotificationConfig/get", map[string]any{"id": "no-such-task"}, nil, -32001, "TASK_NOT_FOUND"},
		{"push config get unknown task, by id", "tasks/pushNotificationConfig/get", map[string]any{"id": "no-such-task", "pushNotificationConfigId": "c"}, nil, -32001, "TASK_NOT_FOUND"},
		{"invalid params", "tasks/get", map[string]any{"id": 7}, nil, -32602, "INVALID_PARAMS"},
		{"unknown method", "tasks/frobnicate", map[string]any{}, nil, -32601, "METHOD_NOT_FOUND"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := v03Error(t, d.jsonrpc, c.method, c.params, c.header...)
			if e.Code != c.code || e.Message == "" {
				t.Fatalf("error %d %q, want code %d", e.Code, e.Message, c.code)
			}
			if e.Data["@type"] != "type.googleapis.com/google.rpc.ErrorInfo" || e.Data["reason"] != c.reason || e.Data["domain"] != "a2a-protocol.org" {
				t.Fatalf("data %v, want the ErrorInfo of %s", e.Data, c.reason)
			}
		})
	}

	// A request naming A2A-Version 0.3 comes from a client of the v1.0
	// generation speaking v0.3 (the Go SDK v2's a2av0, which decodes data
	// as []*errordetails.Typed): it keeps the array, with the v0.3 code.
	for _, method := range []string{"tasks/get", "tasks/frobnicate"} {
		named := call(t, d.jsonrpc, method, map[string]any{"id": "no-such-task"}, "A2A-Version", "0.3")
		if named.Error == nil || len(named.Error.Data) == 0 || named.Error.Data[0] != '[' {
			t.Fatalf("%s naming A2A-Version 0.3: error %+v, want the array of details", method, named.Error)
		}
	}

	// An error that shows no version (a parse error) for a request without
	// A2A-Version keeps the service's own form: it may be a v1.0 client's.
	parse, err := http.Post(d.jsonrpc, "application/json", strings.NewReader(`{"jsonrpc":`))
	if err != nil {
		t.Fatal(err)
	}
	var parsed rpcResponse
	if err := json.NewDecoder(parse.Body).Decode(&parsed); err != nil || parsed.Error == nil || parsed.Error.Data[0] != '[' {
		t.Fatalf("parse error without A2A-Version: %+v (%v), want the array of details", parsed.Error, err)
	}
	parse.Body.Close()

	// The v1.0 surface keeps the array of details.
	resp := call(t, d.jsonrpc, "GetTask", map[string]any{"id": "no-such-task"}, "A2A-Version", "1.0")
	if resp.Error == nil || len(resp.Error.Data) == 0 || resp.Error.Data[0] != '[' {
		t.Fatalf("v1.0 GetTask error %+v: data is not the array of details", resp.Error)
	}
	// So does an unknown method of a request naming v1.0.
	resp = call(t, d.jsonrpc, "NoSuchMethod", map[string]any{}, "A2A-Version", "1.0")
	if resp.Error == nil || len(resp.Error.Data) == 0 || resp.Error.Data[0] != '[' {
		t.Fatalf("v1.0 unknown method error %+v: data is not the array of details", resp.Error)
	}
}

// restErrorBodyJS is what the JS SDK 1.3's v0.3 REST client reads of an
// error body (LegacyRestTransport._isLegacyRestErrorBody): a numeric
// top-level code and a string message, the code mapped by its JSON-RPC value.
type restErrorBodyJS struct {
	Code    *float64 `json:"code"`
	Message *string  `json:"message"`
}

// restErrorBodyGo is what the Go SDK ≥ 2.4 reads (internal/rest.FromRESTError):
// the google.rpc.Status under "error", the A2A error named by the reason of
// its ErrorInfo of domain a2a-protocol.org.
type restErrorBodyGo struct {
	Error struct {
		Code    int               `json:"code"`
		Status  string            `json:"status"`
		Message string            `json:"message"`
		Details []json.RawMessage `json:"details"`
	} `json:"error"`
}

// TestV03RESTErrorBodyServesBothClients pins the v0.3 HTTP+JSON error body:
// one document carrying the JSON-RPC code and message at the top level (the
// JS SDK's reading) and the google.rpc.Status under "error" (the Go SDK's),
// at the plain path and under /v1; the v1.0 routes keep the Status alone.
func TestV03RESTErrorBodyServesBothClients(t *testing.T) {
	d := newDual(t)
	for _, c := range []struct {
		name, method, url string
		header            []string
		status, code      int
		reason            string
	}{
		{"GET /v1/tasks/{id}", "GET", d.rest + "/v1/tasks/no-such-task", nil, 404, -32001, "TASK_NOT_FOUND"},
		{"POST /v1/tasks/{id}:cancel", "POST", d.rest + "/v1/tasks/no-such-task:cancel", nil, 404, -32001, "TASK_NOT_FOUND"},
		{"GET /v1/tasks/{id}:subscribe", "GET", d.rest + "/v1/tasks/no-such-task:subscribe", []string{"Accept", "text/event-stream"}, 404, -32001, "TASK_NOT_FOUND"},
		{"GET push config", "GET", d.rest + "/v1/tasks/no-such-task/pushNotificationConfigs/c", nil, 404, -32001, "TASK_NOT_FOUND"},
		{"plain path", "GET", d.rest + "/tasks/no-such-task", []string{"A2A-Version", "0.3"}, 404, -32001, "TASK_NOT_FOUND"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := restCall(t, c.method, c.url, nil, c.header...)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, body)
			}
			var js restErrorBodyJS
			if err := json.Unmarshal(body, &js); err != nil || js.Code == nil || js.Message == nil || int(*js.Code) != c.code || *js.Message == "" {
				t.Fatalf("the JS SDK reads no code %d and message from %s (%v)", c.code, body, err)
			}
			var gosdk restErrorBodyGo
			if err := json.Unmarshal(body, &gosdk); err != nil || gosdk.Error.Code != c.status || len(gosdk.Error.Details) == 0 {
				t.Fatalf("the Go SDK reads no Status from %s (%v)", body, err)
			}
			var info struct {
				Type   string `json:"@type"`
				Reason string `json:"reason"`
				Domain string `json:"domain"`
			}
			if err := json.Unmarshal(gosdk.Error.Details[0], &info); err != nil ||
				info.Type != "type.googleapis.com/google.rpc.ErrorInfo" || info.Reason != c.reason || info.Domain != "a2a-protocol.org" {
				t.Fatalf("the Go SDK reads no ErrorInfo %s from %s", c.reason, body)
			}
		})
	}
	// The v1.0 route keeps the Status document alone.
	status, body := restCall(t, "GET", d.rest+"/tasks/no-such-task", nil, "A2A-Version", "1.0")
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || status != 404 || len(top) != 1 || top["error"] == nil {
		t.Fatalf("v1.0 GetTask error %d %s: not the Status document alone", status, body)
	}
}
