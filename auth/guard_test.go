package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

func requirement(schemes map[string][]string) *a2av1.SecurityRequirement {
	r := &a2av1.SecurityRequirement{Schemes: map[string]*a2av1.StringList{}}
	for name, scopes := range schemes {
		r.Schemes[name] = &a2av1.StringList{List: scopes}
	}
	return r
}

// testCard declares one scheme of every kind; calls need a bearer token
// with scope read (oauth), the http bearer, or an API key plus a client
// certificate.
func testCard() *a2av1.AgentCard {
	return &a2av1.AgentCard{
		Name: `Agent "X"`,
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "Bearer"}}},
			"basic":  {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "basic"}}},
			"oauth":  {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{}}},
			"key":    {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "header", Name: "X-Key"}}},
			"qkey":   {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "query", Name: "k"}}},
			"ckey":   {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "cookie", Name: "sid"}}},
			"mtls":   {Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{}}},
		},
		SecurityRequirements: []*a2av1.SecurityRequirement{
			requirement(map[string][]string{"oauth": {"read"}}),
			requirement(map[string][]string{"bearer": nil}),
			requirement(map[string][]string{"key": nil, "mtls": nil}),
			requirement(map[string][]string{"basic": nil}),
			requirement(map[string][]string{"qkey": nil}),
			requirement(map[string][]string{"ckey": nil}),
		},
	}
}

// testVerifiers accept: token "good" for oauth only, with scope read;
// token "weak" for oauth without scopes; token "plain" for the http bearer
// only; key "k1"; user "u" with password "p".
func testVerifiers() Verifiers {
	no := errors.New("no")
	return Verifiers{
		Token: func(_ context.Context, scheme, token string) (Principal, error) {
			switch {
			case scheme == "oauth" && token == "good":
				return Principal{Subject: "svc", Scopes: []string{"read"}}, nil
			case scheme == "oauth" && token == "weak":
				return Principal{Subject: "svc"}, nil
			case scheme == "bearer" && token == "plain":
				return Principal{Subject: "user"}, nil
			case token == "expired":
				return Principal{}, runtime.Unauthenticated("token expired")
			}
			return Principal{}, no
		},
		APIKey: func(_ context.Context, _, key string) (Principal, error) {
			if key == "k1" {
				return Principal{Subject: "partner"}, nil
			}
			return Principal{}, no
		},
		Basic: func(_ context.Context, _, user, pass string) (Principal, error) {
			if user == "u" && pass == "p" {
				return Principal{Subject: "u"}, nil
			}
			return Principal{}, no
		},
	}
}

