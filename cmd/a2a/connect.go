package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// Environment variables of the tool before the specification, still read.
const (
	envAgentURL = "A2A_AGENT_URL" // the agent when none is given; A2ACLI_AGENT_CARD wins
	envToken    = "A2A_TOKEN"     // a bearer token; A2ACLI_BEARER wins
	envAuth     = "A2A_AUTH"      // a whole Authorization value, as the deprecated --auth
)

// agentArgs splits a command's arguments into the agent reference and the
// rest. The reference is --agent-card (or its A2ACLI_AGENT_CARD and .env
// forms); else a first argument starting with http:// or https:// (the
// tool's form before the specification); else A2A_AGENT_URL.
func (a *app) agentArgs(args []string) (string, []string, error) {
	if a.agentCard != "" && a.sources["agent-card"] == "flag --agent-card" {
		return a.agentCard, args, nil
	}
	if len(args) > 0 && isHTTPURL(args[0]) {
		return args[0], args[1:], nil
	}
	if a.agentCard != "" {
		return a.agentCard, args, nil
	}
	if u := a.env.getenv(envAgentURL); u != "" {
		return u, args, nil
	}
	return "", nil, usagef("missing the agent: give --agent-card REF (-a; a host, the card's URL or a card file) or set A2ACLI_AGENT_CARD")
}

func isHTTPURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// authorization is the legacy Authorization value: --auth, $A2A_AUTH or
// "Bearer $A2A_TOKEN"; "" for none.
func (a *app) authorization() string {
	switch {
	case a.auth != "":
		return a.auth
	case a.env.getenv(envAuth) != "":
		return a.env.getenv(envAuth)
	case a.env.getenv(envToken) != "" && a.bearer == "":
		return "Bearer " + a.env.getenv(envToken)
	}
	return ""
}

