package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// apiClient calls the inspector's API as the page does.
type apiClient struct {
	t    *testing.T
	base string
}

func newAPI(t *testing.T, s *Server) *apiClient {
	return &apiClient{t: t, base: "http://" + s.Addr().String()}
}

func (c *apiClient) post(path string, in any) []byte {
	c.t.Helper()
	b, _ := json.Marshal(in)
	req, _ := http.NewRequest("POST", c.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TokenHeader, "test-session-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return out
}

func (c *apiClient) postJSON(path string, in any) map[string]any {
	c.t.Helper()
	var out map[string]any
	raw := c.post(path, in)
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s: %v: %s", path, err, raw)
	}
	return out
}

// events reads the page's event stream until stop says so or 10 s pass.
func (c *apiClient) events(stop func(Event) bool) []Event {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+"/api/events?token=test-session-token", nil)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var seen []Event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			c.t.Fatal(err)
		}
		seen = append(seen, ev)
		if stop(ev) {
			return seen
		}
	}
	c.t.Fatalf("the event stream ended (%v) before the expected event; saw %d", sc.Err(), len(seen))
	return nil
}

func sendText(iface int, text string) map[string]any {
	return map[string]any{"interface": iface, "operation": "SendMessage", "request": map[string]any{
		"message": map[string]any{"messageId": fmt.Sprintf("m-%s-%d", text, iface), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}}}
}

// TestCallsEveryBinding: a message sent through the API on each interface
// of the card is answered, and the wire view records it as sent: the
// JSON-RPC envelope, the REST route, the gRPC method with its metadata.
func TestCallsEveryBinding(t *testing.T) {
	agent := startEcho(t)
	s := startInspector(t, agent)
	api := newAPI(t, s)
	card := api.postJSON("/api/card", map[string]string{"url": agent})
	if card["error"] != nil {
		t.Fatal(card["error"])
	}
	if checks := card["checks"].([]any); len(checks) != 0 {
		t.Errorf("the echo card fails checks: %v", checks)
	}
	for i := range 3 {
		out := api.postJSON("/api/call", sendText(i, "hello"))
		raw, _ := json.Marshal(out["response"])
		if !strings.Contains(string(raw), "Echo: hello") {
			t.Errorf("interface %d: %v", i, out)
		}
	}
	var wire []*WireEntry
	api.events(func(ev Event) bool {
		if ev.Wire != nil {
			wire = append(wire, ev.Wire)
		}
		return ev.Wire != nil && ev.Wire.Binding == "GRPC" && ev.Wire.Direction == "response"
	})
	find := func(binding, dir string) *WireEntry {
		for _, w := range wire {
			if w.Binding == binding && w.Direction == dir {
				return w
			}
		}
		t.Fatalf("no %s %s entry in %d", binding, dir, len(wire))
		return nil
	}
	if w := find("JSONRPC", "request"); !strings.Contains(w.Body, `"jsonrpc":"2.0"`) || !strings.Contains(w.Body, `"method":"SendMessage"`) ||
		!strings.HasPrefix(w.Curl, "curl -sS -X POST '"+agent+"/a2a/jsonrpc'") || w.CLI != "a2a send -a "+agent+" --transport jsonrpc --text hello" {
		t.Errorf("JSON-RPC request entry: %+v", w)
	}
	if w := find("HTTP+JSON", "request"); w.Method != "POST" || w.URL != agent+"/a2a/rest/message:send" {
		t.Errorf("REST request entry: %+v", w)
	}
	if w := find("HTTP+JSON", "response"); w.Status != "200 OK" || !strings.Contains(w.Body, "Echo: hello") {
		t.Errorf("REST response entry: %+v", w)
	}
	if w := find("GRPC", "request"); w.Method != "/lf.a2a.v1.A2AService/SendMessage" || w.Header["a2a-version"] == nil {
		t.Errorf("gRPC request entry: %+v", w)
	}
	if w := find("GRPC", "response"); w.Status != "OK" || !strings.Contains(w.Body, "Echo: hello") {
		t.Errorf("gRPC response entry: %+v", w)
	}
}

