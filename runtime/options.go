package runtime

import (
	"log/slog"
	"time"

	"github.com/a2agen/a2agen/internal/idle"
)

// VersionPolicy decides what a server assumes when a request carries no
// A2A-Version service parameter (or an empty one).
type VersionPolicy int

const (
	// VersionLenient (the default) treats a missing A2A-Version as the
	// interface's newest supported version. Most v1.0 clients send the header;
	// this keeps hand-written curl calls and lax clients working.
	VersionLenient VersionPolicy = iota
	// VersionStrict follows the spec to the letter: a missing or empty
	// A2A-Version means 0.3, which a 1.0-only interface rejects with
	// VersionNotSupported.
	VersionStrict
)

// DefaultMaxBodyBytes is the default request body limit of the HTTP bindings.
const DefaultMaxBodyBytes = 8 << 20

// Defaults of the stream options of the HTTP bindings.
const (
	// DefaultWriteTimeout bounds each write of a response: a unary
	// answer, or one event of a stream.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultStreamKeepAlive is the quiet time after which an SSE stream
	// gets a keep-alive comment: below the idle timeouts of common proxies
	// and load balancers (60 s and more).
	DefaultStreamKeepAlive = 15 * time.Second
)

// HandlerOption configures a binding router (JSON-RPC, REST, gRPC).
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	maxBodyBytes       int64
	writeTimeout       time.Duration // sse.go
	streamKeepAlive    time.Duration // sse_stream.go
	versionPolicy      VersionPolicy
	supportedVersions  []string
	requiredExtensions []string
	tenant             string
	logger             *slog.Logger
	authenticator      Authenticator // auth.go
	challenges         []string      // auth.go: WithAuthenticator's defaults
	interceptors       []Interceptor // interceptor.go
	chains             map[*Endpoint]*serverChain
	idle               idle.Chain // the interceptors, if all can say they are idle (interceptor.go)
	failuresLogged     bool       // an interceptor logs failures (failure.go)
	// pathPrefix is the HTTP+JSON mount point set by WithPathPrefix;
	// pathPrefixSet turns off the detection from http.Request.Pattern.
	pathPrefix    string
	pathPrefixSet bool
	// adapters serve other protocol versions (version_adapter.go).
	adapters []*VersionAdapter
	// The view of each call's version (version_view.go): the version of a
	// call that names none, and the view of each endpoint for each served
	// version older than the newest of the service's version table.
	versionDefault string
	views          map[viewKey]*callView
}

func newHandlerConfig(opts []HandlerOption) *handlerConfig {
	c := &handlerConfig{
		maxBodyBytes:    DefaultMaxBodyBytes,
		writeTimeout:    DefaultWriteTimeout,
		streamKeepAlive: DefaultStreamKeepAlive,
		versionPolicy:   VersionLenient,
		logger:          slog.Default(),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// WithMaxBodyBytes limits the size of a request body; larger requests are
// refused with InvalidRequest naming the limit. n <= 0 restores the default.
func WithMaxBodyBytes(n int64) HandlerOption {
	return func(c *handlerConfig) {
		if n <= 0 {
			n = DefaultMaxBodyBytes
		}
		c.maxBodyBytes = n
	}
}

// WithWriteTimeout bounds each write of a response on JSON-RPC and
// HTTP+JSON: a unary answer, or one event of a Server-Sent Events stream
// (DefaultWriteTimeout). A client that stops reading fills the connection's
// buffers; the write that blocks fails after d, the call ends, and what it
// held is released, instead of a client that never reads pinning its
// answer or its stream's events for as long as it keeps the connection.
// The deadline is counted from the write, not from the request, so a
// blocking SendMessage may take as long as its task, and a stream may stay
// quiet for as long as its task needs (unlike http.Server.WriteTimeout,
// which bounds the whole exchange and which host leaves unset).
// d < 0 turns the bound off; 0 restores the default. (On gRPC, flow control
// and the server's keepalive settings play this part.)
func WithWriteTimeout(d time.Duration) HandlerOption {
	return func(c *handlerConfig) { c.writeTimeout = durationOption(d, DefaultWriteTimeout) }
}

// WithStreamKeepAlive sets how long a Server-Sent Events stream may be quiet
// before the server sends a keep-alive comment (": keep-alive"), which
// readers ignore and which keeps proxies, load balancers and clients with
// idle timeouts from closing a stream whose task is waiting
// (DefaultStreamKeepAlive). d < 0 turns keep-alives off; 0 restores the
// default.
func WithStreamKeepAlive(d time.Duration) HandlerOption {
	return func(c *handlerConfig) { c.streamKeepAlive = durationOption(d, DefaultStreamKeepAlive) }
}

// durationOption is d, def for 0, and 0 (off) for d < 0.
func durationOption(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// WithVersionPolicy selects how a missing A2A-Version is treated.
func WithVersionPolicy(p VersionPolicy) HandlerOption {
	return func(c *handlerConfig) { c.versionPolicy = p }
}

// WithSupportedVersions sets the A2A protocol versions (Major.Minor) the
// interface serves; the default is the service's ServiceDesc.ProtocolVersions.
// The first is the newest. A version the service's version table knows
// (ServiceDesc.Versions: the A2A 1.1 draft for a2a/v1) may be added to the
// service's own: each call then sees what its negotiated version defines, and
// a call that names no version (lenient policy) is served as the service's
// own newest version (ServiceDesc.ProtocolVersions[0]), not the draft.
func WithSupportedVersions(versions ...string) HandlerOption {
	return func(c *handlerConfig) {
		if len(versions) > 0 {
			c.supportedVersions = append([]string(nil), versions...)
		}
	}
}

// WithRequiredExtensions names extension URIs every request must activate in
// A2A-Extensions (the card's extensions with required: true); a request that
// lacks one fails with ExtensionSupportRequired.
func WithRequiredExtensions(uris ...string) HandlerOption {
	return func(c *handlerConfig) { c.requiredExtensions = append(c.requiredExtensions, uris...) }
}

// WithTenant sets the interface tenant (AgentInterface.tenant). A request whose
// tenant is set and differs is refused; an empty request tenant is filled in.
func WithTenant(tenant string) HandlerOption {
	return func(c *handlerConfig) { c.tenant = tenant }
}

// WithLogger sets the logger for errors the client never sees (internal error
// causes, failed writes). The default is slog.Default().
func WithLogger(l *slog.Logger) HandlerOption {
	return func(c *handlerConfig) {
		if l != nil {
			c.logger = l
		}
	}
}
