// Package hosttest runs an agent of package host in a test: on free
// loopback ports, with verifiers that accept fixed test credentials, over
// TLS with a throw-away PKI when the card declares an mtls scheme, and with
// generated clients that present the credentials a skill needs; for agents
// serving A2A v0.3 too, v0.3 calls (SendV03) and the dual card
// (CheckV03Card). The tests a2a-scaffold generates use it.
package hosttest

import (
	"context"
	"crypto/x509"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
)

// The credentials Verifiers accept.
const (
	APIKey   = "test-api-key"
	Token    = "test-token"
	Username = "test-user"
	Password = "test-password"
	// Subject is the subject of every test principal.
	Subject = "test-caller"
)

// Agent is an agent started by Start.
type Agent struct {
	*host.Agent
	pki *PKI // nil without TLS or with the test's own TLS
	tls bool
}

// Start starts the agent of cfg for the test t and shuts it down when the
// test ends. Every distinct Address gets a free port on 127.0.0.1; the
// verifiers are those of Verifiers; when the card declares an mtls scheme
// (and cfg.TLS is nil) every listener uses TLS with a certificate of a
// fresh test PKI whose client certificates the agent accepts. Unless cfg
// sets a store (Config.Store, server.WithStore), the agent keeps its tasks
// in memory, so tests write no files (unlike host.Main, whose default store
// is a file). Unless cfg sets a ShutdownGrace, executions still running
// when the test ends are canceled at once rather than waited for; that is
// not a failure, but a shutdown that has to cut calls or whose executions
// do not return is.
func Start(t testing.TB, cfg host.Config) *Agent {
	t.Helper()
	card := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(cfg.CardJSON, card); err != nil {
		t.Fatalf("hosttest: the agent card does not decode: %v", err)
	}
	cfg.Verifiers = Verifiers(card)
	ta := &Agent{}
	if cfg.TLS == nil && hasMTLS(card) {
		ta.pki = NewPKI(t)
		cfg.TLS = ta.pki.ServerTLS()
	}
	ta.tls = cfg.TLS != nil
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = -1
	}
	cfg.Listen = func(network, _ string) (net.Listener, error) { return net.Listen(network, "127.0.0.1:0") }
	a, err := host.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(context.Background()); err != nil && !onlyCanceled(err) {
			t.Errorf("hosttest: shutdown: %v", err)
		}
	})
	ta.Agent = a
	return ta
}

// onlyCanceled reports whether err says nothing but that executions were
// canceled at the end of the grace period.
func onlyCanceled(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !errors.Is(e, host.ErrExecutionsCanceled) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, host.ErrExecutionsCanceled)
}

func hasMTLS(card *a2av1.AgentCard) bool {
	for _, s := range card.GetSecuritySchemes() {
		if s.GetMtlsSecurityScheme() != nil {
			return true
		}
	}
	return false
}

// Verifiers accepts the test credentials of this package for every scheme
// of card: APIKey, Token, Username with Password, and any client
// certificate the TLS configuration verified. Each grants every scope the
// card mentions for its scheme (in its OAuth flow and in any security
// requirement), so that every requirement can be met.
func Verifiers(card *a2av1.AgentCard) auth.Verifiers {
	scopes := scopesByScheme(card)
	grant := func(scheme string) auth.Principal {
		return auth.Principal{Subject: Subject, Scopes: scopes[scheme]}
	}
	refuse := runtime.Unauthenticated("not the test credentials")
	return auth.Verifiers{
		APIKey: func(_ context.Context, scheme, key string) (auth.Principal, error) {
			if key != APIKey {
				return auth.Principal{}, refuse
			}
			return grant(scheme), nil
		},
		Token: func(_ context.Context, scheme, token string) (auth.Principal, error) {
			if token != Token {
				return auth.Principal{}, refuse
			}
			return grant(scheme), nil
		},
		Basic: func(_ context.Context, scheme, user, password string) (auth.Principal, error) {
			if user != Username || password != Password {
				return auth.Principal{}, refuse
			}
			return grant(scheme), nil
		},
		Certificate: func(_ context.Context, scheme string, _ []*x509.Certificate) (auth.Principal, error) {
			return grant(scheme), nil
		},
	}
}

