package auth

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Guard enforces the security of one agent card.
type Guard struct {
	realm        string
	schemes      []scheme
	requirements []*a2av1.SecurityRequirement
	v            Verifiers
}

// New returns the Guard of card: its security schemes are what calls may
// authenticate with, its securityRequirements what every call needs. The
// skills' own requirements are checked with Check. It fails when the card
// declares a scheme it cannot enforce (an http scheme other than bearer or
// basic) or a requirement names an undeclared scheme.
func New(card *a2av1.AgentCard, v Verifiers) (*Guard, error) {
	schemes, err := schemesOf(card)
	if err != nil {
		return nil, err
	}
	if err := checkRequirements(card, schemes, "the card's", card.GetSecurityRequirements()); err != nil {
		return nil, err
	}
	for _, s := range card.GetSkills() {
		if err := checkRequirements(card, schemes, fmt.Sprintf("skill %q's", s.GetId()), s.GetSecurityRequirements()); err != nil {
			return nil, err
		}
	}
	if v.Certificate == nil {
		v.Certificate = certificatePrincipal
	}
	realm := card.GetName()
	if realm == "" {
		realm = "a2a"
	}
	return &Guard{realm: realm, schemes: schemes, requirements: card.GetSecurityRequirements(), v: v}, nil
}

// HandlerOption is runtime.WithAuthenticator(g.Authenticate,
// g.Challenges()...), for every binding of the agent.
func (g *Guard) HandlerOption() runtime.HandlerOption {
	return runtime.WithAuthenticator(g.Authenticate, g.Challenges()...)
}

// Challenges returns the challenges of all the card's security schemes (in
// the order of their names, each once; see challenge): the default
// challenges of the agent, sent with an Unauthenticated error that names
// none, such as the default server's refusal of the extended card to an
// anonymous caller, who may authenticate with any scheme of the card.
func (g *Guard) Challenges() []string {
	var out []string
	for _, s := range g.schemes {
		if ch := g.challenge(s); !slices.Contains(out, ch) {
			out = append(out, ch)
		}
	}
	return out
}

// Authenticate is a runtime.Authenticator: it verifies every credential the
// call carries for the card's schemes, attaches the resulting
// runtime.Identity to the context (none for an anonymous call) and checks
// the card's security requirements. A credential that no scheme accepts
// refuses the call, even where no requirement asks for it.
func (g *Guard) Authenticate(ctx context.Context, r *runtime.AuthRequest) (context.Context, error) {
	id, err := g.identify(ctx, r)
	if err != nil {
		return ctx, err
	}
	if id != nil {
		ctx = runtime.WithIdentity(ctx, id)
	}
	return ctx, g.Check(id, g.requirements)
}

// identify verifies the credentials of the call.
func (g *Guard) identify(ctx context.Context, r *runtime.AuthRequest) (*runtime.Identity, error) {
	if e := runtime.CheckSingleAuthorization(r.Header); e != nil {
		return nil, e // the bindings refuse it first; this covers direct callers
	}
	auth := g.authorizationOf(r.Header.Get("Authorization"))
	id := &runtime.Identity{Schemes: map[string][]string{}}
	// The Authorization header is one credential: it must be accepted by
	// at least one scheme of its kind, and the first refusal is the one
	// sent when none does.
	var authErr error
	authAccepted := false
	for _, s := range g.schemes {
		p, sent, err := g.verify(ctx, r, s, auth)
		switch {
		case !sent:
			continue
		case err != nil && s.kind != auth.kind:
			return nil, err // an API key or a client certificate refused
		case err != nil:
			if authErr == nil {
				authErr = err
			}
			continue
		}
		authAccepted = authAccepted || s.kind == auth.kind
		grant(id, s.name, p)
	}
	if auth.kind != 0 && !authAccepted {
		return nil, authErr
	}
	if len(id.Schemes) == 0 {
		return nil, nil
	}
	return id, nil
}

// grant records that the call authenticated with scheme name as p; the
// first principal is the identity's subject (the scheme's name when it
// has none).
func grant(id *runtime.Identity, name string, p Principal) {
	if id.Subject == "" {
		id.Subject, id.Claims = cmp.Or(p.Subject, name), p.Claims
	}
	id.Schemes[name] = slices.Clone(p.Scopes)
}

