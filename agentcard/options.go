package agentcard

import (
	"net/http"

	"google.golang.org/grpc"

	"github.com/a2agen/a2agen/runtime"
)

// Option configures NewClient, Discover and SelectInterface.
type Option func(*config)

type config struct {
	bindings    []runtime.Binding // allowed bindings (bindingKey form) in order of preference; nil: all, in card order
	httpClient  *http.Client
	dialOptions []grpc.DialOption
	credentials []schemeCredentials // in the order given
	clientOpts  []runtime.ClientOption
	transports  map[runtime.Binding]TransportFunc // by bindingKey
	cache       *Cache

	verifyKeys       []VerificationKey // signature.go
	jwksURLs         []string
	requireSignature bool
}

// schemeCredentials are the credentials given for one security scheme.
type schemeCredentials struct {
	scheme string
	creds  Credentials
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	return c
}

// WithBindings restricts the client to the listed bindings and orders them
// by preference: interfaces of the first binding are tried first (in card
// order), then those of the second, and so on; interfaces of other bindings
// are refused. Without it every binding the client speaks is acceptable and
// the card's order decides, as the specification says (the first entry is
// the agent's preferred one). Give runtime.BindingJSONRPC,
// runtime.BindingHTTPJSON, runtime.BindingGRPC or a custom binding URI; names
// are compared as runtime.ParseBinding reads them (case-insensitively, the
// usual aliases too), custom URIs case-insensitively.
func WithBindings(bindings ...runtime.Binding) Option {
	return func(c *config) {
		for _, b := range bindings {
			c.bindings = append(c.bindings, bindingKey(b))
		}
	}
}

// WithHTTPClient sets the HTTP client used to fetch cards (Discover) and by
// the HTTP bindings (JSON-RPC, HTTP+JSON). The default is http.DefaultClient.
// A runtime.WithHTTPClient in WithClientOptions replaces it for the
// bindings only (not for fetching cards); WithCredentials apply to either.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithGRPCDialOptions adds grpc-go dial options for a gRPC interface (TLS
// settings, keepalive, interceptors…); see runtime.WithGRPCDialOptions.
func WithGRPCDialOptions(opts ...grpc.DialOption) Option {
	return func(c *config) { c.dialOptions = append(c.dialOptions, opts...) }
}

// WithCredentials sends, with every call, the credentials of the security
// scheme the card declares under scheme (a key of card.securitySchemes).
// NewClient fails when the card declares no such scheme, so that a typo does
// not silently send unauthenticated requests. Several schemes may be given;
// each adds its header.
func WithCredentials(scheme string, creds Credentials) Option {
	return func(c *config) {
		c.credentials = append(c.credentials, schemeCredentials{scheme: scheme, creds: creds})
	}
}

// WithClientOptions passes options to the runtime transport
// (runtime.WithExtensions, runtime.WithHeader, runtime.WithMaxResponseBytes…).
// They are applied after what the card implies, so an explicit
// runtime.WithProtocolVersion or runtime.WithClientTenant overrides the chosen
// interface's protocolVersion or tenant.
func WithClientOptions(opts ...runtime.ClientOption) Option {
	return func(c *config) { c.clientOpts = append(c.clientOpts, opts...) }
}

// TransportFunc builds the client transport of one binding for an interface
// url. opts carry everything the client was configured with, the interface's
// tenant and protocol version included.
type TransportFunc func(url string, opts ...runtime.ClientOption) (runtime.ClientTransport, error)

// WithTransport makes binding usable, or replaces its built-in transport:
// interfaces whose protocolBinding names binding (compared as WithBindings
// compares) are
// served by newTransport. It is how a custom binding URI is plugged in. A transport that implements
// io.Closer is closed by Client.Close.
func WithTransport(binding runtime.Binding, newTransport TransportFunc) Option {
	return func(c *config) {
		if c.transports == nil {
			c.transports = make(map[runtime.Binding]TransportFunc)
		}
		c.transports[bindingKey(binding)] = newTransport
	}
}

// WithCardCache makes Discover fetch cards through cache, which keeps them
// as long as their Cache-Control allows and revalidates them with
// If-None-Match/If-Modified-Since. Without it every Discover fetches the card.
func WithCardCache(cache *Cache) Option {
	return func(c *config) { c.cache = cache }
}
