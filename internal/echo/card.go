package echo

import (
	"context"
	"strings"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Name and Version of the echo agent as its card shows them.
const (
	Name    = "echo"
	Version = "1.0.0"
)

// SecuritySchemeName is the card's name of the bearer scheme that
// authenticates callers for the extended card.
const SecuritySchemeName = "bearer"

// Card returns the echo agent's public card listing the given interfaces (in
// order of preference), with streaming, push notifications and the extended
// card enabled.
func Card(interfaces ...*a2av1.AgentInterface) *a2av1.AgentCard {
	return &a2av1.AgentCard{
		Name: Name,
		Description: "Echoes what it is sent. The first word selects a behaviour: message, stream [N], input, slow [MS], " +
			"fail, reject; anything else is echoed as an artifact. Send Authorization: Bearer <token> for the extended card.",
		Version:             Version,
		SupportedInterfaces: interfaces,
		Capabilities: &a2av1.AgentCapabilities{
			Streaming:         proto.Bool(true),
			PushNotifications: proto.Bool(true),
			ExtendedAgentCard: proto.Bool(true),
		},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			SecuritySchemeName: {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{
				Description: "Any bearer token (or the one the agent was started with) authenticates the caller.",
				Scheme:      "Bearer",
			}}},
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{
			Id:          "echo",
			Name:        "Echo",
			Description: "Replies with the text it received, as a task artifact, a stream of chunks or a direct message.",
			Tags:        []string{"echo", "test"},
			Examples:    []string{"hello", "message hi", "stream 5", "input", "slow 500", "fail", "reject"},
		}},
	}
}

// ExtendedCard returns card with one more skill, for authenticated callers.
func ExtendedCard(card *a2av1.AgentCard) *a2av1.AgentCard {
	ext := proto.Clone(card).(*a2av1.AgentCard)
	ext.Skills = append(ext.Skills, &a2av1.AgentSkill{
		Id:          "echo-extended",
		Name:        "Extended echo",
		Description: "Listed only on the extended card, to show that the caller was authenticated.",
		Tags:        []string{"echo", "test", "extended"},
	})
	return ext
}

// BearerAuthenticator authenticates callers that send Authorization: Bearer
// <token>: with token "" any non-empty token is accepted, otherwise only that
// one. The caller's subject is the token. Requests without credentials pass
// as anonymous; wrong ones are refused with Unauthenticated. Give it to
// every binding with runtime.WithAuthenticator.
func BearerAuthenticator(token string) runtime.Authenticator {
	return func(ctx context.Context, r *runtime.AuthRequest) (context.Context, error) {
		h := r.Header.Get("Authorization")
		if h == "" {
			return ctx, nil
		}
		scheme, cred, ok := strings.Cut(h, " ")
		cred = strings.TrimSpace(cred)
		if !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" || (token != "" && cred != token) {
			return ctx, runtime.Unauthenticated("invalid bearer token").WithChallenge(`Bearer realm="echo"`)
		}
		return runtime.WithIdentity(ctx, &runtime.Identity{Subject: cred}), nil
	}
}
