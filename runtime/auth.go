package runtime

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// Authenticator decides who is calling before a binding decodes the
// request: it runs on every binding right after the service parameters
// (A2A-Version, A2A-Extensions) are negotiated, and before the request is
// decoded and validated, so an unauthenticated caller learns nothing about
// the request's validity.
//
// It returns the context the handler runs with — usually ctx with an
// Identity attached (WithIdentity) — or an error that refuses the call:
// Unauthenticated (HTTP 401, gRPC UNAUTHENTICATED, JSON-RPC -31401 with HTTP
// 401) or Unauthorized (403, PERMISSION_DENIED, -31403 with HTTP 403).
// Challenges added with (*Error).WithChallenge travel as WWW-Authenticate
// headers (gRPC: www-authenticate trailer metadata). Other errors are
// answered as Internal and logged. Returning a nil context keeps ctx.
type Authenticator func(ctx context.Context, r *AuthRequest) (context.Context, error)

// WithAuthenticator makes every call of the binding go through a (see
// Authenticator). Give the same Authenticator to every binding of an agent
// so that all of them enforce the same rules.
//
// challenges are the default challenges of the agent (RFC 9110 §11.6.1,
// e.g. `Bearer realm="agent"`), sent with every Unauthenticated error that
// carries none of its own — one from a handler, such as the default server
// refusing the extended card to an anonymous caller, or from an
// Authenticator that added none — so that every 401 (gRPC: every
// UNAUTHENTICATED) comes with WWW-Authenticate (www-authenticate trailer
// metadata), as RFC 9110 §15.5.2 requires and A2A asks. Without them, and
// without this option, such errors carry GenericChallenge. A nil a with
// challenges only sets the defaults (for agents that authenticate in the
// handler).
func WithAuthenticator(a Authenticator, challenges ...string) HandlerOption {
	return func(c *handlerConfig) {
		c.authenticator = a
		c.challenges = slices.Clone(challenges)
	}
}

// GenericChallenge is the challenge an Unauthenticated error carries when
// neither it nor the binding's WithAuthenticator names one: Bearer, the
// scheme of A2A's http-bearer, oauth2 and openIdConnect security schemes,
// with a realm that names no particular agent.
const GenericChallenge = `Bearer realm="a2a"`

// withDefaultChallenges returns e, or, for an Unauthenticated error without
// challenges, a copy carrying the default ones (WithAuthenticator's, else
// GenericChallenge).
func (c *handlerConfig) withDefaultChallenges(e *Error) *Error {
	if e == nil || e.code != CodeUnauthenticated || len(e.challenges) > 0 {
		return e
	}
	out := *e
	if len(c.challenges) > 0 {
		out.challenges = slices.Clone(c.challenges)
	} else {
		out.challenges = []string{GenericChallenge}
	}
	return &out
}

// AuthRequest is what an Authenticator can read of a call, whatever its
// binding.
type AuthRequest struct {
	// Info holds the operation, binding, negotiated version and extensions
	// of the call; its tenant is not known yet. For a request that names no
	// operation of the service (an unknown JSON-RPC method or HTTP+JSON
	// route, authenticated before it is answered "not found"), Operation is
	// nil and only Binding and Header are set.
	Info *CallInfo
	// Header holds the request headers; on gRPC the request metadata with
	// keys canonicalised like HTTP headers (Header.Get("Authorization") and
	// Header.Get("X-Api-Key") work on every binding).
	Header http.Header
	// Query is the URL query of the HTTP bindings; nil on gRPC, which has
	// none (see QueryValue).
	Query url.Values
	// TLS is the connection's TLS state, with the client's verified
	// certificate chains when the server asked for client certificates;
	// nil on a connection without TLS.
	TLS *tls.ConnectionState
	// RemoteAddr is the network address of the client.
	RemoteAddr string
}

