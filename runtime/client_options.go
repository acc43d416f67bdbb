package runtime

import (
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultMaxResponseBytes is the default limit on a response body a client
// transport reads (for streams: on one event).
const DefaultMaxResponseBytes = 64 << 20

// ClientOption configures a client transport. The options are the same for
// every binding.
type ClientOption func(*clientConfig)

type clientConfig struct {
	httpClient       *http.Client
	httpMiddleware   []func(http.RoundTripper) http.RoundTripper
	header           http.Header
	extensions       []string
	tenant           string
	protocolVersion  string
	versionValues    []string // {protocolVersion}, set with it: versionHeader
	maxResponseBytes int64
	grpcDialOptions  []grpc.DialOption // see WithGRPCDialOptions (grpc_client.go)
	interceptors     []Interceptor     // interceptor.go
	// Resuming broken streams (client_resume.go): the service called
	// (ClientDefaults), the retries set by WithStreamResume.
	service       *ServiceDesc
	resumeRetries int
	resumeSet     bool
	// Idempotent sends (client_sendkey.go): no Idempotency-Key, how many
	// times a send whose connection broke is sent again.
	noSendKeys  bool
	sendRetries int
}

func newClientConfig(opts []ClientOption) *clientConfig {
	c := &clientConfig{
		httpClient:       http.DefaultClient,
		header:           make(http.Header),
		maxResponseBytes: DefaultMaxResponseBytes,
		sendRetries:      DefaultSendRetries,
	}
	for _, o := range opts {
		o(c)
	}
	if len(c.httpMiddleware) > 0 {
		hc := *c.httpClient // a copy: the caller's client is never modified
		rt := hc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		for _, wrap := range c.httpMiddleware {
			rt = wrap(rt)
		}
		hc.Transport = rt
		c.httpClient = &hc
	}
	return c
}

// WithHTTPClient sets the HTTP client of the HTTP bindings; the default is
// http.DefaultClient. Streams last as long as the agent keeps them open, so a
// client-wide Timeout also cuts streams: prefer context deadlines.
// WithHTTPMiddleware wraps the transport of whichever client is set, in any
// order of options, so the credentials agentcard adds that way are kept.
func WithHTTPClient(c *http.Client) ClientOption {
	return func(cfg *clientConfig) {
		if c != nil {
			cfg.httpClient = c
		}
	}
}

// WithHTTPMiddleware wraps the round tripper of the HTTP bindings' client
// (WithHTTPClient's, or http.DefaultClient's) — on a copy of the client,
// once all options are applied, so the wrapping survives a WithHTTPClient
// given before or after it. The first middleware given is the innermost.
// The gRPC binding ignores it.
func WithHTTPMiddleware(wrap func(http.RoundTripper) http.RoundTripper) ClientOption {
	return func(cfg *clientConfig) {
		if wrap != nil {
			cfg.httpMiddleware = append(cfg.httpMiddleware, wrap)
		}
	}
}

// WithHeader adds a header sent with every request, e.g. Authorization.
// Calling it again with the same key adds another value. Static headers are
// applied last, so they can override the transport's own headers.
func WithHeader(key, value string) ClientOption {
	return func(cfg *clientConfig) { cfg.header.Add(key, value) }
}

// WithExtensions asks the agent to activate extensions: the URIs are sent in
// one comma-separated A2A-Extensions header on every request.
func WithExtensions(uris ...string) ClientOption {
	return func(cfg *clientConfig) {
		for _, u := range uris {
			if u = strings.TrimSpace(u); u != "" {
				cfg.extensions = append(cfg.extensions, u)
			}
		}
	}
}

// WithClientTenant sets the tenant of the agent interface
// (AgentInterface.tenant). It is put in every request whose tenant is empty;
// the caller's request message is never modified.
func WithClientTenant(tenant string) ClientOption {
	return func(cfg *clientConfig) { cfg.tenant = tenant }
}

// WithProtocolVersion sets the A2A-Version sent with every request. Generated
// client constructors set the newest version of their service
// (ServiceDesc.ProtocolVersions) before the caller's options; a transport
// built without one sends no A2A-Version.
func WithProtocolVersion(v string) ClientOption {
	return func(cfg *clientConfig) {
		if v != "" {
			cfg.protocolVersion = v
			cfg.versionValues = []string{v}
		}
	}
}

// WithMaxResponseBytes limits the size of a response body the transport
// reads; for streams the limit applies to each event. n <= 0 restores
// DefaultMaxResponseBytes.
func WithMaxResponseBytes(n int64) ClientOption {
	return func(cfg *clientConfig) {
		if n <= 0 {
			n = DefaultMaxResponseBytes
		}
		cfg.maxResponseBytes = n
	}
}

// versionHeader is the value of the version header: one slice for every
// request (capacity 1, so that an Add copies it).
func (c *clientConfig) versionHeader() []string { return c.versionValues[0:1:1] }

// setHeaders puts the service parameters and the static headers on an HTTP
// request.
func (c *clientConfig) setHeaders(h http.Header) {
	if c.protocolVersion != "" {
		h[canonicalVersion] = c.versionHeader()
	}
	if len(c.extensions) > 0 {
		h[canonicalExtensions] = []string{strings.Join(c.extensions, ",")}
	}
	for k, v := range c.header {
		h[k] = append([]string(nil), v...)
	}
}

// tenantToFill returns the tenant field of req when the transport has a
// tenant to put in and req's tenant is empty, or nil.
func (c *clientConfig) tenantToFill(req proto.Message) protoreflect.FieldDescriptor {
	if c.tenant == "" || req == nil {
		return nil
	}
	m := req.ProtoReflect()
	fd := tenantField(m.Descriptor())
	if fd == nil || m.Get(fd).String() != "" {
		return nil
	}
	return fd
}

// ClientDefaults returns opts preceded by the options a client of desc
// starts from: WithProtocolVersion with the service's newest protocol
// version. Generated client constructors call it, so the caller's options
// win.
func ClientDefaults(desc *ServiceDesc, opts []ClientOption) []ClientOption {
	v := desc.ProtocolVersion()
	if v == "" {
		return append([]ClientOption{withService(desc)}, opts...)
	}
	return append([]ClientOption{withService(desc), WithProtocolVersion(v)}, opts...)
}
