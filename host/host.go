package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/reflection"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// Agent is a running agent.
type Agent struct {
	card, extended *a2av1.AgentCard
	cardJSON       []byte   // the public card as served
	versions       []string // Config.ProtocolVersions checked, newest first; nil: 1.0 only
	srv            *server.Server
	sender         *push.Sender // owned; nil without push
	guard          *auth.Guard
	tls            bool
	logger         *slog.Logger

	listeners map[string]net.Listener // by Binding.Address
	handlers  map[string]http.Handler // of the HTTP addresses
	https     []*http.Server
	grpcs     []*grpc.Server
	errs      chan error

	health *health // readiness, /healthz, /readyz, grpc.health.v1

	grace, delay time.Duration // of a shutdown
	shutdownOnce sync.Once
	shutdownErr  error
}

// Start parses the cards, builds the server and its bindings, opens every
// listener and starts serving. It fails, with every listener closed, when
// the configuration is inconsistent (a card skill without a handler, a
// security scheme that cannot be enforced, a route that conflicts with the
// agent's own, a signed card that TLS would have to rewrite) or an address
// cannot be listened on; nothing listens before the configuration is
// found consistent.
func Start(cfg Config) (*Agent, error) {
	a := &Agent{listeners: map[string]net.Listener{}, errs: make(chan error, 1), tls: cfg.TLS != nil,
		logger: loggerOf(cfg), grace: cfg.ShutdownGrace, delay: max(cfg.ShutdownDelay, 0)}
	if a.grace == 0 {
		a.grace = DefaultShutdownGrace
	}
	if err := a.build(cfg); err != nil {
		return nil, err
	}
	if err := a.buildHTTP(cfg); err != nil {
		_ = a.srv.Shutdown(context.Background())
		a.closeSender(context.Background())
		return nil, err
	}
	if err := a.listen(cfg); err != nil {
		a.closeListeners()
		_ = a.srv.Shutdown(context.Background())
		a.closeSender(context.Background())
		return nil, err
	}
	a.serve(cfg)
	return a, nil
}

// Run starts the agent of cfg and serves until ctx is done (see Wait).
func Run(ctx context.Context, cfg Config) error {
	a, err := Start(cfg)
	if err != nil {
		return err
	}
	return a.Wait(ctx)
}

// build reads the cards, checks the configuration and makes the server;
// nothing listens yet.
func (a *Agent) build(cfg Config) error {
	if err := a.readCards(cfg); err != nil {
		return err
	}
	if len(cfg.Bindings) == 0 {
		return errors.New("host: Config.Bindings is empty: the agent would serve nothing")
	}
	if err := checkListeners(cfg.Bindings); err != nil {
		return err
	}
	if err := checkLongPollHold(cfg.LongPollHold); err != nil {
		return err
	}
	if len(a.card.GetSecuritySchemes()) > 0 {
		g, err := auth.New(a.card, cfg.Verifiers)
		if err != nil {
			return err
		}
		a.guard = g
	}
	r, err := newRouter(a.card, a.extended, cfg.Skills, cfg.Route, a.guard)
	if err != nil {
		return err
	}
	a.srv, err = server.New(a.card, r, a.serverOptions(cfg)...)
	if err != nil {
		a.closeSender(context.Background())
		return err
	}
	return nil
}

// readCards decodes the public and extended cards and makes the documents
// served: with TLS their interface URLs made TLS ones, with V03 the dual
// card.
func (a *Agent) readCards(cfg Config) error {
	var err error
	if a.versions, err = servedVersions(cfg.ProtocolVersions); err != nil {
		return err
	}
	a.card = &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(cfg.CardJSON, a.card); err != nil {
		return fmt.Errorf("host: the agent card does not decode: %w", err)
	}
	a.cardJSON = cfg.CardJSON
	if cfg.ExtendedCardJSON != nil {
		a.extended = &a2av1.AgentCard{}
		if err := runtime.UnmarshalJSON(cfg.ExtendedCardJSON, a.extended); err != nil {
			return fmt.Errorf("host: the extended agent card does not decode: %w", err)
		}
	}
	var rewrites []func(doc []byte, card *a2av1.AgentCard, what string) ([]byte, error)
	if cfg.TLS != nil {
		rewrites = append(rewrites, cardWithTLS)
	}
	if len(a.versions) > 0 {
		rewrites = append(rewrites, cardWithVersions(a.versions))
	}
	if cfg.V03 {
		rewrites = append(rewrites, dualCard)
	}
	for _, rewrite := range rewrites {
		var err error
		if a.cardJSON, err = rewrite(a.cardJSON, a.card, "agent card"); err != nil {
			return err
		}
		if a.extended != nil {
			if _, err := rewrite(nil, a.extended, "extended agent card"); err != nil {
				return err
			}
		}
	}
	return nil
}

