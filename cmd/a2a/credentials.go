package main

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// Credentials go only where the card's security schemes say (SPEC.md §12.1,
// A2A §7.3): --bearer as the Authorization header of a scheme that takes a
// bearer token (HTTP bearer, OAuth 2.0, OpenID Connect), --api-key in the
// header, query parameter or cookie an API key scheme names. A credential
// no declared scheme takes is not sent at all, and a warning says so: an
// agent is never handed a secret it did not ask for.

// takesBearer reports whether a scheme takes "Authorization: Bearer …".
func takesBearer(s *a2av1.SecurityScheme) bool {
	switch {
	case s.GetHttpAuthSecurityScheme() != nil:
		return strings.EqualFold(s.GetHttpAuthSecurityScheme().GetScheme(), "bearer")
	case s.GetOauth2SecurityScheme() != nil, s.GetOpenIdConnectSecurityScheme() != nil:
		return true
	}
	return false
}

// schemeNames are the card's scheme names in a stable order.
func schemeNames(card *a2av1.AgentCard) []string {
	names := make([]string, 0, len(card.GetSecuritySchemes()))
	for n := range card.GetSecuritySchemes() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// bearerToken is --bearer (or A2ACLI_BEARER), else a token 'auth login'
// stored for the card.
func (a *app) bearerToken(card *a2av1.AgentCard) string {
	if a.bearer != "" {
		return a.bearer
	}
	if tok := a.storedToken(card); tok != "" {
		a.secrets = append(a.secrets, tok)
		return tok
	}
	return ""
}

// credentialOptions attach the caller's credentials as card declares.
func (a *app) credentialOptions(card *a2av1.AgentCard) ([]agentcard.Option, []runtime.ClientOption, error) {
	opts := a.bearerOptions(card)
	keyOpts, extra := a.apiKeyOptions(card)
	return append(opts, keyOpts...), extra, nil
}

// bearerOptions send the bearer token, if any, under the first scheme of
// the card that takes one; without such a scheme they are none, with a
// warning.
func (a *app) bearerOptions(card *a2av1.AgentCard) []agentcard.Option {
	tok := a.bearerToken(card)
	if tok == "" {
		return nil
	}
	for _, n := range schemeNames(card) {
		if takesBearer(card.GetSecuritySchemes()[n]) {
			return []agentcard.Option{agentcard.WithCredentials(n, agentcard.StaticHeader("Authorization", "Bearer "+tok))}
		}
	}
	fmt.Fprintf(a.env.stderr, "a2a: warning: not sending the bearer token: the card of %q declares no scheme that takes one (declared: %s)\n",
		card.GetName(), listOr(schemeNames(card), "none"))
	return nil
}

// apiKeyOptions send --api-key, if given, as the card's first API key
// scheme says: in a header through the card's credentials, in a query
// parameter or cookie through a middleware (extra). Without such a scheme
// they are none, with a warning.
func (a *app) apiKeyOptions(card *a2av1.AgentCard) (opts []agentcard.Option, extra []runtime.ClientOption) {
	key := a.apiKey
	if key == "" {
		return nil, nil
	}
	for _, n := range schemeNames(card) {
		scheme := card.GetSecuritySchemes()[n].GetApiKeySecurityScheme()
		switch {
		case scheme == nil:
			continue
		case strings.EqualFold(scheme.GetLocation(), "query"), strings.EqualFold(scheme.GetLocation(), "cookie"):
			return nil, []runtime.ClientOption{runtime.WithHTTPMiddleware(apiKeyMiddleware(card, scheme, key))}
		default: // header
			return []agentcard.Option{agentcard.WithCredentials(n, agentcard.StaticHeader(scheme.GetName(), key))}, nil
		}
	}
	fmt.Fprintf(a.env.stderr, "a2a: warning: not sending the API key: the card of %q declares no API key scheme (declared: %s)\n",
		card.GetName(), listOr(schemeNames(card), "none"))
	return nil, nil
}

// apiKeyMiddleware puts the key in the query parameter or cookie the scheme
// names, on requests to the card's interface hosts only.
func apiKeyMiddleware(card *a2av1.AgentCard, scheme *a2av1.APIKeySecurityScheme, key string) func(http.RoundTripper) http.RoundTripper {
	hosts := map[string]bool{}
	for _, iface := range card.GetSupportedInterfaces() {
		if u, err := url.Parse(iface.GetUrl()); err == nil && u.Host != "" {
			hosts[u.Host] = true
		}
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if !hosts[req.URL.Host] {
				return next.RoundTrip(req)
			}
			req = req.Clone(req.Context())
			if strings.EqualFold(scheme.GetLocation(), "cookie") {
				req.AddCookie(&http.Cookie{Name: scheme.GetName(), Value: key})
			} else {
				q := req.URL.Query()
				q.Set(scheme.GetName(), key)
				req.URL.RawQuery = q.Encode()
			}
			return next.RoundTrip(req)
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