// authorization is a call's Authorization header, parsed once.
type authorization struct {
	kind               kind   // kindBearer or kindBasic when a scheme of the card takes it, else 0
	token              string // the credentials after the authentication scheme's name
	username, password string // of Basic credentials, when basicOK
	basicOK            bool
}

// authorizationOf parses the value of an Authorization header.
func (g *Guard) authorizationOf(header string) authorization {
	authType, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	a := authorization{token: strings.TrimSpace(token)}
	switch {
	case strings.EqualFold(authType, "Bearer") && a.token != "":
		a.kind = authIfDeclared(g.schemes, kindBearer)
	case strings.EqualFold(authType, "Basic"):
		a.kind = authIfDeclared(g.schemes, kindBasic)
		if raw, err := base64.StdEncoding.DecodeString(a.token); err == nil {
			a.username, a.password, a.basicOK = strings.Cut(string(raw), ":")
		}
	}
	return a
}

// verify checks the credential the call carries for scheme s: sent is
// false when it carries none; err is the refusal to send.
func (g *Guard) verify(ctx context.Context, r *runtime.AuthRequest, s scheme, auth authorization) (p Principal, sent bool, err error) {
	switch s.kind {
	case kindAPIKey:
		key := apiKey(r, s)
		if key == "" {
			return p, false, nil
		}
		if g.v.APIKey == nil {
			return p, true, g.refused(s, errNoVerifier)
		}
		p, err = g.v.APIKey(ctx, s.name, key)
	case kindBearer, kindBasic:
		if s.kind != auth.kind {
			return p, false, nil
		}
		p, err = g.verifyAuthorization(ctx, s, auth)
	case kindMTLS:
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
			return p, false, nil
		}
		p, err = g.v.Certificate(ctx, s.name, r.TLS.VerifiedChains[0])
	}
	if err != nil {
		return p, true, g.refused(s, err)
	}
	return p, true, nil
}

// verifyAuthorization checks the Authorization header against s, a bearer
// or basic scheme of its kind.
func (g *Guard) verifyAuthorization(ctx context.Context, s scheme, auth authorization) (Principal, error) {
	switch {
	case s.kind == kindBasic && !auth.basicOK:
		return Principal{}, runtime.Unauthenticated("malformed Basic credentials: want base64 of user:password")
	case s.kind == kindBasic && g.v.Basic != nil:
		return g.v.Basic(ctx, s.name, auth.username, auth.password)
	case s.kind == kindBearer && g.v.Token != nil:
		return g.v.Token(ctx, s.name, auth.token)
	}
	return Principal{}, errNoVerifier
}

// authIfDeclared returns k when some scheme of the card is of kind k, so
// that an Authorization header no scheme uses is ignored rather than
// refused.
func authIfDeclared(schemes []scheme, k kind) kind {
	if slices.ContainsFunc(schemes, func(s scheme) bool { return s.kind == k }) {
		return k
	}
	return 0
}

// apiKey returns the key the call carries for an apiKey scheme.
func apiKey(r *runtime.AuthRequest, s scheme) string {
	switch s.location {
	case "header":
		return r.Header.Get(s.keyName)
	case "query":
		return r.QueryValue(s.keyName)
	case "cookie":
		if c, err := r.Cookie(s.keyName); err == nil {
			return c.Value
		}
	}
	return ""
}

// errNoVerifier stands for a nil verifier.
var errNoVerifier = errors.New("no verifier is configured for this kind of credential")

// refused turns a verifier's error into the error sent to the client.
func (g *Guard) refused(s scheme, err error) error {
	var e *runtime.Error
	if errors.As(err, &e) {
		if e.Code() == runtime.CodeUnauthenticated && len(e.Challenges()) == 0 {
			e = e.WithChallenge(g.challenge(s))
		}
		return e
	}
	return runtime.Unauthenticated(fmt.Sprintf("the credentials sent for security scheme %q were not accepted", s.name)).
		WithChallenge(g.challenge(s))
}