// Cookie returns the named cookie of the request's Cookie header (on gRPC:
// cookie metadata), or http.ErrNoCookie.
func (r *AuthRequest) Cookie(name string) (*http.Cookie, error) {
	cookies, err := http.ParseCookie(joinCookieHeaders(r.Header.Values("Cookie")))
	if err != nil {
		return nil, http.ErrNoCookie
	}
	for _, c := range cookies {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, http.ErrNoCookie
}

// joinCookieHeaders merges repeated Cookie headers (HTTP/2 and gRPC may
// split them) into one line.
func joinCookieHeaders(lines []string) string {
	switch len(lines) {
	case 0:
		return ""
	case 1:
		return lines[0]
	}
	out := lines[0]
	for _, l := range lines[1:] {
		out += "; " + l
	}
	return out
}

// QueryValue returns the first value of the query parameter name. gRPC has
// no query string, so there the metadata entry of that name (compared
// case-insensitively) stands in for it; credentials an agent accepts in the
// query can then be sent as metadata.
func (r *AuthRequest) QueryValue(name string) string {
	if r.Query != nil {
		return r.Query.Get(name)
	}
	if r.Info != nil && r.Info.Binding == BindingGRPC {
		if vs := serviceParamValues(r.Header, name, http.CanonicalHeaderKey(name)); len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// Identity is the authenticated caller of a call.
type Identity struct {
	// Subject identifies the caller: a user, a client id, an API key id, a
	// certificate subject. It is never empty for an authenticated caller.
	Subject string
	// Schemes maps the security schemes of the agent card the call
	// satisfied to the scopes (or roles) each granted.
	Schemes map[string][]string
	// Claims is whatever else the verifier wants handlers to see (token
	// claims, the certificate); for several schemes, the first one's.
	Claims any
}

// HasScheme reports whether the call satisfied the named security scheme
// with at least the given scopes.
func (id *Identity) HasScheme(scheme string, scopes ...string) bool {
	if id == nil {
		return false
	}
	granted, ok := id.Schemes[scheme]
	if !ok {
		return false
	}
	for _, s := range scopes {
		if !slices.Contains(granted, s) {
			return false
		}
	}
	return true
}

type identityKey struct{}

// WithIdentity returns ctx carrying the caller's identity; Authenticators
// call it.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFromContext returns the identity an Authenticator attached to the
// call, or false for an anonymous one.
func IdentityFromContext(ctx context.Context) (*Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(*Identity)
	return id, ok && id != nil
}

// WithChallenge returns a copy of e carrying one more authentication
// challenge (RFC 9110 §11.6.1), such as `Bearer realm="agent"`. The HTTP
// bindings send each as a WWW-Authenticate header, gRPC as www-authenticate
// trailer metadata; on the JSON-RPC binding an Unauthenticated error is then
// answered with HTTP 401 and an Unauthorized one with 403.
func (e *Error) WithChallenge(challenge string) *Error {
	c := *e
	c.challenges = append(slices.Clip(e.challenges), challenge)
	return &c
}

// Challenges returns the authentication challenges of the error. On the
// client side they are what the agent sent with the error — the
// WWW-Authenticate headers of an HTTP answer, the www-authenticate trailer
// metadata of a gRPC status — so a caller learns which scheme the agent
// wants.
func (e *Error) Challenges() []string { return slices.Clone(e.challenges) }

// withResponseChallenges adds the WWW-Authenticate challenges of an HTTP
// answer to the *Error decoded from it; other errors pass unchanged.
func withResponseChallenges(err error, h http.Header) error {
	return withChallenges(err, h.Values("WWW-Authenticate"))
}

// withTrailerChallenges adds the www-authenticate trailer entries of a gRPC
// call to the *Error decoded from its status; other errors pass unchanged.
func withTrailerChallenges(err error, trailer metadata.MD) error {
	return withChallenges(err, trailer.Get("www-authenticate"))
}

// withChallenges returns the *Error in err with challenges added, or err
// unchanged when it has none or is no *Error.
func withChallenges(err error, challenges []string) error {
	var e *Error
	if len(challenges) == 0 || !errors.As(err, &e) {
		return err
	}
	for _, v := range challenges {
		e = e.WithChallenge(v)
	}
	return e
}

// authenticate runs the configured Authenticator for a call. It returns the
// context to serve the call with, or the error to answer.
func (c *handlerConfig) authenticate(ctx context.Context, r *AuthRequest) (context.Context, *Error) {
	if c.authenticator == nil {
		return ctx, nil
	}
	if e := CheckSingleAuthorization(r.Header); e != nil {
		return ctx, e
	}
	out, err := c.authenticator(ctx, r)
	if err != nil {
		e := ErrorOrInternal(err)
		if e == nil {
			e = Internal(fmt.Errorf("authenticator returned a nil *Error as its error"))
		}
		if e.code == CodeInternal {
			// As for handlers (handlerError): giving up because the
			// call's context ended is no failure of the agent.
			level := slog.LevelError
			if ctxErr := handlerContextErr(ctx, err); ctxErr != nil && (r.Info.Binding == BindingGRPC || errors.Is(ctxErr, context.Canceled)) {
				level = slog.LevelDebug
			}
			c.logger.Log(ctx, level, "a2a: authenticator failed", "binding", r.Info.Binding, "error", err)
			e = timeoutError(e, err)
		}
		return ctx, c.withDefaultChallenges(e)
	}
	if out == nil {
		out = ctx
	}
	return out, nil
}

// CheckSingleAuthorization refuses a request carrying more than one
// Authorization header field line (on gRPC: more than one authorization
// metadata entry) with InvalidRequest — HTTP 400, gRPC INVALID_ARGUMENT,
// JSON-RPC -32600 — or returns nil. Authorization holds one credential and
// is not a list (RFC 9110 §11.6.2), so a sender must not repeat it (§5.3);
// reading only the first value, as Header.Get does, would let two parts of
// a deployment (a proxy and the agent, or two authenticators) disagree on
// who is calling. The request is malformed rather than unauthenticated, so
// it is not answered 401, which would invite a retry with credentials.
//
// Every binding runs it before the Authenticator of WithAuthenticator; an
// agent that reads Authorization in its handlers instead can call it.
func CheckSingleAuthorization(h http.Header) *Error {
	if n := len(h["Authorization"]); n > 1 {
		return NewError(CodeInvalidRequest, fmt.Sprintf(
			"the request carries %d Authorization headers; send exactly one credential", n))
	}
	return nil
}

// refuseUnknownOperation authenticates an HTTP request that names no
// operation of the service (an unknown JSON-RPC method, an HTTP+JSON path
// with no route) and returns the refusal to answer it with, or nil when the
// caller passes and the request is answered "not found". Every request is
// authenticated (A2A §7.4), so that a caller without credentials learns
// nothing of which methods or routes exist and is told to authenticate
// first. The AuthRequest's Info has no Operation.
func (c *handlerConfig) refuseUnknownOperation(r *http.Request, binding Binding) *Error {
	if c.authenticator == nil {
		return nil
	}
	info := &CallInfo{Binding: binding, Header: r.Header, Peer: r.RemoteAddr}
	_, e := c.authenticate(r.Context(), c.httpAuthRequest(r, info))
	return e
}

// httpAuthRequest describes an HTTP request to an Authenticator; the query
// is parsed only when an Authenticator is configured.
func (c *handlerConfig) httpAuthRequest(r *http.Request, info *CallInfo) *AuthRequest {
	if c.authenticator == nil {
		return nil
	}
	q, _ := url.ParseQuery(r.URL.RawQuery) // keeps what parses, as net/http does
	return &AuthRequest{Info: info, Header: r.Header, Query: q, TLS: r.TLS, RemoteAddr: r.RemoteAddr}
}

// grpcAuthRequest describes a gRPC call to an Authenticator.
func (c *handlerConfig) grpcAuthRequest(ctx context.Context, info *CallInfo) *AuthRequest {
	if c.authenticator == nil {
		return nil
	}
	r := &AuthRequest{Info: info, Header: info.Header}
	if p, ok := peer.FromContext(ctx); ok {
		if p.Addr != nil {
			r.RemoteAddr = p.Addr.String()
		}
		if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok {
			state := ti.State
			r.TLS = &state
		}
	}
	return r
}

// setChallenges writes the challenges of e as WWW-Authenticate headers.
func setChallenges(h http.Header, e *Error) {
	for _, ch := range e.challenges {
		h.Add("WWW-Authenticate", ch)
	}
}

// jsonrpcStatus is the HTTP status of a JSON-RPC error response that would
// otherwise be 200: the authentication errors keep their HTTP meaning, so
// that proxies, browsers and HTTP clients see 401 and 403 with their
// challenges (A2A leaves the choice open).
func jsonrpcStatus(status int, e *Error) int {
	if status != http.StatusOK {
		return status
	}
	switch e.code {
	case CodeUnauthenticated:
		return http.StatusUnauthorized
	case CodeUnauthorized:
		return http.StatusForbidden
	}
	return status
}

// grpcChallenges is the www-authenticate trailer metadata carrying the
// challenges of e, or nil when it has none.
func grpcChallenges(e *Error) metadata.MD {
	if len(e.challenges) == 0 {
		return nil
	}
	return metadata.MD{"www-authenticate": slices.Clone(e.challenges)}
}