// serverOptions are the options of the default server, with the push
// sender made when the card declares push notifications.
func (a *Agent) serverOptions(cfg Config) []server.Option {
	// Tasks belong to the caller who created them; anonymous callers have no
	// view of each other's tasks (server.WithTaskOwner).
	sopts := append([]server.Option{server.WithLogger(a.logger), server.WithTaskOwner(server.OwnerByCallerID)}, cfg.Limits.ServerOptions()...)
	sopts = append(sopts, longPollHoldOptions(cfg.LongPollHold)...)
	if cfg.Store != nil {
		sopts = append(sopts, server.WithStore(cfg.Store))
	}
	if a.extended != nil {
		sopts = append(sopts, server.WithExtendedCard(a.extended))
	}
	if a.card.GetCapabilities().GetPushNotifications() {
		popts := []push.Option{push.WithLogger(a.logger)}
		if cfg.V03 {
			popts = append(popts, V03PushOptions()...)
		}
		popts = append(popts, cfg.Push...)
		if cfg.Telemetry != nil {
			popts = append(popts, cfg.Telemetry.PushOptions...)
		}
		a.sender = push.NewSender(popts...)
		sopts = append(sopts, server.WithPushSender(a.sender))
	}
	if cfg.Telemetry != nil {
		sopts = append(sopts, cfg.Telemetry.ServerOptions...)
	}
	return sopts
}

// handlerOptions are the options of one binding.
func (a *Agent) handlerOptions(cfg Config, b Binding) []runtime.HandlerOption {
	var opts []runtime.HandlerOption
	if cfg.Logger != nil {
		opts = append(opts, runtime.WithLogger(cfg.Logger))
	}
	if b.Tenant != "" {
		opts = append(opts, runtime.WithTenant(b.Tenant))
	}
	if a.guard != nil {
		opts = append(opts, a.guard.HandlerOption())
	}
	var required []string
	for _, e := range a.card.GetCapabilities().GetExtensions() {
		if e.GetRequired() {
			required = append(required, e.GetUri())
		}
	}
	if len(required) > 0 {
		opts = append(opts, runtime.WithRequiredExtensions(required...))
	}
	if len(a.versions) > 0 {
		opts = append(opts, runtime.WithSupportedVersions(a.versions...))
	}
	if cfg.V03 && slices.Contains(v03Bindings, b.Protocol) {
		opts = append(opts, V03HandlerOptions()...)
	}
	opts = append(opts, cfg.Limits.HandlerOptions()...)
	if is := interceptors(cfg); len(is) > 0 {
		opts = append(opts, runtime.WithInterceptors(is...))
	}
	return opts
}

// listen opens one listener per distinct address.
func (a *Agent) listen(cfg Config) error {
	listen := cfg.Listen
	if listen == nil {
		listen = net.Listen
	}
	for _, b := range cfg.Bindings {
		if _, ok := a.listeners[b.Address]; ok {
			continue
		}
		ln, err := listen("tcp", b.Address)
		if err != nil {
			return fmt.Errorf("host: listening on %s for %s: %w", b.Address, b.Protocol, err)
		}
		a.listeners[b.Address] = ln
	}
	return nil
}