// Check reports whether id satisfies reqs — any one requirement, each with
// all its schemes and their scopes; no requirements (or an empty one)
// means anyone may call. It returns nil, Unauthenticated with challenges for
// the schemes that would do, or Unauthorized naming the missing scopes when
// the caller authenticated with every scheme of some requirement but lacks
// scopes. id may be nil (anonymous).
func (g *Guard) Check(id *runtime.Identity, reqs []*a2av1.SecurityRequirement) error {
	if len(reqs) == 0 {
		return nil
	}
	var missing []string // "scheme: scope" lacking in requirements whose schemes all authenticated
	for _, r := range reqs {
		authenticated, lacks := lacking(id, r)
		if authenticated && len(lacks) == 0 {
			return nil
		}
		if authenticated {
			missing = append(missing, lacks...)
		}
	}
	if len(missing) > 0 {
		return g.insufficientScope(missing)
	}
	return g.unauthenticated(reqs)
}

// lacking reports whether id authenticated with every scheme of
// requirement r and, when it did, the scopes ("scheme: scope") it lacks.
func lacking(id *runtime.Identity, r *a2av1.SecurityRequirement) (authenticated bool, lacks []string) {
	for _, name := range slices.Sorted(maps.Keys(r.GetSchemes())) {
		if !id.HasScheme(name) {
			return false, nil
		}
		for _, scope := range r.GetSchemes()[name].GetList() {
			if !id.HasScheme(name, scope) {
				lacks = append(lacks, name+": "+scope)
			}
		}
	}
	return true, lacks
}

// insufficientScope is the refusal of a caller that authenticated but
// lacks scopes ("scheme: scope").
func (g *Guard) insufficientScope(missing []string) error {
	e := runtime.Unauthorized("the caller lacks the required scope(s) " + strings.Join(missing, ", "))
	scopes := make([]string, 0, len(missing))
	for _, m := range missing {
		_, scope, _ := strings.Cut(m, ": ")
		scopes = append(scopes, scope)
	}
	return e.WithChallenge(fmt.Sprintf(`Bearer realm=%s, error="insufficient_scope", scope=%s`,
		quote(g.realm), quote(strings.Join(scopes, " "))))
}

// unauthenticated is the refusal of a caller that authenticated with no
// requirement's schemes, with a challenge for each scheme that would do.
func (g *Guard) unauthenticated(reqs []*a2av1.SecurityRequirement) error {
	e := runtime.Unauthenticated("authentication required: " + describe(reqs))
	seen := map[string]bool{}
	for _, r := range reqs {
		for _, name := range slices.Sorted(maps.Keys(r.GetSchemes())) {
			s, ok := g.scheme(name)
			if !ok {
				continue
			}
			if ch := g.challenge(s); !seen[ch] {
				seen[ch] = true
				e = e.WithChallenge(ch)
			}
		}
	}
	return e
}

func (g *Guard) scheme(name string) (scheme, bool) {
	i := slices.IndexFunc(g.schemes, func(s scheme) bool { return s.name == name })
	if i < 0 {
		return scheme{}, false
	}
	return g.schemes[i], true
}

// challenge is the WWW-Authenticate challenge of a scheme (RFC 9110
// §11.6.1): Bearer (RFC 6750) and Basic (RFC 7617) for the HTTP schemes;
// for API keys and client certificates, which have no registered HTTP
// authentication scheme, "APIKey" with where the key goes and "MutualTLS".
func (g *Guard) challenge(s scheme) string {
	realm := "realm=" + quote(g.realm)
	switch s.kind {
	case kindBearer:
		return "Bearer " + realm
	case kindBasic:
		return "Basic " + realm + `, charset="UTF-8"`
	case kindAPIKey:
		return "APIKey " + realm + ", in=" + quote(s.location) + ", name=" + quote(s.keyName)
	default:
		return "MutualTLS " + realm
	}
}

// describe lists the alternatives of reqs for a message: "bearer or
// oauth (trips.read) or key + mtls".
func describe(reqs []*a2av1.SecurityRequirement) string {
	alts := make([]string, 0, len(reqs))
	for _, r := range reqs {
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(r.GetSchemes())) {
			p := name
			if scopes := r.GetSchemes()[name].GetList(); len(scopes) > 0 {
				p += " (" + strings.Join(scopes, ", ") + ")"
			}
			parts = append(parts, p)
		}
		alts = append(alts, strings.Join(parts, " + "))
	}
	return strings.Join(alts, " or ")
}

// quote renders s as an HTTP quoted-string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
