package host_test

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
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

func req(scheme string, scopes ...string) *a2av1.SecurityRequirement {
	return &a2av1.SecurityRequirement{Schemes: map[string]*a2av1.StringList{scheme: {List: scopes}}}
}

// testCards returns a public card with every kind of security scheme, two
// skills (b needs an API key and a client certificate on top) and an
// extended card with one more skill.
func testCards(t *testing.T) (public, extended []byte) {
	t.Helper()
	card := &a2av1.AgentCard{
		Name: "hosted", Description: "d", Version: "1",
		Capabilities:       &a2av1.AgentCapabilities{Streaming: proto.Bool(true), ExtendedAgentCard: proto.Bool(true)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
			"basic":  {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "basic"}}},
			"key":    {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "query", Name: "api_key"}}},
			"cookie": {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "cookie", Name: "sid"}}},
			"oauth": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Flows: &a2av1.OAuthFlows{
				Flow: &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{TokenUrl: "https://auth.example.com/token", Scopes: map[string]string{"read": "r"}}}}}}},
			"mtls": {Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{}}},
		},
		SecurityRequirements: []*a2av1.SecurityRequirement{req("bearer"), req("oauth", "read"), req("basic")},
		Skills: []*a2av1.AgentSkill{
			{Id: "a", Name: "A", Description: "a", Tags: []string{"t"}},
			{Id: "b", Name: "B", Description: "b", Tags: []string{"t"},
				SecurityRequirements: []*a2av1.SecurityRequirement{{Schemes: map[string]*a2av1.StringList{"key": {}, "mtls": {}}}}},
		},
	}
	ext := proto.CloneOf(card)
	ext.Skills = append(ext.Skills, &a2av1.AgentSkill{Id: "x", Name: "X", Description: "x", Tags: []string{"t"}})
	var err error
	if public, err = runtime.MarshalJSON(card); err != nil {
		t.Fatal(err)
	}
	if extended, err = runtime.MarshalJSON(ext); err != nil {
		t.Fatal(err)
	}
	return public, extended
}

