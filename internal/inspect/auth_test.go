package inspect

import (
	"net/http"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/clitokens"
)

// TestCredentialsFollowTheCard: each secret goes where the card's scheme
// says — Authorization for bearer, basic and OAuth, the declared header,
// query parameter or cookie for API keys — and an unknown scheme is an
// error naming it.
func TestCredentialsFollowTheCard(t *testing.T) {
	apiKey := func(loc, name string) *a2av1.SecurityScheme {
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: loc, Name: name}}}
	}
	card := &a2av1.AgentCard{SecuritySchemes: map[string]*a2av1.SecurityScheme{
		"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
		"basic":  {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "Basic"}}},
		"oauth":  {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{}}},
		"header": apiKey("header", "X-Api-Key"),
		"query":  apiKey("query", "api_key"),
		"cookie": apiKey("cookie", "session"),
	}}
	for _, tc := range []struct {
		scheme, secret string
		header, value  string // the header sent, "" for none
		query          string
	}{
		{"bearer", "tok", "Authorization", "Bearer tok", ""},
		{"basic", "ann:pw", "Authorization", "Basic YW5uOnB3", ""},
		{"oauth", "at", "Authorization", "Bearer at", ""},
		{"header", "k1", "X-Api-Key", "k1", ""},
		{"cookie", "c1", "Cookie", "session=c1", ""},
		{"query", "q1", "", "", "api_key=q1"},
	} {
		c, err := credentialsFor(card, Auth{Schemes: map[string]string{tc.scheme: tc.secret}}, clitokens.Store{})
		if err != nil {
			t.Fatalf("%s: %v", tc.scheme, err)
		}
		if tc.header != "" && (len(c.headers) != 1 || c.headers[0] != [2]string{tc.header, tc.value}) {
			t.Errorf("%s: headers %v, want %s: %s", tc.scheme, c.headers, tc.header, tc.value)
		}
		if tc.query != "" {
			var got string
			rt := c.queryMiddleware(roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				got = r.URL.RawQuery
				return nil, http.ErrUseLastResponse
			}))
			req, _ := http.NewRequest("GET", "http://127.0.0.1/a2a?x=1", nil)
			_, _ = rt.RoundTrip(req)
			if !strings.Contains(got, tc.query) || !strings.Contains(got, "x=1") || len(c.headers) != 0 {
				t.Errorf("%s: query %q, headers %v", tc.scheme, got, c.headers)
			}
		}
	}
	if _, err := credentialsFor(card, Auth{Schemes: map[string]string{"nope": "x"}}, clitokens.Store{}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown scheme: %v", err)
	}
	if _, err := credentialsFor(card, Auth{ClientCert: "not pem", ClientKey: "x"}, clitokens.Store{}); err == nil || !strings.Contains(err.Error(), "client certificate") {
		t.Errorf("bad certificate: %v", err)
	}
}

// TestCredentialsUseTheLoginToken: an OAuth or OpenID Connect scheme the
// page gives no token for sends the token a2a auth login stored for the
// card's agent and that scheme, and says so; a token typed in the page
// wins; a token stored for another agent or scheme is not sent.
func TestCredentialsUseTheLoginToken(t *testing.T) {
	tokens := clitokens.In(t.TempDir())
	if err := tokens.Save("Weather", clitokens.Token{AccessToken: "stored-at", Scheme: "oidc"}); err != nil {
		t.Fatal(err)
	}
	if err := tokens.Save("Other", clitokens.Token{AccessToken: "other-at", Scheme: "oidc"}); err != nil {
		t.Fatal(err)
	}
	card := func(name, scheme string) *a2av1.AgentCard {
		return &a2av1.AgentCard{Name: name, SecuritySchemes: map[string]*a2av1.SecurityScheme{
			scheme: {Scheme: &a2av1.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &a2av1.OpenIdConnectSecurityScheme{}}},
		}}
	}
	authorization := func(c *credentials) string {
		for _, h := range c.headers {
			if h[0] == "Authorization" {
				return h[1]
			}
		}
		return ""
	}
	c, err := credentialsFor(card("Weather", "oidc"), Auth{}, tokens)
	if err != nil {
		t.Fatal(err)
	}
	if got := authorization(c); got != "Bearer stored-at" {
		t.Errorf("stored token: Authorization %q, want Bearer stored-at", got)
	}
	if len(c.applied) != 1 || !strings.Contains(c.applied[0], "a2a auth login") {
		t.Errorf("applied %q does not say the token is the stored one", c.applied)
	}
	if !strings.Contains(strings.Join(c.secrets, " "), "stored-at") {
		t.Error("the stored token is not masked in the wire view")
	}
	c, err = credentialsFor(card("Weather", "oidc"), Auth{Schemes: map[string]string{"oidc": "typed"}}, tokens)
	if err != nil || authorization(c) != "Bearer typed" {
		t.Errorf("a typed token: %v %v, want Bearer typed", c, err)
	}
	for _, other := range []*a2av1.AgentCard{card("Nobody", "oidc"), card("Weather", "another-scheme")} {
		c, err = credentialsFor(other, Auth{}, tokens)
		if err != nil || authorization(c) != "" {
			t.Errorf("card %s/%v: Authorization %q (%v), want none", other.GetName(), other.GetSecuritySchemes(), authorization(c), err)
		}
	}
}
