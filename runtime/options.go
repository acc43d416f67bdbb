package runtime

import "log/slog"

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

// HandlerOption configures a binding router (JSON-RPC, REST, gRPC).
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	maxBodyBytes       int64
	versionPolicy      VersionPolicy
	supportedVersions  []string
	requiredExtensions []string
	tenant             string
	logger             *slog.Logger
	authenticator      Authenticator // auth.go
	challenges         []string      // auth.go: WithAuthenticator's defaults
	interceptors       []Interceptor // interceptor.go
	chains             map[*Endpoint]*serverChain
	failuresLogged     bool // an interceptor logs failures (failure.go)
	// pathPrefix is the HTTP+JSON mount point set by WithPathPrefix;
	// pathPrefixSet turns off the detection from http.Request.Pattern.
	pathPrefix    string
	pathPrefixSet bool
}

func newHandlerConfig(opts []HandlerOption) *handlerConfig {
	c := &handlerConfig{
		maxBodyBytes:  DefaultMaxBodyBytes,
		versionPolicy: VersionLenient,
		logger:        slog.Default(),
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

// WithVersionPolicy selects how a missing A2A-Version is treated.
func WithVersionPolicy(p VersionPolicy) HandlerOption {
	return func(c *handlerConfig) { c.versionPolicy = p }
}

// WithSupportedVersions sets the A2A protocol versions (Major.Minor) the
// interface serves; the default is the service's ServiceDesc.ProtocolVersions.
// The first is the newest.
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