// scopesByScheme collects the scopes card mentions for each scheme.
func scopesByScheme(card *a2av1.AgentCard) map[string][]string {
	out := map[string][]string{}
	add := func(scheme string, scopes ...string) {
		for _, s := range scopes {
			if !slices.Contains(out[scheme], s) {
				out[scheme] = append(out[scheme], s)
			}
		}
	}
	for name, s := range card.GetSecuritySchemes() {
		f := s.GetOauth2SecurityScheme().GetFlows()
		for _, m := range []map[string]string{f.GetAuthorizationCode().GetScopes(), f.GetClientCredentials().GetScopes(), f.GetDeviceCode().GetScopes()} {
			add(name, slices.Sorted(maps.Keys(m))...)
		}
	}
	reqs := slices.Clone(card.GetSecurityRequirements())
	for _, sk := range card.GetSkills() {
		reqs = append(reqs, sk.GetSecurityRequirements()...)
	}
	for _, r := range reqs {
		for name, l := range r.GetSchemes() {
			add(name, l.GetList()...)
		}
	}
	return out
}

// Client returns the generated client of binding b of the agent, with the
// binding's tenant and the test credentials that meet the security
// requirements of the card and of the skill with id skill (none for "").
// card is the card whose requirements count (the extended card lists more
// skills than the public one). It fails the test when no set of
// credentials can be sent together (for instance Basic and Bearer, which
// share the Authorization header).
func (a *Agent) Client(t testing.TB, b host.Binding, card *a2av1.AgentCard, skill string) a2av1.A2AServiceClient {
	t.Helper()
	authz := skillAuthorization(t, card, skill)
	return a.client(t, b, card, authz, true, nil)
}

// skillAuthorization is the kind of Authorization (authorizationFor) that
// meets the security requirements of card and of its skill with id skill
// (none for ""). It fails the test when no set of credentials can be sent
// together.
func skillAuthorization(t testing.TB, card *a2av1.AgentCard, skill string) string {
	t.Helper()
	reqs := [][]*a2av1.SecurityRequirement{card.GetSecurityRequirements()}
	for _, s := range card.GetSkills() {
		if s.GetId() == skill {
			reqs = append(reqs, s.GetSecurityRequirements())
		}
	}
	authz, ok := authorizationFor(card, reqs)
	if !ok {
		t.Fatalf("hosttest: no credentials the test can send together meet the security requirements of skill %q", skill)
	}
	return authz
}

// ClientWith returns the generated client of binding b with the binding's
// tenant and opts but no test credentials (over TLS it trusts the test PKI
// but presents no client certificate).
func (a *Agent) ClientWith(t testing.TB, b host.Binding, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	return a.client(t, b, a.Card(), "", false, opts)
}

// PKI returns the test PKI the agent's TLS certificate comes from, or nil
// when Start made none (no mtls scheme, or the test's own Config.TLS).
func (a *Agent) PKI() *PKI { return a.pki }

// HTTPClient returns an HTTP client for the agent's HTTP listeners (which
// trusts the test PKI when the agent uses TLS), e.g. to read the card.
func (a *Agent) HTTPClient() *http.Client { return a.httpClient(false) }

// httpClient is HTTPClient, presenting the client certificate of the test
// PKI when cert is true.
func (a *Agent) httpClient(cert bool) *http.Client {
	if a.pki == nil {
		return &http.Client{}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: a.pki.clientTLS(cert), ForceAttemptHTTP2: true}}
}

// authorizationFor picks the Authorization header to send: Bearer or Basic,
// whichever the card declares and meets every requirement list, or none
// when the card declares neither (API keys and the client certificate are
// always sent). It reports false when no choice meets the requirements.
func authorizationFor(card *a2av1.AgentCard, reqs [][]*a2av1.SecurityRequirement) (string, bool) {
	var candidates []string // the kinds of Authorization the card declares
	for _, authz := range []string{"Bearer", "Basic"} {
		for _, s := range card.GetSecuritySchemes() {
			h := s.GetHttpAuthSecurityScheme()
			if (h != nil && strings.EqualFold(h.GetScheme(), authz)) || (h == nil && authz == "Bearer" &&
				(s.GetOauth2SecurityScheme() != nil || s.GetOpenIdConnectSecurityScheme() != nil)) {
				candidates = append(candidates, authz)
				break
			}
		}
	}
	if len(candidates) == 0 {
		candidates = []string{""}
	}
	for _, authz := range candidates {
		sent := map[string]bool{}
		for name, s := range card.GetSecuritySchemes() {
			switch {
			case s.GetApiKeySecurityScheme() != nil, s.GetMtlsSecurityScheme() != nil:
				sent[name] = true
			case s.GetHttpAuthSecurityScheme() != nil:
				sent[name] = strings.EqualFold(s.GetHttpAuthSecurityScheme().GetScheme(), authz)
			default: // oauth2, openIdConnect
				sent[name] = authz == "Bearer"
			}
		}
		if met(reqs, sent) {
			return authz, true
		}
	}
	return "", false
}

