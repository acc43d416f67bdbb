package host_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// refusal is one 401 (gRPC: UNAUTHENTICATED) answer a client saw, with its
// challenges.
type refusal struct {
	call       string
	challenges []string
}

// refusals records the authentication refusals of HTTP responses and gRPC
// calls.
type refusals struct {
	mu   sync.Mutex
	call string // the call being made
	seen []refusal
}

func (r *refusals) add(challenges []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, refusal{r.call, challenges})
}

func (r *refusals) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		r.add(resp.Header.Values("WWW-Authenticate"))
	}
	return resp, err
}

func (r *refusals) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var trailer metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Trailer(&trailer))...)
	if status.Code(err) == codes.Unauthenticated {
		r.add(trailer.Get("www-authenticate"))
	}
	return err
}

func (r *refusals) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return nil, err
	}
	return &recordedStream{ClientStream: cs, r: r}, nil
}

type recordedStream struct {
	grpc.ClientStream
	r *refusals
}

func (s *recordedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if status.Code(err) == codes.Unauthenticated {
		s.r.add(s.ClientStream.Trailer().Get("www-authenticate"))
	}
	return err
}

// TestEvery401HasAChallenge: every authentication refusal of a hosted agent
// — the default server's refusal of the extended card to an anonymous
// caller (the card itself lets anonymous callers in), a token or API key
// the verifiers reject, a skill's unmet requirement, unary or streaming —
// carries WWW-Authenticate on the HTTP bindings and the www-authenticate
// trailer on gRPC. The extended card's refusal names no scheme of its own,
// so it carries the challenges of all the card's schemes.
func TestEvery401HasAChallenge(t *testing.T) {
	card := &a2av1.AgentCard{
		Name: "hosted", Description: "d", Version: "1",
		Capabilities:       &a2av1.AgentCapabilities{Streaming: proto.Bool(true), ExtendedAgentCard: proto.Bool(true)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
			"basic":  {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "basic"}}},
			"key":    {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "header", Name: "X-API-Key"}}},
		},
		// No card-wide requirement: anonymous callers reach the server.
		Skills: []*a2av1.AgentSkill{
			{Id: "open", Name: "Open", Description: "o", Tags: []string{"t"}},
			{Id: "keyed", Name: "Keyed", Description: "k", Tags: []string{"t"}, SecurityRequirements: []*a2av1.SecurityRequirement{req("key")}},
		},
	}
	ext := proto.CloneOf(card)
	ext.Description = "extended"
	pub, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	extJSON, err := runtime.MarshalJSON(ext)
	if err != nil {
		t.Fatal(err)
	}
	bindings := []host.Binding{
		{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"},
		{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest", Tenant: "acme"},
		{Protocol: runtime.BindingGRPC, Address: ":9090"},
	}
	a := hosttest.Start(t, host.Config{
		CardJSON: pub, ExtendedCardJSON: extJSON, Bindings: bindings,
		Skills: []host.Skill{{ID: "open", Run: replyWith("open")}, {ID: "keyed", Run: replyWith("keyed")}},
	})
	all := []string{`Basic realm="hosted", charset="UTF-8"`, `Bearer realm="hosted"`, `APIKey realm="hosted", in="header", name="X-API-Key"`}

	ctx := context.Background()
	for _, b := range bindings {
		t.Run(b.Protocol.String(), func(t *testing.T) {
			rec := &refusals{}
			client := func(opts ...runtime.ClientOption) a2av1.A2AServiceClient {
				return a.ClientWith(t, b, append(opts,
					runtime.WithHTTPClient(&http.Client{Transport: rec}),
					runtime.WithGRPCDialOptions(grpc.WithUnaryInterceptor(rec.unary), grpc.WithStreamInterceptor(rec.stream)))...)
			}
			anonymous := client()
			calls := []struct {
				name string
				call func() error
				want []string // the challenges; nil: any
			}{
				{"anonymous extended card", func() error {
					_, err := anonymous.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
					return err
				}, all},
				{"rejected token", func() error {
					_, err := client(runtime.WithHeader("Authorization", "Bearer wrong")).GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
					return err
				}, []string{`Bearer realm="hosted"`}},
				{"rejected API key", func() error {
					_, err := client(runtime.WithHeader("X-API-Key", "wrong")).SendMessage(ctx, message("hi", "open"))
					return err
				}, []string{`APIKey realm="hosted", in="header", name="X-API-Key"`}},
				{"skill requirement", func() error {
					_, err := anonymous.SendMessage(ctx, message("hi", "keyed"))
					return err
				}, []string{`APIKey realm="hosted", in="header", name="X-API-Key"`}},
				{"skill requirement, streaming", func() error {
					for _, err := range anonymous.SendStreamingMessage(ctx, message("hi", "keyed")) {
						if err != nil {
							return err
						}
					}
					return nil
				}, nil},
			}
			for _, c := range calls {
				rec.mu.Lock()
				rec.call = c.name
				rec.mu.Unlock()
				err := c.call()
				var e *runtime.Error
				if !errors.As(err, &e) || e.Code() != runtime.CodeUnauthenticated {
					t.Errorf("%s: %v, want Unauthenticated", c.name, err)
					continue
				}
				if len(e.Challenges()) == 0 || (c.want != nil && !slices.Equal(e.Challenges(), c.want)) {
					t.Errorf("%s: challenges %q, want %q", c.name, e.Challenges(), c.want)
				}
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.seen) != len(calls) {
				t.Errorf("saw %d refusals on the wire, want %d (one per call): %v", len(rec.seen), len(calls), rec.seen)
			}
			for _, r := range rec.seen {
				if len(r.challenges) == 0 {
					t.Errorf("%s: refused without WWW-Authenticate", r.call)
				}
			}
		})
	}
	// And the checks scaffolded projects run.
	for _, b := range bindings {
		a.CheckExtendedCard(t, b, ext)
	}
}

// TestEvery401HasAChallengeV03: the v0.3 surface of an agent (Config.V03)
// answers its authentication refusals with the same challenges, on every
// binding: the authenticated extended card asked for anonymously
// (agent/getAuthenticatedExtendedCard, GET /v1/card,
// a2a.v1.A2AService/GetAgentCard) and a message with a rejected token.
func TestEvery401HasAChallengeV03(t *testing.T) {
	card := &a2av1.AgentCard{
		Name: "hosted", Description: "d", Version: "1",
		Capabilities:       &a2av1.AgentCapabilities{ExtendedAgentCard: proto.Bool(true)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
		},
		Skills: []*a2av1.AgentSkill{{Id: "open", Name: "Open", Description: "o", Tags: []string{"t"}}},
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: "http://127.0.0.1:8080/", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"},
			{Url: "http://127.0.0.1:8080/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: "1.0"},
			{Url: "127.0.0.1:9090", ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0"},
		},
	}
	pub, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	bindings := []host.Binding{
		{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"},
		{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest"},
		{Protocol: runtime.BindingGRPC, Address: ":9090"},
	}
	a := hosttest.Start(t, host.Config{CardJSON: pub, ExtendedCardJSON: pub, Bindings: bindings, V03: true,
		Skills: []host.Skill{{ID: "open", Run: replyWith("open")}}})
	want := []string{`Bearer realm="hosted"`}
	message := `{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}`

	// post makes a v0.3 HTTP request (no A2A-Version) and returns the
	// status and challenges of the answer.
	post := func(t *testing.T, method, url, authz, body string) (int, []string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		resp, err := a.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Values("WWW-Authenticate")
	}
	for _, c := range []struct {
		name, authz string
		call        func(t *testing.T, authz string) (int, []string)
	}{
		{"JSONRPC/extended card", "", func(t *testing.T, authz string) (int, []string) {
			return post(t, http.MethodPost, a.URL(bindings[0]), authz, `{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}`)
		}},
		{"JSONRPC/rejected token", "Bearer wrong", func(t *testing.T, authz string) (int, []string) {
			return post(t, http.MethodPost, a.URL(bindings[0]), authz, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":`+message+`}}`)
		}},
		{"HTTP+JSON/extended card", "", func(t *testing.T, authz string) (int, []string) {
			return post(t, http.MethodGet, strings.TrimSuffix(a.URL(bindings[1]), "/")+"/v1/card", authz, "")
		}},
		{"HTTP+JSON/rejected token", "Bearer wrong", func(t *testing.T, authz string) (int, []string) {
			return post(t, http.MethodPost, strings.TrimSuffix(a.URL(bindings[1]), "/")+"/v1/message:send", authz, `{"message":`+message+`}`)
		}},
		{"GRPC/extended card", "", func(t *testing.T, authz string) (int, []string) {
			return grpcV03(t, a.URL(bindings[2]), "/a2a.v1.A2AService/GetAgentCard", authz)
		}},
		{"GRPC/rejected token", "Bearer wrong", func(t *testing.T, authz string) (int, []string) {
			return grpcV03(t, a.URL(bindings[2]), "/a2a.v1.A2AService/SendMessage", authz)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, challenges := c.call(t, c.authz)
			if code != http.StatusUnauthorized || !slices.Equal(challenges, want) {
				t.Errorf("answer %d with challenges %q, want 401 (gRPC: UNAUTHENTICATED) with %q", code, challenges, want)
			}
		})
	}
}

// grpcV03 calls the v0.3 gRPC method with an empty request (the card's
// request is empty; a SendMessage is refused before it is read) and returns
// 401 for UNAUTHENTICATED, with the www-authenticate trailer.
func grpcV03(t *testing.T, target, method, authz string) (int, []string) {
	t.Helper()
	cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx := context.Background()
	if authz != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", authz)
	}
	var trailer metadata.MD
	err = cc.Invoke(ctx, method, &emptypb.Empty{}, &emptypb.Empty{}, grpc.Trailer(&trailer))
	if status.Code(err) != codes.Unauthenticated {
		return int(status.Code(err)), trailer.Get("www-authenticate")
	}
	return http.StatusUnauthorized, trailer.Get("www-authenticate")
}
