package push

import (
	"log/slog"
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
	allowPrivate bool
	onFailure    []func(Failure)
	interceptors []func(AttemptFunc) AttemptFunc
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

// AllowPrivateNetworks turns the SSRF guard off: webhooks on loopback,
// private, link-local, unspecified and multicast addresses are delivered
// too. Use it in tests and in private deployments whose webhook receivers
// live on internal networks, never on an agent that accepts configs from
// untrusted clients.
func AllowPrivateNetworks() Option {
	return func(c *config) { c.allowPrivate = true }
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