// buildHTTP builds the handler of every HTTP address: the agent card, the
// health checks and the bindings at their paths on one mux, the program's
// Routes beside them, all wrapped in its HTTPMiddleware.
func (a *Agent) buildHTTP(cfg Config) error {
	a.handlers = map[string]http.Handler{}
	a.health = newHealth(a, cfg)
	card := runtime.NewAgentCardJSONHandler(a.cardJSON)
	for _, addr := range addresses(cfg.Bindings) {
		bs := bindingsAt(cfg.Bindings, addr)
		if bs[0].Protocol == runtime.BindingGRPC {
			continue
		}
		mux := http.NewServeMux()
		mux.Handle(runtime.AgentCardPath, card)
		a.health.register(mux)
		for _, b := range bs {
			spec, _ := runtime.BindingSpecOf(b.Protocol) // an HTTP binding (checkListeners)
			mux.Handle(spec.HTTPHandler(a2av1.NewA2AServiceRuntime(a.srv), b.Path, a.handlerOptions(cfg, b)...))
		}
		if cfg.Telemetry != nil && cfg.Telemetry.MetricsHandler != nil {
			mux.Handle("GET /metrics", cfg.Telemetry.MetricsHandler)
		}
		if cfg.Routes != nil {
			if err := addRoutes(mux, cfg.Routes); err != nil {
				return fmt.Errorf("host: Config.Routes for %s: %w", addr, err)
			}
		}
		var h http.Handler = mux
		for i := len(cfg.HTTPMiddleware) - 1; i >= 0; i-- {
			h = cfg.HTTPMiddleware[i](h)
			if h == nil {
				return fmt.Errorf("host: Config.HTTPMiddleware[%d] returned a nil handler", i)
			}
		}
		a.handlers[addr] = h
	}
	return nil
}

// addRoutes calls routes on mux and turns the panic of a pattern that
// conflicts with another (net/http's way of refusing it) into an error.
func addRoutes(mux *http.ServeMux, routes func(*http.ServeMux)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New(strings.ReplaceAll(fmt.Sprint(p), ":\n", ": "))
		}
	}()
	routes(mux)
	return nil
}

// addresses are the distinct addresses of bindings, in their order.
func addresses(bindings []Binding) []string {
	var out []string
	for _, b := range bindings {
		if !slices.Contains(out, b.Address) {
			out = append(out, b.Address)
		}
	}
	return out
}

// bindingsAt are the bindings listening on addr.
func bindingsAt(bindings []Binding, addr string) []Binding {
	var out []Binding
	for _, b := range bindings {
		if b.Address == addr {
			out = append(out, b)
		}
	}
	return out
}

// serve starts one HTTP server per HTTP address and one gRPC server per
// gRPC address.
func (a *Agent) serve(cfg Config) {
	for _, addr := range addresses(cfg.Bindings) {
		ln := a.listeners[addr]
		bs := bindingsAt(cfg.Bindings, addr)
		if bs[0].Protocol == runtime.BindingGRPC {
			hopts := a.handlerOptions(cfg, bs[0])
			// Calls to methods the server does not have are authenticated
			// before they are answered UNIMPLEMENTED (A2A §7.4).
			gopts := append(cfg.Limits.GRPCServerOptions(), grpc.UnknownServiceHandler(runtime.GRPCUnknownServiceHandler(hopts...)))
			if cfg.TLS != nil {
				gopts = append(gopts, grpc.Creds(credentials.NewTLS(cfg.TLS)))
			}
			g := grpc.NewServer(append(gopts, cfg.GRPCServerOptions...)...)
			a2av1.RegisterA2AServiceGRPC(g, a.srv, hopts...)
			if cfg.V03 {
				a2av03grpc.Register(g, a.srv, hopts...) // a2a.v1.A2AService: v0.3 over gRPC
			}
			a.health.registerGRPC(g)
			if cfg.GRPCReflection {
				reflection.Register(g)
			}
			a.grpcs = append(a.grpcs, g)
			go func() { a.report(g.Serve(ln)) }()
			continue
		}
		hs := cfg.Limits.HTTPServer(a.handlers[addr])
		hs.Addr = ln.Addr().String()
		hs.ErrorLog = slog.NewLogLogger(a.logger.Handler(), slog.LevelWarn)
		a.https = append(a.https, hs)
		if cfg.TLS != nil {
			hs.TLSConfig = cfg.TLS.Clone()
			go func() { a.report(hs.ServeTLS(ln, "", "")) }()
		} else {
			go func() { a.report(hs.Serve(ln)) }()
		}
	}
	a.health.start(len(a.grpcs) > 0)
}

