package agentcard

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Client is an A2A client built from an agent card: the common client
// interface over the interface SelectInterface chose.
type Client struct {
	a2av1.A2AServiceClient

	// Interface is the supportedInterfaces entry the client talks to.
	Interface *a2av1.AgentInterface
	// Card is the card the client was built from.
	Card *a2av1.AgentCard
}

// Close releases what the transport holds (the gRPC connection; nothing
// for the HTTP bindings, whose connections belong to the http.Client, and a
// WithTransport transport that implements io.Closer is closed). Afterwards
// every call fails with runtime.ErrClientClosed.
func (c *Client) Close() error { return c.A2AServiceClient.Close() }

// NewClient returns a client of the agent described by card, over the
// interface SelectInterface chooses with opts. Every call carries the
// interface's tenant (when it has one) in the request's tenant field and the
// interface's protocol version (Major.Minor) as A2A-Version, plus the
// WithCredentials headers. Nothing is sent here: the gRPC connection is made
// on the first call.
//
// Errors: a *NoInterfaceError when no interface qualifies; an error naming
// the scheme when WithCredentials names a scheme the card does not declare;
// an error from the transport constructor (a malformed gRPC target).
func NewClient(card *a2av1.AgentCard, opts ...Option) (*Client, error) {
	c := newConfig(opts)
	if c.requireSignature {
		return nil, errors.New("agentcard: NewClient cannot check WithRequireSignature on a parsed card; use Discover, or VerifyCard on the card document")
	}
	return c.newClient(card)
}

func (c *config) newClient(card *a2av1.AgentCard) (*Client, error) {
	newTransport, iface, err := c.selectInterface(card)
	if err != nil {
		return nil, err
	}
	creds, err := c.bindCredentials(card)
	if err != nil {
		return nil, err
	}
	t, err := newTransport(iface.GetUrl(), c.transportOptions(iface, creds)...)
	if err == nil && t == nil {
		err = fmt.Errorf("the transport constructor returned no transport")
	}
	if err != nil {
		return nil, fmt.Errorf("agentcard: %s interface %q of the agent card %q: %w", iface.GetProtocolBinding(), iface.GetUrl(), card.GetName(), err)
	}
	return &Client{A2AServiceClient: a2av1.NewA2AServiceClient(t), Interface: iface, Card: card}, nil
}

// transportOptions are the runtime options of the transport for iface: the
// interface's tenant and protocol version first, then the HTTP client, dial
// options and credentials, and the caller's WithClientOptions last, so that
// what a caller says explicitly (runtime.WithProtocolVersion,
// runtime.WithClientTenant, runtime.WithHTTPClient) wins over what the card
// implies. Credentials are a middleware of whichever HTTP client ends up
// set, so no option drops them.
func (c *config) transportOptions(iface *a2av1.AgentInterface, creds boundCredentials) []runtime.ClientOption {
	opts := runtime.ClientDefaults(&a2av1.A2AServiceDesc, nil) // the service's version, unless the card says
	if t := iface.GetTenant(); t != "" {
		opts = append(opts, runtime.WithClientTenant(t))
	}
	if v, ok := runtime.ParseVersion(iface.GetProtocolVersion()); ok {
		opts = append(opts, runtime.WithProtocolVersion(v))
	}
	if c.httpClient != nil {
		opts = append(opts, runtime.WithHTTPClient(c.httpClient))
	}
	if wrap := credentialMiddleware(iface.GetUrl(), creds); wrap != nil {
		opts = append(opts, runtime.WithHTTPMiddleware(wrap))
	}
	dial := c.dialOptions
	if len(creds) > 0 {
		dial = append(append([]grpc.DialOption(nil), dial...), grpc.WithPerRPCCredentials(grpcCredentials{creds: creds}))
	}
	if len(dial) > 0 {
		opts = append(opts, runtime.WithGRPCDialOptions(dial...))
	}
	return append(opts, c.clientOpts...)
}

// Discover fetches the public agent card of the agent at baseURL (see
// CardURL) and returns NewClient(card, opts...). With WithCardCache the card
// comes from the cache when it is still fresh. With WithVerificationKeys or
// WithJWKSURL the card's signatures are checked first (see VerifyCard); a
// card failing the check is an error wrapping a *SignatureError.
func Discover(ctx context.Context, baseURL string, opts ...Option) (*Client, error) {
	c := newConfig(opts)
	cache := c.cache
	if cache == nil {
		cache = NewCache(c.httpClient)
	}
	card, doc, err := cache.FetchDocument(ctx, baseURL)
	if err != nil {
		return nil, err
	}
	if c.verifies() {
		if _, err := c.verifyCard(ctx, doc); err != nil {
			return nil, fmt.Errorf("agentcard: the card of %s: %w", baseURL, err)
		}
	}
	return c.newClient(card)
}
