package host

import (
	"context"
	"crypto/tls"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/telemetry"
)

// SkillMetadataKey is the metadata key (of a message or of the request)
// whose string value names the skill a message is for.
const SkillMetadataKey = "a2a-scaffold/skill"

// Binding is one interface the agent serves.
type Binding struct {
	// Protocol is runtime.BindingJSONRPC, runtime.BindingHTTPJSON or
	// runtime.BindingGRPC (New refuses other values).
	Protocol runtime.Binding
	// Address is the listen address, host:port. HTTP bindings with the
	// same Address share one listener.
	Address string
	// Path is where an HTTP binding is mounted ("/" or "/a2a"); unused for
	// gRPC.
	Path string
	// Tenant is the interface's tenant; requests for another tenant are
	// refused.
	Tenant string
}

// Skill is the code behind one skill of the card.
type Skill struct {
	// ID is the skill's id on the card.
	ID string
	// Run does the skill's work for one message, like server.Executor.
	Run func(ctx context.Context, req *server.Request, events *server.Events) error
}

// Config describes the agent to run.
type Config struct {
	// CardJSON is the public agent card. It is served byte for byte at
	// runtime.AgentCardPath on every HTTP listener (with TLS, its
	// plaintext interface URLs made TLS ones: CardWithTLS), and parsed for
	// the capabilities, skills and security it declares.
	CardJSON []byte
	// ExtendedCardJSON is the extended card served to authenticated
	// callers by GetExtendedAgentCard; nil when the agent has none.
	ExtendedCardJSON []byte
	// Bindings are the interfaces to serve.
	Bindings []Binding
	// V03 serves A2A v0.3 next to v1.0 (docs/bindings.md, "A2A v0.3"):
	// JSON-RPC and HTTP+JSON bindings also answer the v0.3 methods, routes
	// and shapes through compat/a2av03.Adapter, with the same handler,
	// Executor and store, and the cards list a 0.3 interface next to each
	// 1.0 one of those bindings and carry the top-level fields of a v0.3
	// card (url, preferredTransport, additionalInterfaces, protocolVersion;
	// see a2av03.WithV03Fields). A signed card is not rewritten: it must
	// already be the dual card (a2a-scaffold makes it when agent.yaml says
	// protocolVersions: ["1.0", "0.3"]). gRPC bindings serve
	// a2a.v1.A2AService (compat/a2av03grpc) too. v0.3 has no tenants: on a
	// binding with a Tenant, v0.3 requests are served in that tenant, and
	// the binding's 0.3 interface names it. Webhooks registered through
	// v0.3 are posted the Task in its v0.3 shape (V03PushOptions; docs/
	// bindings.md, "Push notifications by registration version").
	V03 bool
	// ProtocolVersions are the versions of lf.a2a.v1 the agent serves on
	// every binding; nil serves A2A 1.0 only. ["1.0", "1.1"] serves the A2A
	// 1.1 draft beside 1.0 (docs/bindings.md, "A2A 1.1 draft, served beside
	// 1.0"): one handler and one store for both, each call seeing what its
	// negotiated A2A-Version defines (a call without one is served as 1.0),
	// the card listing a 1.1 interface next to each 1.0 one (a signed card
	// must already list them), and VersionNotSupported naming both. The
	// versions are those of a2a/v1's version table; 1.0 must be among them.
	// Main's -protocol-versions sets it.
	ProtocolVersions []string
	// LongPollHold is how long a GetTask with currentGeneration (the A2A
	// 1.1 long-poll; docs/bindings.md, "Generations, ifGenerationMatch and
	// long-poll") is held while the task has not moved past that
	// generation, before it is answered with the task as it is
	// (server.WithLongPollHold). Zero means server.DefaultLongPollHold
	// (30 s); a negative value answers such calls at once; more than
	// server.MaxLongPollHold (10 min) makes Start fail. Only calls that
	// negotiated 1.1 long-poll (ProtocolVersions). Main's -long-poll-hold
	// sets it.
	LongPollHold time.Duration
	// Skills hold one entry for every skill of the public and the extended
	// card.
	Skills []Skill
	// Route picks the skill of a message that neither names one nor goes to
	// the only skill; "" means the first skill of the public card. Nil
	// always answers "".
	Route func(ctx context.Context, req *server.Request) string
	// Verifiers check the credentials of the card's security schemes.
	Verifiers auth.Verifiers
	// TLS, when set, serves every listener over TLS (see
	// auth.ServerTLSConfig; mtls schemes need client CAs). The cards then
	// advertise TLS: see CardWithTLS.
	TLS *tls.Config
	// Listen opens the listener of an address; nil means net.Listen.
	// Tests map addresses to free loopback ports with it.
	Listen func(network, address string) (net.Listener, error)
	// Push configures webhook delivery when the card declares push
	// notifications: the options of the push.Sender Start makes.
	Push []push.Option
	// Store keeps the agent's tasks, events and push configs. It belongs to
	// the caller, who closes it after the agent has shut down. Nil: Start
	// uses the server's default, an in-memory store, and Main opens the
	// store its -store flag names, bounded by Limits' retention fields.
	Store store.Store
	// Interceptors wrap every call on every binding (runtime.Interceptor),
	// in the order given, the first one outermost; Telemetry's wrap them,
	// so that they record what these do.
	Interceptors []runtime.Interceptor
	// Telemetry instruments the agent (telemetry.Setup): its interceptors
	// outermost on every binding, its server and push options on the
	// server and webhook delivery, its MetricsHandler at GET /metrics on
	// every HTTP listener. Nil: none; Main sets it from the OTEL_*
	// variables and -request-log (telemetry.FromEnvironment) unless the
	// program did.
	Telemetry *telemetry.Setup
	// Routes adds handlers to the mux of every HTTP listener, next to the
	// agent card, the health checks (/healthz, /readyz) and the bindings
	// (e.g. mux.HandleFunc("GET /version", …)); it is called once per HTTP
	// listener. A pattern that conflicts with the agent's own makes Start
	// fail.
	Routes func(mux *http.ServeMux)
	// HTTPMiddleware wraps the whole handler of every HTTP listener (card,
	// bindings and Routes), in the order given, the first one outermost.
	HTTPMiddleware []func(http.Handler) http.Handler
	// GRPCServerOptions are passed to grpc.NewServer for every gRPC
	// listener (after the TLS credentials host sets itself).
	GRPCServerOptions []grpc.ServerOption
	// Limits bound bodies, headers, timeouts, streams and task retention
	// (zero fields: DefaultLimits); Main makes one flag of each field.
	// GRPCServerOptions come after them and so win on gRPC listeners.
	Limits Limits
	// GRPCReflection registers the gRPC server reflection service
	// (grpc.reflection.v1) on every gRPC listener, for tools like grpcurl.
	GRPCReflection bool
	// ShutdownGrace is how long running executions may go on after a
	// shutdown began before their contexts are canceled (with the cause
	// server.ErrShutdown). Zero means DefaultShutdownGrace; a negative value
	// cancels them at once.
	ShutdownGrace time.Duration
	// ShutdownDelay is how long the agent keeps serving after a shutdown
	// began, answering /readyz with 503 and gRPC health checks with
	// NOT_SERVING, before it stops accepting calls: time for load
	// balancers that poll readiness to send no more. Zero: none.
	ShutdownDelay time.Duration
	// Logger receives errors clients do not see; nil means slog.Default().
	Logger *slog.Logger
	// Flags, when set, adds the program's own flags to Main's (before they
	// are parsed): each gets an environment variable like Main's own
	// (EnvName) and a line in -help. The LLM skills' provider
	// (host/llm.Provider.Flags) is one. Start ignores it.
	Flags func(fs *flag.FlagSet)
}
