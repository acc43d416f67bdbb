package a2av03_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// FuzzV03Decode feeds arbitrary JSON to the decoders of v0.3 input (results
// and stream events a v0.3 agent sends, message/send params a v0.3 client
// sends): they never panic, fail only with InvalidParams, and what they
// accept converts back to v0.3.
func FuzzV03Decode(f *testing.F) {
	for _, s := range []string{
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"working","timestamp":"2026-12-01T10:00:00Z"}}`,
		`{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"file","file":{"bytes":"aGk=","name":"x"}},{"kind":"data","data":{"a":1}}]}`,
		`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`,
		`{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":""}]},"append":true}`,
		`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":false,"pushNotificationConfig":{"url":"https://h","authentication":{"schemes":[]}}}}`,
		`{"kind":"task","status":{"state":"TASK_STATE_WORKING"}}`, `[]`, `null`, `{"kind":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if ev, err := a2av03.EventToV1(data, "result"); err != nil {
			if !errors.Is(err, runtime.ErrInvalidParams) {
				t.Fatalf("EventToV1: %v, want InvalidParams", err)
			}
		} else if _, err := a2av03.EventFromV1(ev); err != nil && ev.GetPayload() != nil {
			t.Fatalf("an accepted event does not convert back: %v", err)
		}
		var p a2av03.MessageSendParams
		if json.Unmarshal(data, &p) != nil {
			return
		}
		if req, err := a2av03.SendParamsToV1(&p); err != nil {
			if !errors.Is(err, runtime.ErrInvalidParams) {
				t.Fatalf("SendParamsToV1: %v, want InvalidParams", err)
			}
		} else if _, err := a2av03.SendParamsFromV1(req); err != nil {
			t.Fatalf("accepted params do not convert back: %v", err)
		}
	})
}

// FuzzV03ReadCard feeds arbitrary documents to the v0.3 card reader (what
// agentcard.Discover reads from the network): it never panics, and a card
// it accepts that lists v0.3 interfaces is written back (CardJSON, the dual
// card) and read again with the same interfaces, security schemes and
// requirements.
func FuzzV03ReadCard(f *testing.F) {
	for _, s := range []string{
		`{"protocolVersion":"0.3.0","name":"a","url":"http://h/a2a","preferredTransport":"HTTP+JSON",
		  "additionalInterfaces":[{"url":"http://h/a2a","transport":"HTTP+JSON"},{"url":"h:1","transport":"GRPC"},{"url":"http://h/j"}],
		  "capabilities":{"streaming":true},"supportsAuthenticatedExtendedCard":true,
		  "securitySchemes":{"b":{"type":"http","scheme":"bearer"},"k":{"type":"apiKey","in":"header","name":"X"},
		    "o":{"type":"oauth2","flows":{"password":{"tokenUrl":"http://h/t","scopes":{"r":"read"}}}},
		    "i":{"type":"openIdConnect","openIdConnectUrl":"http://h/oidc"},"m":{"type":"mutualTLS"}},
		  "security":[{"b":[]},{"o":["r"]}],"skills":[{"id":"s","name":"S","description":"d","tags":[],"security":[{"k":[]}]}]}`,
		`{"url":"http://h","securitySchemes":{"x":{"type":"saml"}}}`,
		`{"url":"http://h","protocolVersion":"1.0"}`, `{"url":7}`, `{}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		_ = a2av03.IsV03Card(doc)
		card, err := a2av03.ReadCard(doc)
		if err != nil {
			return
		}
		ifaces := card.GetSupportedInterfaces()
		if len(ifaces) == 0 {
			return
		}
		for _, i := range ifaces {
			if v, _ := runtime.ParseVersion(i.GetProtocolVersion()); v != a2av03.Version {
				return // CardJSON writes the v0.3 members from the 0.3 interfaces only
			}
		}
		out, err := a2av03.CardJSON(card)
		if err != nil {
			t.Fatalf("an accepted card does not write back: %v", err)
		}
		again, err := a2av03.ReadCard(out)
		if err != nil {
			t.Fatalf("the written card %s does not read back: %v", out, err)
		}
		// The version is written as 0.3.0 whatever the card said (or
		// implied by saying nothing).
		for _, i := range append(slices.Clone(ifaces), again.GetSupportedInterfaces()...) {
			i.ProtocolVersion, _ = runtime.ParseVersion(i.GetProtocolVersion())
		}
		for _, c := range []struct {
			what      string
			got, want proto.Message
		}{
			{"supportedInterfaces", &a2av1.AgentCard{SupportedInterfaces: again.GetSupportedInterfaces()}, &a2av1.AgentCard{SupportedInterfaces: ifaces}},
			{"securitySchemes", &a2av1.AgentCard{SecuritySchemes: again.GetSecuritySchemes()}, &a2av1.AgentCard{SecuritySchemes: card.GetSecuritySchemes()}},
			{"securityRequirements", &a2av1.AgentCard{SecurityRequirements: again.GetSecurityRequirements()}, &a2av1.AgentCard{SecurityRequirements: card.GetSecurityRequirements()}},
		} {
			if !proto.Equal(c.got, c.want) {
				t.Fatalf("%s changed through CardJSON: %v, then %v (card %s)", c.what, c.want, c.got, out)
			}
		}
	})
}

