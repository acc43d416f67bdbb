package hosttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"

	a2av03pb "github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
)

// V03Answer is what an A2A v0.3 agent answered to message/send: the kind
// of the result ("task" or "message") and, for a task, its v0.3 state
// ("completed", "input-required", …) and id.
type V03Answer struct {
	Kind, State, TaskID string
}

// SendV03 sends text to skill as an A2A v0.3 client does, on the v0.3 wire
// form of binding b, with no A2A-Version header: a JSON-RPC message/send,
// an HTTP+JSON POST of /v1/message:send, or a gRPC
// a2a.v1.A2AService/SendMessage; with the test credentials the security
// requirements of card and of the skill need. It fails the test unless the
// agent answers with a v0.3 task or message (Config.V03). v0.3 has no
// tenants: on a binding with a tenant the request is served in that
// tenant, so a task it answers with is then read over v1.0 in b's tenant,
// and the test fails unless it is there.
func (a *Agent) SendV03(t testing.TB, b host.Binding, card *a2av1.AgentCard, skill, text string) V03Answer {
	t.Helper()
	answer := a.sendV03(t, b, card, skill, text)
	if b.Tenant != "" && answer.TaskID != "" {
		got, err := a.Client(t, b, card, skill).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: answer.TaskID})
		if err != nil || got.GetId() != answer.TaskID {
			t.Fatalf("the task %s of a v0.3 message/send on %s %s is not in the binding's tenant %q: GetTask over v1.0: %v",
				answer.TaskID, b.Protocol, a.URL(b), b.Tenant, err)
		}
	}
	return answer
}

// sendV03 is SendV03 without the tenant check.
func (a *Agent) sendV03(t testing.TB, b host.Binding, card *a2av1.AgentCard, skill, text string) V03Answer {
	t.Helper()
	send, ok := v03Senders[b.Protocol]
	if !ok {
		t.Fatalf("hosttest: unknown binding %q", b.Protocol)
	}
	headers, hc := a.credentials(b, card, skillAuthorization(t, card, skill), true)
	return send(a, v03Call{t: t, b: b, headers: headers, hc: hc, skill: skill, text: text})
}

// v03Call is one v0.3 message/send of SendV03: the binding, the credentials
// to present and the message.
type v03Call struct {
	t           testing.TB
	b           host.Binding
	headers     [][2]string
	hc          *http.Client
	skill, text string
}

// jsonMessage is the message in v0.3's JSON shape.
func (c v03Call) jsonMessage() map[string]any {
	msg := map[string]any{
		"kind": "message", "messageId": "hosttest-v03", "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": c.text}},
	}
	if c.skill != "" {
		msg["metadata"] = map[string]any{host.SkillMetadataKey: c.skill}
	}
	return msg
}

// v03Senders send a v0.3 message over each binding.
var v03Senders = map[runtime.Binding]func(a *Agent, c v03Call) V03Answer{
	runtime.BindingJSONRPC:  (*Agent).sendV03JSONRPC,
	runtime.BindingHTTPJSON: (*Agent).sendV03REST,
	runtime.BindingGRPC:     (*Agent).sendV03GRPC,
}

func (a *Agent) sendV03JSONRPC(c v03Call) V03Answer {
	c.t.Helper()
	body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{"message": c.jsonMessage()}}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	raw := a.postV03(c.t, c.hc, a.URL(c.b), c.headers, body)
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Error != nil || resp.Result == nil {
		c.t.Fatalf("v0.3 message/send on %s: %s", a.URL(c.b), raw)
	}
	return v03Answer(c.t, resp.Result)
}

func (a *Agent) sendV03REST(c v03Call) V03Answer {
	c.t.Helper()
	url := strings.TrimSuffix(a.URL(c.b), "/") + "/v1/message:send"
	return v03Answer(c.t, a.postV03(c.t, c.hc, url, c.headers, map[string]any{"message": c.jsonMessage()}))
}