// tlsConfig is the TLS configuration of --insecure, --cacert and
// --cert/--key; nil when none is given.
func (a *app) tlsConfig() (*tls.Config, error) {
	if !a.insecure && a.cacert == "" && a.clientCert == "" {
		return nil, nil
	}
	pool, err := caPool(a.cacert)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: a.insecure, RootCAs: pool} //nolint:gosec // --insecure asks for it, and warns
	if a.clientCert != "" {
		cert, err := tls.LoadX509KeyPair(a.clientCert, a.clientKey)
		if err != nil {
			return nil, usagef("--cert/--key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// caPool is the system's certificate pool (an empty one where the system
// has none) with the PEM certificates of the --cacert file added; nil (the
// system's roots) without a file.
func caPool(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--cacert: %v", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, usagef("--cacert %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// httpClient is the client for cards and the HTTP bindings: the TLS
// options, and with --debug a log of card fetches (calls are logged by the
// interceptor).
func (a *app) httpClient() (*http.Client, error) {
	cfg, err := a.tlsConfig()
	if err != nil {
		return nil, err
	}
	var rt http.RoundTripper = http.DefaultTransport
	if cfg != nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = cfg
		rt = t
	}
	if a.debug {
		rt = &fetchLog{base: rt, w: a.debugWriter()}
	}
	return &http.Client{Transport: rt}, nil
}

// clientOptions are the runtime options every call gets from the global
// flags. They come after what the card implies, so they win over it.
func (a *app) clientOptions(hc *http.Client) []runtime.ClientOption {
	var opts []runtime.ClientOption
	if auth := a.authorization(); auth != "" {
		opts = append(opts, runtime.WithHeader("Authorization", auth))
	}
	for _, h := range a.headers {
		k, v, _ := strings.Cut(h, "=")
		opts = append(opts, runtime.WithHeader(strings.TrimSpace(k), v))
	}
	for _, p := range a.svcParams {
		k, v, _ := strings.Cut(p, ":")
		opts = append(opts, runtime.WithHeader(strings.TrimSpace(k), strings.TrimSpace(v)))
	}
	if a.tenant != "" {
		opts = append(opts, runtime.WithClientTenant(a.tenant))
	}
	if a.version != "" {
		v, _ := runtime.ParseVersion(a.version)
		opts = append(opts, runtime.WithProtocolVersion(v))
	}
	if len(a.extensions) > 0 {
		opts = append(opts, runtime.WithExtensions(a.extensions...))
	}
	if a.debug {
		// Calls are logged by the interceptor, as messages on every
		// binding; the HTTP bindings then use a client that does not
		// log the card fetch again.
		plain := *hc
		if fl, ok := plain.Transport.(*fetchLog); ok {
			plain.Transport = fl.base
		}
		opts = append(opts, runtime.WithHTTPClient(&plain), runtime.WithClientInterceptors(&wireLog{w: a.debugWriter()}))
	}
	return opts
}

// preferredBindings are the --transport values, in order.
func (a *app) preferredBindings() []runtime.Binding {
	var out []runtime.Binding
	for _, t := range a.transports {
		if b, _ := bindingName(t); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// resolved is an agent's card, where it came from, and its document.
type resolved struct {
	card *a2av1.AgentCard
	doc  []byte
	ref  string // the card's URL, or its file
}

// resolveCard reads the card an agent reference names: a card file
// (file://… or a path that exists), an AI catalog entry (see catalog.go),
// the card's URL as given when it names a .json document, or the host or
// origin with the well-known card path.
func (a *app) resolveCard(ctx context.Context, ref string) (*resolved, error) {
	if path, ok := cardFile(ref); ok {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, &cliError{code: errCardNotFound, hint: "check the path of the card file", err: fmt.Errorf("reading the agent card: %w", err)}
		}
		card := new(a2av1.AgentCard)
		if err := runtime.UnmarshalJSON(doc, card); err != nil {
			return nil, &cliError{code: errCardInvalid, hint: "the file must hold an A2A v1.0 agent card (JSON)", err: fmt.Errorf("%s is not an A2A agent card: %w", path, err)}
		}
		return &resolved{card: card, doc: doc, ref: path}, nil
	}
	hc, err := a.httpClient()
	if err != nil {
		return nil, err
	}
	if entry, ok := catalogRef(ref); ok {
		return a.resolveCatalog(ctx, hc, entry)
	}
	return a.fetchCard(ctx, hc, ref)
}

// fetchCard fetches the card of a host, origin or card URL.
func (a *app) fetchCard(ctx context.Context, hc *http.Client, ref string) (*resolved, error) {
	base := ref
	if !isHTTPURL(base) {
		base = "https://" + base
	}
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(u.Path, ".json") && !strings.HasSuffix(u.Path, runtime.AgentCardPath) {
		return a.fetchCardAsIs(ctx, hc, base)
	}
	card, doc, err := agentcard.NewCache(hc).FetchDocument(ctx, base)
	if err != nil {
		return nil, cardError(base, err)
	}
	return &resolved{card: card, doc: doc, ref: base}, nil
}

// fetchCardAsIs fetches a card from a URL that names the document itself.
func (a *app) fetchCardAsIs(ctx context.Context, hc *http.Client, cardURL string) (*resolved, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, usagef("--agent-card %q: %v", cardURL, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", a2av1.A2AServiceDesc.ProtocolVersion())
	resp, err := hc.Do(req)
	if err != nil {
		return nil, cardError(cardURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, cardError(cardURL, fmt.Errorf("fetching %s: HTTP %s", cardURL, resp.Status))
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, maxCatalogBytes))
	if err != nil {
		return nil, cardError(cardURL, err)
	}
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(doc, card); err != nil {
		return nil, cardError(cardURL, fmt.Errorf("the document at %s is not an A2A agent card: %w", cardURL, err))
	}
	return &resolved{card: card, doc: doc, ref: cardURL}, nil
}

// cardFile reports whether ref names a local card file.
func cardFile(ref string) (string, bool) {
	if p, ok := strings.CutPrefix(ref, "file://"); ok {
		return p, true
	}
	if isHTTPURL(ref) || strings.Contains(ref, "://") {
		return "", false
	}
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		return ref, true
	}
	return "", false
}

// cardError classifies a failed card fetch: unreachable, no card there, or
// not a card.
func cardError(ref string, err error) error {
	var ue *url.Error
	switch {
	case errors.As(err, &ue) && !errors.Is(err, context.DeadlineExceeded):
		hint := "check that the agent is running and that " + ref + " is its address"
		if strings.Contains(err.Error(), "certificate") {
			hint = "the agent's TLS certificate is not trusted: give its CA with --cacert FILE (or, for development only, --insecure)"
		}
		return &cliError{code: errUnreachable, hint: hint, err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return err
	case strings.Contains(err.Error(), ": HTTP "):
		return &cliError{code: errCardNotFound, hint: "no agent card at " + ref + ": give the agent's origin (the card is at /.well-known/agent-card.json) or the card's full URL", err: err}
	}
	return &cliError{code: errCardInvalid, hint: "the document is not an A2A agent card; 'a2a card get --validate' says what is wrong", err: err}
}

// connect resolves the agent's card and returns a client of the interface
// the card and --transport choose, with credentials attached as the card's
// security schemes say.
func (a *app) connect(ctx context.Context, ref string) (*agentcard.Client, error) {
	r, err := a.resolveCard(ctx, ref)
	if err != nil {
		return nil, err
	}
	return a.clientFor(r.card)
}

// clientFor is a client of card.
func (a *app) clientFor(card *a2av1.AgentCard) (*agentcard.Client, error) {
	card, err := a.versionedCard(card)
	if err != nil {
		return nil, err
	}
	hc, err := a.httpClient()
	if err != nil {
		return nil, err
	}
	opts := append([]agentcard.Option{agentcard.WithHTTPClient(hc)}, a.bindingOptions(card)...)
	creds, extra, err := a.credentialOptions(card)
	if err != nil {
		return nil, err
	}
	opts = append(opts, creds...)
	iface, err := agentcard.SelectInterface(card, opts...)
	if err != nil {
		return nil, err
	}
	opts = append(opts, a.grpcTLSOptions(iface)...)
	opts = append(opts, agentcard.WithClientOptions(append(extra, a.clientOptions(hc)...)...))
	a.warnRequiredExtensions(card)
	return agentcard.NewClient(card, opts...)
}

// bindingOptions choose the first --transport binding the card offers; none
// (the card's own order) when it offers none of them, with a warning
// (SPEC.md §13.1).
func (a *app) bindingOptions(card *a2av1.AgentCard) []agentcard.Option {
	bs := a.preferredBindings()
	if len(bs) == 0 {
		return nil
	}
	if _, err := agentcard.SelectInterface(card, agentcard.WithBindings(bs...)); err != nil {
		fmt.Fprintf(a.env.stderr, "a2a: warning: the card offers none of --transport %s; using its own order\n", strings.Join(a.transports, ", "))
		return nil
	}
	return []agentcard.Option{agentcard.WithBindings(bs...)}
}

// grpcTLSOptions dial a gRPC interface whose target asks for TLS with the
// TLS settings of --insecure, --cacert and --cert/--key, when any are
// given.
func (a *app) grpcTLSOptions(iface *a2av1.AgentInterface) []agentcard.Option {
	cfg, _ := a.tlsConfig()
	if cfg == nil {
		return nil
	}
	if b, _ := runtime.ParseBinding(iface.GetProtocolBinding()); b != runtime.BindingGRPC {
		return nil
	}
	if t, err := runtime.ParseGRPCTarget(iface.GetUrl()); err != nil || !t.TLS {
		return nil
	}
	return []agentcard.Option{agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(cfg)))}
}

// warnRequiredExtensions names the extensions the card requires that the
// caller did not declare with --extension: the agent will refuse the call
// (ExtensionSupportRequiredError).
func (a *app) warnRequiredExtensions(card *a2av1.AgentCard) {
	for _, e := range card.GetCapabilities().GetExtensions() {
		if e.GetRequired() && !slices.Contains(a.extensions, e.GetUri()) {
			fmt.Fprintf(a.env.stderr, "a2a: warning: the agent requires the extension %s; declare it with --extension %s\n", e.GetUri(), e.GetUri())
		}
	}
}

// versionedCard keeps the interfaces of the protocol version to use: with
// --a2a-version, those declaring it (all 1.x ones when none does: the
// version is then sent as asked, and the agent says whether it speaks it);
// without, the 1.x ones — an agent that offers only 0.3 needs the explicit
// --a2a-version 0.3 (SPEC.md §13.2: never below 1.0 without opting in).
func (a *app) versionedCard(card *a2av1.AgentCard) (*a2av1.AgentCard, error) {
	want, _ := runtime.ParseVersion(a.version)
	exact, v1 := interfacesOf(card, want)
	keep := v1
	switch {
	case len(exact) > 0:
		keep = exact
	case a.version != "" && strings.HasPrefix(want, "0."):
		return nil, usagef("--a2a-version %s: the card declares no interface of that version", a.version)
	}
	if len(keep) == 0 {
		return nil, &cliError{code: errCardInvalid,
			hint: "the agent declares only protocol versions below 1.0; opt in to one explicitly with --a2a-version 0.3",
			err:  fmt.Errorf("the agent card %q declares no interface of A2A 1.x", card.GetName())}
	}
	c := proto.Clone(card).(*a2av1.AgentCard)
	c.SupportedInterfaces = keep
	return c, nil
}

// interfacesOf are the card's interfaces of protocol version want (none
// when want is ""), and those of any 1.x version.
func interfacesOf(card *a2av1.AgentCard, want string) (exact, v1 []*a2av1.AgentInterface) {
	for _, iface := range card.GetSupportedInterfaces() {
		v, ok := runtime.ParseVersion(iface.GetProtocolVersion())
		if !ok {
			continue
		}
		if want != "" && v == want {
			exact = append(exact, iface)
		}
		if strings.HasPrefix(v, "1.") {
			v1 = append(v1, iface)
		}
	}
	return exact, v1
}

// withClient runs call with a client of the agent at ref, under the
// command's timeout (none for waiting commands unless --timeout), and
// closes it.
func (a *app) withClient(ctx context.Context, ref string, waits bool, call func(context.Context, *agentcard.Client) error) error {
	ctx, cancel := a.commandContext(ctx, waits)
	defer cancel()
	c, err := a.connect(ctx, ref)
	if err == nil {
		defer c.Close()
		err = call(ctx, c)
	}
	// However a binding words an expired deadline (gRPC's status, an
	// HTTP client's error), it is --timeout's.
	var ce *cliError
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.As(err, &ce) {
		return &cliError{code: errTimeout, hint: "raise --timeout, or use --async and poll with 'a2a task get --wait ID'", err: err}
	}
	return err
}