// answerTransport answers every request with one scripted HTTP response,
// in memory: status, body and, for streams, an SSE Content-Type. "$ID" in
// the body becomes the JSON-RPC id of the request.
type answerTransport struct {
	status int
	body   []byte
	sse    bool
}

func (a answerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body := a.body
	if r.Body != nil {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		raw, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if json.Unmarshal(raw, &req) == nil && len(req.ID) > 0 {
			body = bytes.ReplaceAll(body, []byte("$ID"), req.ID)
		}
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if a.sse && r.Header.Get("Accept") == "text/event-stream" {
		h.Set("Content-Type", "text/event-stream")
	}
	return &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Header: h,
		Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// FuzzV03ClientAnswers feeds arbitrary answers to the v0.3 client
// transports (JSON-RPC and HTTP+JSON) through the typed v1.0 client: a
// unary result, an error body, or an SSE stream. They never panic, every
// failure is a *runtime.Error (no transport fails here), and what they
// accept converts back to the v0.3 shapes.
func FuzzV03ClientAnswers(f *testing.F) {
	const task = `{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}]}`
	const cfg = `{"taskId":"t","pushNotificationConfig":{"id":"p","url":"http://h/hook","authentication":{"schemes":["Bearer"]}}}`
	for _, s := range []struct {
		status int
		sse    bool
		body   string
	}{
		{200, false, `{"jsonrpc":"2.0","id":$ID,"result":` + task + `}`},
		{200, false, `{"jsonrpc":"2.0","id":$ID,"result":[` + cfg + `]}`},
		{200, false, `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32001,"message":"Task not found"}}`},
		{200, true, "data: {\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"working\"},\"final\":false}}\n\n"},
		{200, false, task},
		{200, false, cfg},
		{200, false, `[` + cfg + `]`},
		{200, false, `{"task_id":"t","push_notification_config":{"url":"http://h"}}`},
		{200, false, `{"protocolVersion":"0.3.0","name":"a","url":"http://h/a2a"}`},
		{404, false, `{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`},
		{200, true, "data: " + task + "\n\ndata: {\"error\":{\"code\":500,\"status\":\"INTERNAL\",\"message\":\"x\"}}\n\n"},
		{500, false, `oops`},
		// ProtoJSON of the v0.3 proto (the JS SDK's and the Go SDK ≥ 2.4's servers).
		{200, false, `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"x"}]}]}}`},
		{200, false, `{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","content":[{"data":{"data":{}}}]}}}`},
		{200, false, `{"name":"tasks/t/pushNotificationConfigs/p","pushNotificationConfig":{"id":"p","url":"http://h/hook"}}`},
		{200, false, `{"configs":[{"name":"tasks/t/pushNotificationConfigs/p","pushNotificationConfig":{"url":"http://h"}}]}`},
		{200, true, "data: {\"statusUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\nevent: error\ndata: {\"code\":-32001,\"message\":\"no\",\"error\":{\"code\":404,\"status\":\"NOT_FOUND\",\"message\":\"no\"}}\n\n"},
	} {
		f.Add(uint16(s.status), s.sse, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status uint16, sse bool, body []byte) {
		code := 200
		if status >= 100 && status <= 599 {
			code = int(status)
		}
		hc := &http.Client{Transport: answerTransport{status: code, body: body, sse: sse}}
		ctx := context.Background()
		for name, tr := range map[string]runtime.ClientTransport{
			"JSON-RPC":  a2av03.NewJSONRPCClientTransport("http://agent.test/jsonrpc", runtime.WithHTTPClient(hc)),
			"HTTP+JSON": a2av03.NewRESTClientTransport("http://agent.test/rest", runtime.WithHTTPClient(hc)),
		} {
			c := a2av1.NewA2AServiceClient(tr)
			typed := func(op string, err error) bool {
				t.Helper()
				var e *runtime.Error
				if err != nil && !errors.As(err, &e) {
					t.Fatalf("%s %s: %T %v, want a *runtime.Error", name, op, err, err)
				}
				return err == nil
			}
			if r, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("x"))); typed("SendMessage", err) {
				if _, err := a2av03.SendResultFromV1(r); err != nil && r.GetPayload() != nil {
					t.Fatalf("%s: an accepted SendMessage result does not convert back: %v", name, err)
				}
			}
			if task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t"}); typed("GetTask", err) {
				if _, err := a2av03.TaskFromV1(task); err != nil {
					t.Fatalf("%s: an accepted task does not convert back: %v", name, err)
				}
			}
			if cfg, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: "t", Id: "p"}); typed("GetTaskPushNotificationConfig", err) {
				if got := a2av03.PushConfigFromV1(cfg); got.TaskID != cfg.GetTaskId() {
					t.Fatalf("%s: push config %v written back as %+v", name, cfg, got)
				}
			}
			if list, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: "t"}); typed("ListTaskPushNotificationConfigs", err) {
				if got := a2av03.PushConfigListFromV1(list); len(got) != len(list.GetConfigs()) {
					t.Fatalf("%s: push config list %v written back as %v", name, list, got)
				}
			}
			_, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
			typed("GetExtendedAgentCard", err)
			for e, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("x"))) {
				if !typed("SendStreamingMessage", err) {
					break
				}
				if _, err := a2av03.EventFromV1(e); err != nil && e.GetPayload() != nil {
					t.Fatalf("%s: an accepted event does not convert back: %v", name, err)
				}
			}
		}
	})
}