func loggerOf(cfg Config) *slog.Logger {
	if cfg.Logger != nil {
		return cfg.Logger
	}
	return slog.Default()
}

// report passes the first failure of a listener to Wait.
func (a *Agent) report(err error) {
	if err == nil || errors.Is(err, http.ErrServerClosed) || errors.Is(err, grpc.ErrServerStopped) {
		return
	}
	select {
	case a.errs <- err:
	default:
	}
}

// Card returns the public agent card (read-only), as served (with TLS:
// its interface URLs made TLS ones).
func (a *Agent) Card() *a2av1.AgentCard { return a.card }

// CardJSON returns the public agent card document exactly as the agent
// serves it (read-only).
func (a *Agent) CardJSON() []byte { return a.cardJSON }

// Addr returns the address the binding's listener actually listens on
// (useful when its Address has port 0), or nil for an unknown binding.
func (a *Agent) Addr(b Binding) net.Addr {
	ln, ok := a.listeners[b.Address]
	if !ok {
		return nil
	}
	return ln.Addr()
}

// URL returns where binding b answers on this machine: http(s)://host:port
// plus the path for the HTTP bindings, host:port for gRPC — over TLS
// https://host:port when clients would read host:port as plaintext (see
// CardWithTLS) — (an unspecified host is given as 127.0.0.1).
func (a *Agent) URL(b Binding) string {
	addr := a.Addr(b)
	if addr == nil {
		return ""
	}
	hostport := addr.String()
	if host, port, err := net.SplitHostPort(hostport); err == nil {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			hostport = net.JoinHostPort("127.0.0.1", port)
		}
	}
	if b.Protocol == runtime.BindingGRPC {
		if a.tls {
			return tlsURL(b.Protocol, hostport) // https://127.0.0.1:port: clients read a loopback host:port as plaintext
		}
		return hostport
	}
	scheme := "http://"
	if a.tls {
		scheme = "https://"
	}
	path := b.Path
	if path == "/" {
		path = ""
	}
	return scheme + hostport + path
}

// CardURL returns where the agent card is served on the listener of HTTP
// binding b, or "" for a gRPC binding (or an unknown one).
func (a *Agent) CardURL(b Binding) string {
	if b.Protocol == runtime.BindingGRPC || a.Addr(b) == nil {
		return ""
	}
	return a.URL(Binding{Protocol: b.Protocol, Address: b.Address, Path: "/"}) + runtime.AgentCardPath
}

func (a *Agent) closeListeners() {
	for _, ln := range a.listeners {
		_ = ln.Close() // already closed by its server, or never served
	}
}

func (a *Agent) closeSender(ctx context.Context) {
	if a.sender != nil {
		_ = a.sender.Close(ctx)
	}
}

// checkListeners refuses a binding that is none of the three (it would
// silently not be served) and a gRPC binding that shares its address with
// another binding: one listener serves either gRPC or HTTP, and the other
// binding would silently not be served.
func checkListeners(bindings []Binding) error {
	first := map[string]Binding{}
	for i, b := range bindings {
		if !b.Protocol.Known() {
			hint := ""
			if p, err := runtime.ParseBinding(b.Protocol.String()); err == nil {
				hint = fmt.Sprintf(" (runtime.ParseBinding reads it as %s)", p)
			}
			return fmt.Errorf("host: Config.Bindings[%d].Protocol %q is not a binding%s; use runtime.BindingJSONRPC, runtime.BindingHTTPJSON or runtime.BindingGRPC", i, b.Protocol, hint)
		}
		f, seen := first[b.Address]
		if !seen {
			first[b.Address] = b
			continue
		}
		if (f.Protocol == runtime.BindingGRPC) != (b.Protocol == runtime.BindingGRPC) || b.Protocol == runtime.BindingGRPC {
			return fmt.Errorf("host: %s and %s bindings both listen on %s; gRPC needs an address of its own", f.Protocol, b.Protocol, b.Address)
		}
	}
	return nil
}
