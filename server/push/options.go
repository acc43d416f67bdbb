package push

import (
	"log/slog"
	"net/http"
	"time"
)

// Defaults of a Sender.
const (
	// DefaultTimeout bounds one delivery attempt (connect, send, response
	// headers and body). A2A §13.2 suggests 10–30 s.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxAttempts is how often one notification is tried in total.
	DefaultMaxAttempts = 5
	// DefaultInitialBackoff is the wait before the first retry; later
	// retries double it, up to DefaultMaxBackoff.
	DefaultInitialBackoff = 500 * time.Millisecond
	// DefaultMaxBackoff caps the wait between attempts.
	DefaultMaxBackoff = 30 * time.Second
	// DefaultConcurrency is how many deliveries a sender makes at once
	// (to different webhook configs: each config gets one at a time).
	DefaultConcurrency = 64

	defaultDialTimeout = 5 * time.Second
	defaultKeepAlive   = 30 * time.Second
)

// Option configures a Sender.
type Option func(*config)

type config struct {
	timeout      time.Duration
	maxAttempts  int
	initial, max time.Duration
	concurrency  int
	guard        guard
	client       *http.Client // WithHTTPClient; nil: the sender's own
	onFailure    []func(Failure)
	interceptors []func(AttemptFunc) AttemptFunc
	encoders     map[string]PayloadEncoder // by protocol version (WithPayloadEncoder)
	logger       *slog.Logger
}

func newConfig(opts []Option) config {
	c := config{
		timeout:     DefaultTimeout,
		maxAttempts: DefaultMaxAttempts,
		initial:     DefaultInitialBackoff,
		max:         DefaultMaxBackoff,
		concurrency: DefaultConcurrency,
		logger:      slog.Default(),
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTimeout bounds each delivery attempt; d <= 0 keeps DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithMaxAttempts sets how often a notification is tried before it is given
// up (1 = no retries); n < 1 keeps DefaultMaxAttempts.
func WithMaxAttempts(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxAttempts = n
		}
	}
}

// WithBackoff sets the wait before the first retry and the cap of the
// doubling waits after it. Each wait is drawn at random from the upper half
// of its step (jitter), so that retries of many notifications spread out.
// Non-positive values keep the defaults.
func WithBackoff(initial, max time.Duration) Option {
	return func(c *config) {
		if initial > 0 {
			c.initial = initial
		}
		if max > 0 {
			c.max = max
		}
		if c.max < c.initial {
			c.max = c.initial
		}
	}
}

// WithConcurrency sets how many deliveries are made at once (each webhook
// config still gets one at a time, in order); n < 1 keeps
// DefaultConcurrency.
func WithConcurrency(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.concurrency = n
		}
	}
}

// AllowPrivateNetworks turns the special-range policy of the SSRF guard
// off: webhooks on loopback, private, link-local, shared, reserved,
// multicast and the other special-purpose addresses are delivered too. The
// deny-list (DenyDestinations) still applies. Use it in tests and in private
// deployments whose webhook receivers live on internal networks, never on
// an agent that accepts configs from untrusted clients; AllowDestinations
// opens only the networks named.
func AllowPrivateNetworks() Option {
	return func(c *config) { c.guard.allowPrivate = true }
}

// AllowDestinations lets webhooks reach the listed destinations even when
// the SSRF guard would refuse them (loopback, private and other
// special-purpose addresses). An entry is a CIDR ("10.20.0.0/16"), an IP
// ("127.0.0.1", "::1": that address only) or a host name
// ("hooks.internal": that name exactly, case-insensitively, and every
// address it resolves to — allow a name only if you trust its DNS). IPv4
// entries also match the IPv4-mapped form of their addresses. The deny-list
// wins over the allow-list. Options add up. An empty entry or a malformed
// CIDR panics.
func AllowDestinations(entries ...string) Option {
	return func(c *config) { c.guard.allow.add(entries) }
}

// DenyDestinations refuses webhooks to the listed destinations, whatever
// else is allowed: it wins over AllowDestinations and AllowPrivateNetworks.
// Entries are written as for AllowDestinations; a network entry also
// refuses IPv6 addresses that embed one of its IPv4 addresses (NAT64,
// 6to4, Teredo, IPv4-compatible). A host name entry refuses that name
// only, not other names that resolve to the same addresses: deny the
// addresses for that.
func DenyDestinations(entries ...string) Option {
	return func(c *config) { c.guard.deny.add(entries) }
}

// WithHTTPClient makes the sender post with c instead of its own client
// (for a proxy, custom TLS, an in-process transport in tests...). c is
// copied and the copy never follows redirects, whatever c.CheckRedirect
// says. The guard still checks every webhook URL, when a config is created
// and before every attempt: scheme, the deny- and allow-lists, literal
// addresses and "localhost". What it cannot do is check the addresses c's
// transport resolves and dials: a host name that resolves to a private
// address, DNS rebinding and c's proxy are c's responsibility. Give c a
// dialer that refuses what must not be reached, or keep the sender's own
// client. The sender's timeout still bounds every attempt. nil keeps the
// sender's own client.
func WithHTTPClient(c *http.Client) Option {
	return func(cfg *config) {
		if c != nil {
			cfg.client = c
		}
	}
}

// OnFailure adds a hook called once for every notification that is given
// up: after its last failed attempt, or on an error that retrying cannot
// fix. Hooks run in the order they were added, on the sender's goroutines,
// and must not block.
func OnFailure(f func(Failure)) Option {
	return func(c *config) {
		if f != nil {
			c.onFailure = append(c.onFailure, f)
		}
	}
}

// WithLogger sets the logger of failed deliveries (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}