// TestStreamAndFollowUp: a streamed answer arrives event by event (the
// artifact's chunks with append and lastChunk), and a message to a task
// waiting for input continues it.
func TestStreamAndFollowUp(t *testing.T) {
	agent := startEcho(t)
	s := startInspector(t, agent)
	api := newAPI(t, s)
	api.postJSON("/api/card", map[string]string{"url": agent})
	for i := range 3 {
		req := sendText(i, "stream 3")
		req["operation"] = "SendStreamingMessage"
		raw := string(api.post("/api/call", req))
		lines := strings.Split(strings.TrimSpace(raw), "\n")
		if !strings.Contains(lines[len(lines)-1], `"done":true`) || !strings.Contains(raw, `"lastChunk":true`) || strings.Count(raw, `"append":true`) != 2 {
			t.Errorf("interface %d stream:\n%s", i, raw)
		}
		out := api.postJSON("/api/call", sendText(i, "input"))
		task := out["response"].(map[string]any)["task"].(map[string]any)
		if st := task["status"].(map[string]any)["state"]; st != "TASK_STATE_INPUT_REQUIRED" {
			t.Fatalf("interface %d: input gave %v", i, st)
		}
		follow := sendText(i, "more")
		msg := follow["request"].(map[string]any)["message"].(map[string]any)
		msg["taskId"], msg["contextId"] = task["id"], task["contextId"]
		out = api.postJSON("/api/call", follow)
		done := out["response"].(map[string]any)["task"].(map[string]any)
		if done["id"] != task["id"] || done["status"].(map[string]any)["state"] != "TASK_STATE_COMPLETED" {
			t.Errorf("interface %d follow-up: %v", i, out)
		}
	}
}

// TestPushDeliveryShown: a push config made through the API posts to the
// inspector's receiver with the token it registered, and the delivery is
// shown verified; a post with another token is refused and shown so.
func TestPushDeliveryShown(t *testing.T) {
	agent := startEcho(t)
	s := startInspector(t, agent)
	api := newAPI(t, s)
	api.postJSON("/api/card", map[string]string{"url": agent})
	req := sendText(0, "slow 300")
	req["request"].(map[string]any)["configuration"] = map[string]any{"returnImmediately": true}
	task := api.postJSON("/api/call", req)["response"].(map[string]any)["task"].(map[string]any)
	created := api.postJSON("/api/push", map[string]any{"interface": 0, "taskId": task["id"]})
	if created["error"] != nil {
		t.Fatal(created["error"])
	}
	url := created["url"].(string)
	if !strings.HasPrefix(url, s.ReceiverURL()+"/push/") {
		t.Fatalf("config URL %q is not the receiver's", url)
	}
	bad, _ := http.NewRequest("POST", url, strings.NewReader(`{"task":{"id":"x"}}`))
	bad.Header.Set("X-A2A-Notification-Token", "forged")
	if resp, err := http.DefaultClient.Do(bad); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("forged delivery: %v %v", resp, err)
	}
	var refused, verified *Delivery
	api.events(func(ev Event) bool {
		if d := ev.Delivery; d != nil {
			if d.Refused != "" {
				refused = d
			} else if d.Verified && strings.Contains(string(d.Event), "TASK_STATE_COMPLETED") {
				verified = d
			}
		}
		return refused != nil && verified != nil
	})
	if verified.TaskID != task["id"] || !strings.Contains(refused.Refused, "token") {
		t.Errorf("verified %+v, refused %+v", verified, refused)
	}
}

// TestCredentialsMasked: a bearer token given for the card's scheme is
// sent (the extended card answers) and never shown: not in headers, curl
// lines or bodies of the wire view.
func TestCredentialsMasked(t *testing.T) {
	agent := startEcho(t)
	s := startInspector(t, agent)
	api := newAPI(t, s)
	api.postJSON("/api/card", map[string]string{"url": agent})
	anon := api.postJSON("/api/call", map[string]any{"interface": 1, "operation": "GetExtendedAgentCard", "request": map[string]any{}})
	if anon["error"] == nil {
		t.Fatal("the extended card answered without credentials")
	}
	applied := api.postJSON("/api/auth", map[string]any{"schemes": map[string]string{"bearer": "s3cret-token"}, "headers": []map[string]string{{"name": "X-Trace", "value": "abc"}}})
	if applied["error"] != nil {
		t.Fatal(applied["error"])
	}
	for i := range 3 {
		ext := api.postJSON("/api/call", map[string]any{"interface": i, "operation": "GetExtendedAgentCard", "request": map[string]any{}})
		if raw, _ := json.Marshal(ext); !strings.Contains(string(raw), "echo-extended") {
			t.Errorf("interface %d: extended card: %s", i, raw)
		}
	}
	all := api.events(func(ev Event) bool {
		return ev.Wire != nil && ev.Wire.Binding == "GRPC" && ev.Wire.Direction == "response"
	})
	raw, _ := json.Marshal(all)
	if strings.Contains(string(raw), "s3cret-token") {
		t.Error("the bearer token appears in the wire view")
	}
	if !strings.Contains(string(raw), `Bearer ****`) || !strings.Contains(string(raw), `X-Trace`) {
		t.Error("the wire view does not show the masked Authorization header and the custom header")
	}
}