func TestGuard(t *testing.T) {
	g, err := New(testCard(), testVerifiers())
	if err != nil {
		t.Fatal(err)
	}
	cert := &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{{Subject: pkix.Name{CommonName: "client-1"}}}}}
	for _, tc := range []struct {
		name      string
		header    http.Header
		query     string
		tls       *tls.ConnectionState
		subject   string // "" for an error
		code      runtime.ErrorCode
		msg       string
		challenge string
	}{
		{name: "oauth token with scope", header: http.Header{"Authorization": {"Bearer good"}}, subject: "svc"},
		{name: "http bearer", header: http.Header{"Authorization": {"bearer plain"}}, subject: "user"},
		{name: "oauth token without scope", header: http.Header{"Authorization": {"Bearer weak"}},
			code: runtime.CodeUnauthorized, msg: "lacks the required scope(s) oauth: read", challenge: `Bearer realm="Agent \"X\"", error="insufficient_scope", scope="read"`},
		{name: "unknown token", header: http.Header{"Authorization": {"Bearer nope"}},
			code: runtime.CodeUnauthenticated, msg: `credentials sent for security scheme "bearer" were not accepted`, challenge: `Bearer realm="Agent \"X\""`},
		{name: "verifier's own error", header: http.Header{"Authorization": {"Bearer expired"}},
			code: runtime.CodeUnauthenticated, msg: "token expired", challenge: `Bearer realm="Agent \"X\""`},
		{name: "basic", header: http.Header{"Authorization": {"Basic dTpw"}}, subject: "u"},
		{name: "bad basic password", header: http.Header{"Authorization": {"Basic dTp4"}}, code: runtime.CodeUnauthenticated, msg: `"basic" were not accepted`},
		{name: "malformed basic", header: http.Header{"Authorization": {"Basic !!"}}, code: runtime.CodeUnauthenticated, msg: "malformed Basic"},
		// Header.Get would read only the first (issue 13).
		{name: "two Authorization headers", header: http.Header{"Authorization": {"Bearer good", "Bearer nope"}}, code: runtime.CodeInvalidRequest, msg: "2 Authorization headers"},
		{name: "key without certificate", header: http.Header{"X-Key": {"k1"}}, code: runtime.CodeUnauthenticated, msg: "authentication required: oauth (read) or bearer or key + mtls or basic or qkey or ckey"},
		{name: "key with certificate", header: http.Header{"X-Key": {"k1"}}, tls: cert, subject: "partner"},
		{name: "certificate alone", tls: cert, code: runtime.CodeUnauthenticated},
		{name: "bad key", header: http.Header{"X-Key": {"k2"}}, tls: cert, code: runtime.CodeUnauthenticated, challenge: `APIKey realm="Agent \"X\"", in="header", name="X-Key"`},
		{name: "query key", query: "k=k1", subject: "partner"},
		{name: "cookie key", header: http.Header{"Cookie": {"a=1; sid=k1"}}, subject: "partner"},
		{name: "nothing", code: runtime.CodeUnauthenticated, challenge: `Bearer realm="Agent \"X\""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.header == nil {
				tc.header = http.Header{}
			}
			q, _ := url.ParseQuery(tc.query)
			r := &runtime.AuthRequest{Info: &runtime.CallInfo{Binding: runtime.BindingHTTPJSON}, Header: tc.header, Query: q, TLS: tc.tls}
			ctx, err := g.Authenticate(context.Background(), r)
			if tc.subject != "" {
				id, ok := runtime.IdentityFromContext(ctx)
				if err != nil || !ok || id.Subject != tc.subject {
					t.Fatalf("got %v, %+v; want subject %q", err, id, tc.subject)
				}
				return
			}
			var e *runtime.Error
			if !errors.As(err, &e) || e.Code() != tc.code || !strings.Contains(e.Message(), tc.msg) {
				t.Fatalf("got %v; want %v with %q", err, tc.code, tc.msg)
			}
			if tc.challenge != "" && (len(e.Challenges()) == 0 || e.Challenges()[0] != tc.challenge) {
				t.Errorf("challenges %q, want %q first", e.Challenges(), tc.challenge)
			}
		})
	}
}

func TestGuardIgnoresUndeclaredAuthorization(t *testing.T) {
	card := &a2av1.AgentCard{SecuritySchemes: map[string]*a2av1.SecurityScheme{
		"key": {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: "header", Name: "X-Key"}}},
	}}
	g, err := New(card, Verifiers{})
	if err != nil {
		t.Fatal(err)
	}
	r := &runtime.AuthRequest{Info: &runtime.CallInfo{}, Header: http.Header{"Authorization": {"Bearer x"}}}
	if ctx, err := g.Authenticate(context.Background(), r); err != nil {
		t.Errorf("a bearer token for an agent without bearer schemes: %v", err)
	} else if _, ok := runtime.IdentityFromContext(ctx); ok {
		t.Error("an ignored token authenticated the caller")
	}
	// A nil verifier refuses what it would check.
	r.Header = http.Header{"X-Key": {"k"}}
	if _, err := g.Authenticate(context.Background(), r); !errors.Is(err, runtime.ErrUnauthenticated) {
		t.Errorf("a key without an APIKey verifier: %v", err)
	}
}

func TestNewRefusesWhatItCannotEnforce(t *testing.T) {
	for name, tc := range map[string]struct {
		card *a2av1.AgentCard
		want string
	}{
		"digest": {&a2av1.AgentCard{SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"d": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "digest"}}}}}, `http scheme "digest" is not supported`},
		"undeclared":       {&a2av1.AgentCard{SecurityRequirements: []*a2av1.SecurityRequirement{requirement(map[string][]string{"ghost": nil})}}, `names scheme "ghost"`},
		"skill undeclared": {&a2av1.AgentCard{Skills: []*a2av1.AgentSkill{{Id: "s", SecurityRequirements: []*a2av1.SecurityRequirement{requirement(map[string][]string{"ghost": nil})}}}}, `skill "s"'s security requirement 0`},
	} {
		if _, err := New(tc.card, Verifiers{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	g, _ := New(testCard(), Verifiers{})
	id := &runtime.Identity{Subject: "s", Schemes: map[string][]string{"oauth": {"read"}}}
	if err := g.Check(id, []*a2av1.SecurityRequirement{requirement(map[string][]string{"oauth": {"read"}})}); err != nil {
		t.Error(err)
	}
	if err := g.Check(nil, nil); err != nil {
		t.Errorf("no requirements: %v", err)
	}
	if err := g.Check(nil, []*a2av1.SecurityRequirement{requirement(nil)}); err != nil {
		t.Errorf("an empty requirement: %v", err)
	}
	if err := g.Check(id, []*a2av1.SecurityRequirement{requirement(map[string][]string{"oauth": {"write"}})}); !errors.Is(err, runtime.ErrUnauthorized) {
		t.Errorf("missing scope: %v", err)
	}
	if err := g.Check(nil, []*a2av1.SecurityRequirement{requirement(map[string][]string{"oauth": nil})}); !errors.Is(err, runtime.ErrUnauthenticated) {
		t.Errorf("anonymous: %v", err)
	}
}
