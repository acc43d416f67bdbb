package inspect

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/clitokens"
)

// Auth is what the user gave the inspector to authenticate with, kept in
// memory only.
type Auth struct {
	// Schemes holds a secret per security scheme of the card (its key in
	// securitySchemes): the token of a bearer or OAuth 2.0 / OpenID Connect
	// scheme, the key of an API-key scheme, "user:password" (or its base64)
	// for a Basic scheme.
	Schemes map[string]string `json:"schemes"`
	// Headers are sent with every call as given (gRPC metadata on gRPC).
	Headers []Header `json:"headers"`
	// ClientCert and ClientKey (PEM) are presented in TLS handshakes, for
	// mutual-TLS schemes.
	ClientCert string `json:"clientCert"`
	ClientKey  string `json:"clientKey"`
}

// Header is one custom header.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// credentials is Auth applied to a card: what each call sends.
type credentials struct {
	headers [][2]string       // header name, value
	query   map[string]string // API keys declared "in: query"
	cert    *tls.Certificate
	applied []string // one line per credential, for the page
	cookies []string // API keys declared "in: cookie", as name=value
	// what the wire view must hide besides the usual headers
	maskHeaders, maskQuery, secrets []string
}

// credentialsFor turns the user's Auth into what calls send, reading each
// scheme's declaration in card: where an API key goes (header, query,
// cookie) and under which name, which HTTP scheme a token is for.
//
// An OAuth 2.0 or OpenID Connect scheme the user gave no token for takes the
// token `a2a auth login` stored for the card's agent and that scheme
// (tokens, internal/clitokens), so a login made once serves the CLI and
// the inspector.
func credentialsFor(card *a2av1.AgentCard, a Auth, tokens clitokens.Store) (*credentials, error) {
	c := &credentials{query: map[string]string{}}
	secrets, stored, err := schemeSecrets(card, a.Schemes, tokens)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(secrets))
	for name, v := range secrets {
		if v != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		scheme, ok := card.GetSecuritySchemes()[name]
		if !ok {
			return nil, fmt.Errorf("security scheme %q: the card declares no such scheme", name)
		}
		if err := c.applyScheme(name, scheme, secrets[name], stored[name]); err != nil {
			return nil, err
		}
	}
	if len(c.cookies) > 0 {
		c.headers = append(c.headers, [2]string{"Cookie", strings.Join(c.cookies, "; ")})
	}
	if err := c.addHeaders(a.Headers); err != nil {
		return nil, err
	}
	if a.ClientCert != "" || a.ClientKey != "" {
		cert, err := tls.X509KeyPair([]byte(a.ClientCert), []byte(a.ClientKey))
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w (give the certificate and its private key, both PEM)", err)
		}
		c.cert = &cert
		c.applied = append(c.applied, "client certificate for mutual TLS")
	}
	return c, nil
}

// schemeSecrets is the secret of each scheme: the one the user gave, else
// for an OAuth 2.0 or OpenID Connect scheme the token a2a auth login stored
// for the card's agent and that scheme (marked in stored).
func schemeSecrets(card *a2av1.AgentCard, given map[string]string, tokens clitokens.Store) (secrets map[string]string, stored map[string]bool, err error) {
	secrets = maps.Clone(given)
	if secrets == nil {
		secrets = map[string]string{}
	}
	stored = map[string]bool{}
	tok, ok, err := tokens.For(card.GetName())
	if err != nil {
		return nil, nil, fmt.Errorf("tokens stored by a2a auth login: %w", err)
	}
	if !ok {
		return secrets, stored, nil
	}
	for name, scheme := range card.GetSecuritySchemes() {
		if isOAuth(scheme) && secrets[name] == "" && (tok.Scheme == "" || tok.Scheme == name) {
			secrets[name], stored[name] = tok.AccessToken, true
		}
	}
	return secrets, stored, nil
}

// isOAuth reports whether the scheme is OAuth 2.0 or OpenID Connect, whose
// credential is a bearer access token.
func isOAuth(scheme *a2av1.SecurityScheme) bool {
	switch scheme.GetScheme().(type) {
	case *a2av1.SecurityScheme_Oauth2SecurityScheme, *a2av1.SecurityScheme_OpenIdConnectSecurityScheme:
		return true
	}
	return false
}

