package agentcard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/grpc/credentials"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Credentials supplies the credential of one security scheme for one call,
// as a request header: ("Authorization", "Bearer …") for HTTP bearer and
// OAuth 2.0 schemes, (<name>, <key>) for an API key sent in a header. scheme
// is the card's declaration of the scheme, so a provider can read, for
// example, the header name of an apiKeySecurityScheme. It is called once
// per call (per HTTP request, per gRPC call), so it may refresh tokens; an
// error fails the call. On gRPC the header travels as lower-cased metadata.
type Credentials func(ctx context.Context, scheme *a2av1.SecurityScheme) (header, value string, err error)

// StaticHeader returns Credentials that always send the header name: value.
func StaticHeader(name, value string) Credentials {
	return func(context.Context, *a2av1.SecurityScheme) (string, string, error) { return name, value, nil }
}

// boundCredentials are the WithCredentials of a client, each with the
// card's declaration of its scheme.
type boundCredentials []boundCredential

type boundCredential struct {
	name   string
	scheme *a2av1.SecurityScheme
	creds  Credentials
}

// bindCredentials looks up every WithCredentials scheme in the card.
func (c *config) bindCredentials(card *a2av1.AgentCard) (boundCredentials, error) {
	var out boundCredentials
	for _, sc := range c.credentials {
		scheme, ok := card.GetSecuritySchemes()[sc.scheme]
		if !ok {
			declared := make([]string, 0, len(card.GetSecuritySchemes()))
			for name := range card.GetSecuritySchemes() {
				declared = append(declared, name)
			}
			return nil, fmt.Errorf("agentcard: WithCredentials(%q): the agent card %q declares no such security scheme (declared: %s)",
				sc.scheme, card.GetName(), listOrNone(declared))
		}
		if sc.creds == nil {
			return nil, fmt.Errorf("agentcard: WithCredentials(%q): nil Credentials", sc.scheme)
		}
		out = append(out, boundCredential{name: sc.scheme, scheme: scheme, creds: sc.creds})
	}
	return out, nil
}

// headers calls every provider and returns the header pairs to send.
func (bc boundCredentials) headers(ctx context.Context) ([][2]string, error) {
	out := make([][2]string, 0, len(bc))
	for _, b := range bc {
		name, value, err := b.creds(ctx, b.scheme)
		if err != nil {
			return nil, fmt.Errorf("agentcard: credentials of security scheme %q: %w", b.name, err)
		}
		if name == "" {
			return nil, fmt.Errorf("agentcard: credentials of security scheme %q: empty header name", b.name)
		}
		out = append(out, [2]string{name, value})
	}
	return out, nil
}

// credentialTransport adds the credentials to HTTP requests for the
// interface's host only, so that a redirect to another host does not carry
// them away.
type credentialTransport struct {
	base  http.RoundTripper
	host  string // host[:port] of the interface URL
	creds boundCredentials
}

func (t *credentialTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(req.URL.Host, t.host) {
		return t.base.RoundTrip(req)
	}
	hs, err := t.creds.headers(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // RoundTrip must close the body, even on errors
		}
		return nil, err
	}
	req = req.Clone(req.Context()) // a RoundTripper must not modify the request
	for _, h := range hs {
		req.Header.Set(h[0], h[1])
	}
	return t.base.RoundTrip(req)
}

// credentialMiddleware returns the HTTP middleware that adds the
// credentials to requests for the host of rawURL, or nil without credentials
// or when rawURL is not an http(s) URL (a gRPC target, which gets them as
// per-RPC metadata instead).
func credentialMiddleware(rawURL string, creds boundCredentials) func(http.RoundTripper) http.RoundTripper {
	if len(creds) == 0 {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return func(base http.RoundTripper) http.RoundTripper {
		return &credentialTransport{base: base, host: u.Host, creds: creds}
	}
}

// grpcCredentials adds the credentials to every gRPC call as metadata.
type grpcCredentials struct {
	creds boundCredentials
}

var _ credentials.PerRPCCredentials = grpcCredentials{}

func (g grpcCredentials) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	hs, err := g.creds.headers(ctx)
	if err != nil {
		return nil, err
	}
	md := make(map[string]string, len(hs))
	for _, h := range hs {
		md[strings.ToLower(h[0])] = h[1]
	}
	return md, nil
}

// RequireTransportSecurity is false so that credentials also reach agents
// on loopback or plaintext interfaces the card itself declares (http://,
// grpc://); over the network the default is TLS (runtime.ParseGRPCTarget).
func (grpcCredentials) RequireTransportSecurity() bool { return false }

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