var bindings = []host.Binding{
	{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"},
	{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest", Tenant: "acme"},
	{Protocol: runtime.BindingGRPC, Address: ":9090"},
}

// replyWith returns a skill that answers "<id>:<text>" as a message.
func replyWith(id string) func(context.Context, *server.Request, *server.Events) error {
	return func(_ context.Context, req *server.Request, ev *server.Events) error {
		return ev.Reply(server.AgentMessage(id + ":" + req.Text()))
	}
}

func startTestAgent(t *testing.T) (*hosttest.Agent, []byte, *a2av1.AgentCard) {
	pub, ext := testCards(t)
	a := hosttest.Start(t, host.Config{
		CardJSON: pub, ExtendedCardJSON: ext, Bindings: bindings,
		Skills: []host.Skill{{ID: "a", Run: replyWith("a")}, {ID: "b", Run: replyWith("b")}, {ID: "x", Run: replyWith("x")}},
		Route:  func(context.Context, *server.Request) string { return "b" },
	})
	extCard := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(ext, extCard); err != nil {
		t.Fatal(err)
	}
	return a, pub, extCard
}

func message(text, skill string) *a2av1.SendMessageRequest {
	m := &a2av1.Message{MessageId: "m-" + text, Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{server.TextPart(text)}}
	if skill != "" {
		m.Metadata, _ = structpb.NewStruct(map[string]any{host.SkillMetadataKey: skill})
	}
	return &a2av1.SendMessageRequest{Message: m}
}

func TestEverySkillOnEveryBinding(t *testing.T) {
	a, _, ext := startTestAgent(t)
	ctx := context.Background()
	for _, b := range bindings {
		for _, skill := range []string{"a", "b", "x"} {
			t.Run(b.Protocol.String()+"/"+skill, func(t *testing.T) {
				c := a.Client(t, b, ext, skill)
				resp, err := c.SendMessage(ctx, message("hi", skill))
				if err != nil {
					t.Fatal(err)
				}
				if got := server.MessageText(resp.GetMessage()); got != skill+":hi" {
					t.Errorf("reply %q, want %q", got, skill+":hi")
				}
			})
		}
		t.Run(b.Protocol.String()+"/route", func(t *testing.T) {
			resp, err := a.Client(t, b, ext, "b").SendMessage(ctx, message("hi", ""))
			if err != nil || server.MessageText(resp.GetMessage()) != "b:hi" {
				t.Errorf("a message naming no skill went to %q (%v), want Route's b", server.MessageText(resp.GetMessage()), err)
			}
		})
		t.Run(b.Protocol.String()+"/unknown skill", func(t *testing.T) {
			_, err := a.Client(t, b, ext, "").SendMessage(ctx, message("hi", "nope"))
			if !errors.Is(err, runtime.ErrInvalidParams) {
				t.Errorf("got %v, want InvalidParams", err)
			}
		})
		t.Run(b.Protocol.String()+"/skill requirement", func(t *testing.T) {
			// The card's requirement is met (bearer), skill b's is not:
			// no API key is sent.
			c := a.ClientWith(t, b, runtime.WithHeader("Authorization", "Bearer "+hosttest.Token))
			if _, err := c.SendMessage(ctx, message("hi", "a")); err != nil {
				t.Errorf("skill a with a bearer token: %v", err)
			}
			if _, err := c.SendMessage(ctx, message("hi", "b")); !errors.Is(err, runtime.ErrUnauthenticated) {
				t.Errorf("skill b without its API key: %v, want Unauthenticated", err)
			}
		})
		t.Run(b.Protocol.String()+"/anonymous", func(t *testing.T) {
			_, err := a.ClientWith(t, b).SendMessage(ctx, message("hi", "a"))
			if !errors.Is(err, runtime.ErrUnauthenticated) {
				t.Errorf("got %v, want Unauthenticated", err)
			}
		})
		t.Run(b.Protocol.String()+"/input and output modes", func(t *testing.T) {
			// The skills accept and produce text/plain only (the card's
			// defaults): a data part, or a client that accepts only JSON,
			// is refused before the skill runs, naming both sides.
			c := a.Client(t, b, ext, "a")
			data := message("hi", "a")
			part, _ := a2av1.NewDataPart(map[string]any{"city": "Oslo"})
			data.Message.Parts = append(data.Message.Parts, part)
			_, err := c.SendMessage(ctx, data)
			var re *runtime.Error
			if !errors.As(err, &re) || re.Code() != runtime.CodeContentTypeNotSupported ||
				re.Message() != "incompatible content types: offered application/json; accepted text/plain" {
				t.Errorf("a data part to a text skill: %v, want ContentTypeNotSupported offering application/json", err)
			}
			onlyJSON := message("hi", "a")
			onlyJSON.Configuration = &a2av1.SendMessageConfiguration{AcceptedOutputModes: []string{"application/json"}}
			if _, err := c.SendMessage(ctx, onlyJSON); !errors.As(err, &re) || re.Code() != runtime.CodeContentTypeNotSupported ||
				re.Message() != "incompatible content types: offered application/json; accepted text/plain" {
				t.Errorf("a client accepting only JSON from a text skill: %v, want ContentTypeNotSupported", err)
			}
			charset := message("hi", "a")
			charset.Message.Parts[0].MediaType = "text/plain; charset=utf-8"
			charset.Configuration = &a2av1.SendMessageConfiguration{AcceptedOutputModes: []string{"text/*"}}
			if _, err := c.SendMessage(ctx, charset); err != nil {
				t.Errorf("text/plain with a charset, accepting text/*: %v", err)
			}
		})
		t.Run(b.Protocol.String()+"/extended card", func(t *testing.T) {
			got, err := a.Client(t, b, ext, "").GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
			if err != nil || !proto.Equal(got, ext) {
				t.Errorf("extended card: %v, equal %v", err, proto.Equal(got, ext))
			}
		})
	}
}

func TestCardServedByteForByte(t *testing.T) {
	a, pub, _ := startTestAgent(t)
	resp, err := a.HTTPClient().Get(a.URL(bindings[0]) + runtime.AgentCardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.Equal(got, pub) {
		t.Errorf("card: %d %s\nwant %s", resp.StatusCode, got, pub)
	}
}