// FuzzV03RESTBody feeds arbitrary bodies to the decoders of the v0.3
// HTTP+JSON routes that read one (message:send, message:stream, cancel,
// push-config create), under /v1 and at the plain path, in both wire forms
// (ProtoJSON of the v0.3 proto, the JSON-RPC object form): they never
// panic, fail only with InvalidParams, and a request they accept is
// answered (its form's encoder writes a response of its operation).
func FuzzV03RESTBody(f *testing.F) {
	for _, s := range []string{
		`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"},{"file":{"fileWithBytes":"aGk","mimeType":"a/b"}},{"data":{"data":{"a":1}}}]},"configuration":{"blocking":true,"historyLength":"2","pushNotification":{"url":"https://h","authentication":{"schemes":["Bearer"]}}}}`,
		`{"request":{"message_id":"m","role":2,"content":[{"file":{"file_with_uri":"https://h/f"}}]}}`,
		`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}`,
		`{"name":"tasks/t/pushNotificationConfigs/p","pushNotificationConfig":{"url":"https://h"}}`,
		`{"parent":"tasks/t","configId":"p","config":{"pushNotificationConfig":{"url":"https://h","token":"x"}}}`,
		`{"url":"https://h","id":"p"}`, `{"name":"tasks/t"}`, `{"id":"t"}`, `{}`, `null`, `[]`, `{"message":{"content":[{}]}}`,
	} {
		f.Add([]byte(s), false)
	}
	routes := map[string]func() proto.Message{
		"/message:send":                       func() proto.Message { return new(a2av1.SendMessageRequest) },
		"/message:stream":                     func() proto.Message { return new(a2av1.SendMessageRequest) },
		"/tasks/{id}:cancel":                  func() proto.Message { return new(a2av1.CancelTaskRequest) },
		"/tasks/{id}/pushNotificationConfigs": func() proto.Message { return new(a2av1.TaskPushNotificationConfig) },
	}
	responses := map[string]proto.Message{
		"SendMessage":                      &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: &a2av1.Task{Id: "t", ContextId: "c", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}}},
		"SendStreamingMessage":             &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t", ContextId: "c", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}},
		"CancelTask":                       &a2av1.Task{Id: "t", ContextId: "c", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_CANCELED}},
		"CreateTaskPushNotificationConfig": &a2av1.TaskPushNotificationConfig{TaskId: "t", Id: "p", Url: "https://h"},
	}
	adapter := a2av03.Adapter()
	f.Fuzz(func(t *testing.T, body []byte, plain bool) {
		for _, rt := range adapter.Routes {
			newReq, ok := routes[rt.Path]
			if !ok || rt.HTTPMethod != "POST" {
				continue
			}
			in := &runtime.AdaptedRequest{Body: body, Vars: map[string]string{"id": "t"}, Plain: plain}
			req := newReq()
			if err := rt.Decode(in, req); err != nil {
				if !errors.Is(err, runtime.ErrInvalidParams) {
					t.Fatalf("%s: %v, want InvalidParams", rt.Path, err)
				}
				continue
			}
			encode := rt.Encode
			if in.Encode != nil {
				encode = in.Encode
			}
			if _, err := encode(responses[rt.Operation]); err != nil {
				t.Fatalf("%s: an accepted request's answer does not encode: %v", rt.Path, err)
			}
		}
	})
}