func met(lists [][]*a2av1.SecurityRequirement, sent map[string]bool) bool {
	for _, reqs := range lists {
		if len(reqs) == 0 {
			continue
		}
		ok := slices.ContainsFunc(reqs, func(r *a2av1.SecurityRequirement) bool {
			for name := range r.GetSchemes() {
				if !sent[name] {
					return false
				}
			}
			return true
		})
		if !ok {
			return false
		}
	}
	return true
}

// client builds the generated client of b presenting the test
// credentials — authz ("Bearer", "Basic" or "") and, when withCreds, every
// API key of card and the client certificate — followed by extra.
func (a *Agent) client(t testing.TB, b host.Binding, card *a2av1.AgentCard, authz string, withCreds bool, extra []runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	var opts []runtime.ClientOption
	if b.Tenant != "" {
		opts = append(opts, runtime.WithClientTenant(b.Tenant))
	}
	headers, hc := a.credentials(b, card, authz, withCreds)
	for _, h := range headers {
		opts = append(opts, runtime.WithHeader(h[0], h[1]))
	}
	opts = append(opts, extra...)
	if b.Protocol.IsHTTP() {
		opts = append([]runtime.ClientOption{runtime.WithHTTPClient(hc)}, opts...)
	} else if a.pki != nil {
		opts = append(opts, runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(a.pki.clientTLS(withCreds)))))
	}
	spec, ok := runtime.BindingSpecOf(b.Protocol)
	if !ok {
		t.Fatalf("hosttest: %q is not a binding", b.Protocol)
	}
	tr, err := spec.NewTransport(a.URL(b), runtime.ClientDefaults(&a2av1.A2AServiceDesc, opts)...)
	if err != nil {
		t.Fatal(err)
	}
	return a2av1.NewA2AServiceClient(tr)
}

// credentials are the headers (name, value) that carry the test
// credentials authz says (Bearer, Basic or none) and, with withCreds, the
// API keys of card's schemes on binding b; and the HTTP client to send
// them with (presenting the test PKI's client certificate with withCreds,
// and adding the API keys that travel in the query).
func (a *Agent) credentials(b host.Binding, card *a2av1.AgentCard, authz string, withCreds bool) ([][2]string, *http.Client) {
	var headers [][2]string
	switch authz {
	case "Bearer":
		headers = append(headers, [2]string{"Authorization", "Bearer " + Token})
	case "Basic":
		r, _ := http.NewRequest("GET", "/", nil)
		r.SetBasicAuth(Username, Password)
		headers = append(headers, [2]string{"Authorization", r.Header.Get("Authorization")})
	}
	var query []string
	if withCreds {
		for _, name := range slices.Sorted(maps.Keys(card.GetSecuritySchemes())) {
			k := card.GetSecuritySchemes()[name].GetApiKeySecurityScheme()
			switch {
			case k == nil:
			case k.GetLocation() == "cookie":
				headers = append(headers, [2]string{"Cookie", k.GetName() + "=" + APIKey})
			case k.GetLocation() == "query" && b.Protocol != runtime.BindingGRPC:
				query = append(query, k.GetName())
			default: // header; on gRPC also query keys, as metadata
				headers = append(headers, [2]string{k.GetName(), APIKey})
			}
		}
	}
	hc := a.httpClient(withCreds)
	if len(query) > 0 {
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		hc.Transport = &queryKeys{base: base, names: query}
	}
	return headers, hc
}

// queryKeys adds the test API key under each name to the query of every
// request.
type queryKeys struct {
	base  http.RoundTripper
	names []string
}

func (q *queryKeys) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	v := r.URL.Query()
	for _, n := range q.names {
		v.Set(n, APIKey)
	}
	r.URL.RawQuery = v.Encode()
	return q.base.RoundTrip(r)
}
