package hosttest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
)

// Message returns a request sending text as a new user message; a
// non-empty skill is named in its metadata under host.SkillMetadataKey.
func Message(text, skill string) *a2av1.SendMessageRequest {
	m := a2av1.NewTextMessage(text)
	if skill != "" {
		m.Metadata = &structpb.Struct{Fields: map[string]*structpb.Value{host.SkillMetadataKey: structpb.NewStringValue(skill)}}
	}
	return &a2av1.SendMessageRequest{Message: m}
}

// DataMessage is Message with one data part (application/json) holding the
// JSON value in data instead of text; it fails the test when data is no
// JSON.
func DataMessage(t testing.TB, data, skill string) *a2av1.SendMessageRequest {
	t.Helper()
	part, err := a2av1.NewJSONDataPart([]byte(data))
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	req := Message("", skill)
	req.Message.Parts = []*a2av1.Part{part}
	return req
}

// RawMessage is Message with one file part holding raw of media type
// mediaType instead of text: a part of a media type a skill may not accept.
func RawMessage(raw []byte, mediaType, skill string) *a2av1.SendMessageRequest {
	req := Message("", skill)
	req.Message.Parts = []*a2av1.Part{a2av1.NewFilePart("", mediaType, raw)}
	return req
}

// DataParts returns the data of every data part of a response: of the
// reply message, or of the task's artifacts.
func DataParts(resp *a2av1.SendMessageResponse) []*structpb.Value {
	var out []*structpb.Value
	add := func(parts []*a2av1.Part) {
		for _, p := range parts {
			if d := p.GetData(); d != nil {
				out = append(out, d)
			}
		}
	}
	add(resp.GetMessage().GetParts())
	for _, a := range resp.GetTask().GetArtifacts() {
		add(a.GetParts())
	}
	return out
}

// Card decodes an agent card document, failing the test when it does not
// decode.
func Card(t testing.TB, doc string) *a2av1.AgentCard {
	t.Helper()
	c := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON([]byte(doc), c); err != nil {
		t.Fatalf("hosttest: agent card: %v", err)
	}
	return c
}

// CheckCard fails the test unless every HTTP address of bindings serves
// want, byte for byte, at runtime.AgentCardPath (over TLS: want as
// host.CardWithTLS rewrites it).
func (a *Agent) CheckCard(t testing.TB, bindings []host.Binding, want string) {
	t.Helper()
	if a.tls {
		doc, err := host.CardWithTLS([]byte(want))
		if err != nil {
			t.Fatal(err)
		}
		want = string(doc)
	}
	a.getCards(t, bindings, func(url string, status int, got []byte, err error) {
		if err != nil || status != 200 || !bytes.Equal(got, []byte(want)) {
			t.Errorf("GET %s: %d %v\n%s\nwant:\n%s", url, status, err, got, want)
		}
	})
}

// getCards GETs the card at runtime.AgentCardPath of every HTTP address of
// bindings, once an address, and calls check with the URL, the status, the
// body and the error of reading it. It fails the test when a GET fails.
func (a *Agent) getCards(t testing.TB, bindings []host.Binding, check func(url string, status int, doc []byte, err error)) {
	t.Helper()
	seen := map[string]bool{}
	for _, b := range bindings {
		if b.Protocol == runtime.BindingGRPC || seen[b.Address] {
			continue
		}
		seen[b.Address] = true
		url := a.CardURL(b)
		resp, err := a.HTTPClient().Get(url)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		check(url, resp.StatusCode, doc, err)
	}
}

// CheckExtendedCard fails the test unless binding b serves want as the
// extended card to a caller with the test credentials, and refuses an
// anonymous caller with Unauthenticated and its challenges.
func (a *Agent) CheckExtendedCard(t testing.TB, b host.Binding, want *a2av1.AgentCard) {
	t.Helper()
	ctx := context.Background()
	got, err := a.Client(t, b, want, "").GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil {
		t.Fatalf("GetExtendedAgentCard with credentials: %v", err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("GetExtendedAgentCard returned another card:\n%v\nwant:\n%v", got, want)
	}
	_, err = a.ClientWith(t, b).GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	checkUnauthenticated(t, "GetExtendedAgentCard without credentials", err)
}

// CheckRefusesAnonymous fails the test unless binding b refuses a message
// without credentials with Unauthenticated and its challenges.
func (a *Agent) CheckRefusesAnonymous(t testing.TB, b host.Binding) {
	t.Helper()
	_, err := a.ClientWith(t, b).SendMessage(context.Background(), Message("hello", ""))
	checkUnauthenticated(t, "SendMessage without credentials", err)
}

// checkUnauthenticated fails the test unless err is Unauthenticated with
// at least one challenge: every 401 carries WWW-Authenticate, and gRPC's
// UNAUTHENTICATED the www-authenticate trailer, which the clients return
// as (*runtime.Error).Challenges.
func checkUnauthenticated(t testing.TB, call string, err error) {
	t.Helper()
	var e *runtime.Error
	switch {
	case !errors.Is(err, runtime.ErrUnauthenticated):
		t.Errorf("%s: %v, want Unauthenticated", call, err)
	case !errors.As(err, &e) || len(e.Challenges()) == 0:
		t.Errorf("%s: %v without a challenge (WWW-Authenticate)", call, err)
	}
}