func (a *Agent) sendV03GRPC(c v03Call) V03Answer {
	t := c.t
	t.Helper()
	creds := insecure.NewCredentials()
	if a.pki != nil {
		creds = credentials.NewTLS(a.pki.clientTLS(true))
	}
	client, err := a2av03pb.NewA2AServiceGRPCClient(a.URL(c.b), runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(creds)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	md := metadata.MD{}
	for _, h := range c.headers {
		md.Append(h[0], h[1])
	}
	ctx := metadata.NewOutgoingContext(context.Background(), md)
	req := &a2av03pb.SendMessageRequest{Request: &a2av03pb.Message{
		MessageId: "hosttest-v03", Role: a2av03pb.Role_ROLE_USER,
		Content: []*a2av03pb.Part{{Part: &a2av03pb.Part_Text{Text: c.text}}},
	}}
	if c.skill != "" {
		req.Request.Metadata, _ = structpb.NewStruct(map[string]any{host.SkillMetadataKey: c.skill}) // a string: cannot fail
	}
	resp, err := client.SendMessage(ctx, req)
	if err != nil {
		t.Fatalf("v0.3 SendMessage on gRPC %s: %v", a.URL(c.b), err)
	}
	if task := resp.GetTask(); task != nil {
		return V03Answer{Kind: "task", State: a2av03.StateFromV1(a2av03grpc.StateToV1(task.GetStatus().GetState())), TaskID: task.GetId()}
	}
	if resp.GetMsg() != nil {
		return V03Answer{Kind: "message"}
	}
	t.Fatalf("v0.3 SendMessage on gRPC %s: neither a task nor a message: %v", a.URL(c.b), resp)
	return V03Answer{}
}

// postV03 posts body as JSON to url without an A2A-Version header and
// returns the body of a 200 answer.
func (a *Agent) postV03(t testing.TB, hc *http.Client, url string, headers [][2]string, body any) []byte {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		req.Header.Add(h[0], h[1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s (A2A v0.3): %d %v\n%s", url, resp.StatusCode, err, out)
	}
	return out
}

// v03Answer reads a v0.3 message/send result: a Task or a Message, told
// apart by kind.
func v03Answer(t testing.TB, raw []byte) V03Answer {
	t.Helper()
	var res struct {
		Kind   string `json:"kind"`
		ID     string `json:"id"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || (res.Kind != "task" && res.Kind != "message") {
		t.Fatalf("not a v0.3 task or message (kind %q): %s", res.Kind, raw)
	}
	answer := V03Answer{Kind: res.Kind, State: res.Status.State}
	if res.Kind == "task" {
		answer.TaskID = res.ID
	}
	return answer
}

// CheckV03Card fails the test unless every HTTP address of bindings serves
// the dual card: the v1.0 card with a 0.3 interface next to the 1.0 one of
// every binding, and the top-level fields a v0.3 client reads
// (protocolVersion "0.3.0", url and preferredTransport of a 0.3 interface,
// additionalInterfaces listing every 0.3 interface).
func (a *Agent) CheckV03Card(t testing.TB, bindings []host.Binding) {
	t.Helper()
	a.getCards(t, bindings, func(url string, status int, doc []byte, err error) {
		if err != nil || status != http.StatusOK {
			t.Fatalf("GET %s: %d %v", url, status, err)
		}
		if err := checkDualCard(doc, bindings); err != nil {
			t.Errorf("GET %s: %v\n%s", url, err, doc)
		}
	})
}

// checkDualCard checks the card document doc of an agent serving bindings
// in v1.0 and v0.3.
func checkDualCard(doc []byte, bindings []host.Binding) error {
	card := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(doc, card); err != nil {
		return fmt.Errorf("not a v1.0 card: %w", err)
	}
	var v03 a2av03.CardV03Fields
	if err := json.Unmarshal(doc, &v03); err != nil {
		return fmt.Errorf("not a v0.3 card: %w", err)
	}
	if v03.ProtocolVersion != a2av03.CardProtocolVersion {
		return fmt.Errorf("protocolVersion %q, want %q", v03.ProtocolVersion, a2av03.CardProtocolVersion)
	}
	var v03URLs []string
	for _, want := range []string{"1.0", a2av03.Version} {
		for _, b := range bindings {
			found := slices.ContainsFunc(card.GetSupportedInterfaces(), func(itf *a2av1.AgentInterface) bool {
				v, _ := runtime.ParseVersion(itf.GetProtocolVersion())
				return v == want && itf.GetProtocolBinding() == b.Protocol.String()
			})
			if !found {
				return fmt.Errorf("supportedInterfaces lists no %s interface of version %s", b.Protocol, want)
			}
		}
	}
	for _, itf := range card.GetSupportedInterfaces() {
		if v, _ := runtime.ParseVersion(itf.GetProtocolVersion()); v == a2av03.Version {
			v03URLs = append(v03URLs, itf.GetProtocolBinding()+" "+itf.GetUrl())
		}
	}
	if !slices.Contains(v03URLs, v03.PreferredTransport+" "+v03.URL) {
		return fmt.Errorf("url %q with preferredTransport %q is no 0.3 interface of supportedInterfaces (%v)", v03.URL, v03.PreferredTransport, v03URLs)
	}
	var listed []string
	for _, itf := range v03.AdditionalInterfaces {
		listed = append(listed, itf.Transport+" "+itf.URL)
	}
	if !slices.Equal(listed, v03URLs) {
		return fmt.Errorf("additionalInterfaces %v, want the 0.3 interfaces %v", listed, v03URLs)
	}
	return nil
}