// applyScheme sends secret as the named scheme declares; fromLogin says
// the secret is a token a2a auth login stored.
func (c *credentials) applyScheme(name string, scheme *a2av1.SecurityScheme, secret string, fromLogin bool) error {
	c.secrets = append(c.secrets, secret)
	switch s := scheme.GetScheme().(type) {
	case *a2av1.SecurityScheme_HttpAuthSecurityScheme:
		c.applyHTTPAuth(name, s.HttpAuthSecurityScheme.GetScheme(), secret)
	case *a2av1.SecurityScheme_Oauth2SecurityScheme, *a2av1.SecurityScheme_OpenIdConnectSecurityScheme:
		c.headers = append(c.headers, [2]string{"Authorization", "Bearer " + secret})
		from := "an access token obtained elsewhere"
		if fromLogin {
			from = "the token a2a auth login stored"
		}
		c.applied = append(c.applied, fmt.Sprintf("%s: Authorization: Bearer **** (%s)", name, from))
	case *a2av1.SecurityScheme_ApiKeySecurityScheme:
		return c.applyAPIKey(name, s.ApiKeySecurityScheme, secret)
	case *a2av1.SecurityScheme_MtlsSecurityScheme:
		c.applied = append(c.applied, name+": mutual TLS, with the client certificate below")
	default:
		return fmt.Errorf("security scheme %q: the card declares no kind of scheme", name)
	}
	return nil
}

// applyHTTPAuth sends an HTTP authentication scheme's Authorization header;
// a Basic secret given as user:password is encoded.
func (c *credentials) applyHTTPAuth(name, kind, secret string) {
	value := secret
	if strings.EqualFold(kind, "basic") && strings.Contains(secret, ":") {
		value = base64.StdEncoding.EncodeToString([]byte(secret))
		c.secrets = append(c.secrets, value)
	}
	if strings.EqualFold(kind, "bearer") {
		kind = "Bearer"
	} else if strings.EqualFold(kind, "basic") {
		kind = "Basic"
	}
	c.headers = append(c.headers, [2]string{"Authorization", kind + " " + value})
	c.applied = append(c.applied, fmt.Sprintf("%s: Authorization: %s ****", name, kind))
}

// applyAPIKey puts an API key in the header, query parameter or cookie the
// scheme names.
func (c *credentials) applyAPIKey(name string, key *a2av1.APIKeySecurityScheme, secret string) error {
	switch strings.ToLower(key.GetLocation()) {
	case "header":
		c.headers = append(c.headers, [2]string{key.GetName(), secret})
		c.maskHeaders = append(c.maskHeaders, key.GetName())
		c.applied = append(c.applied, fmt.Sprintf("%s: header %s: ****", name, key.GetName()))
	case "query":
		c.query[key.GetName()] = secret
		c.maskQuery = append(c.maskQuery, key.GetName())
		c.applied = append(c.applied, fmt.Sprintf("%s: query parameter %s=**** (HTTP bindings)", name, key.GetName()))
	case "cookie":
		c.cookies = append(c.cookies, key.GetName()+"="+secret)
		c.applied = append(c.applied, fmt.Sprintf("%s: cookie %s=****", name, key.GetName()))
	default:
		return fmt.Errorf("security scheme %q: API key location %q is none of header, query, cookie", name, key.GetLocation())
	}
	return nil
}

// addHeaders adds the user's custom headers, refusing ones that would
// break the request's framing.
func (c *credentials) addHeaders(headers []Header) error {
	for _, h := range headers {
		name := strings.TrimSpace(h.Name)
		if name == "" {
			continue
		}
		if strings.ContainsAny(name, " :\r\n") || strings.ContainsAny(h.Value, "\r\n") {
			return fmt.Errorf("header %q: a name without spaces or colons and a one-line value, please", name)
		}
		c.headers = append(c.headers, [2]string{name, h.Value})
		c.applied = append(c.applied, "header "+name)
	}
	return nil
}

// queryMiddleware adds the API keys declared "in: query" to every HTTP
// request of the bindings.
func (c *credentials) queryMiddleware(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		req = req.Clone(req.Context())
		q := req.URL.Query()
		for k, v := range c.query {
			q.Set(k, v)
		}
		req.URL.RawQuery = q.Encode()
		return next.RoundTrip(req)
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
