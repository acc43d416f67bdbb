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
	// DefaultQueueLimit is how many notifications may wait per config.
	DefaultQueueLimit = 1024

	defaultDialTimeout = 5 * time.Second
	defaultKeepAlive   = 30 * time.Second
)

// Option configures a Sender.
type Option func(*config)

type config struct {
	timeout      time.Duration
	maxAttempts  int
	initial, max time.Duration
	queueLimit   int
	allowPrivate bool
	onFailure    func(Failure)
	logger       *slog.Logger
}

func newConfig(opts []Option) config {
	c := config{
		timeout:     DefaultTimeout,
		maxAttempts: DefaultMaxAttempts,
		initial:     DefaultInitialBackoff,
		max:         DefaultMaxBackoff,
		queueLimit:  DefaultQueueLimit,
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

// WithQueueLimit sets how many notifications may wait for delivery per
// config; when a receiver is so slow that its queue is full, new
// notifications for it are dropped and reported to the failure hook, so that
// a slow receiver costs bounded memory and never slows the task down.
// n < 1 keeps DefaultQueueLimit.
func WithQueueLimit(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.queueLimit = n
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

// OnFailure sets a hook called once for every notification that is given up:
// after its last failed attempt, on an error that retrying cannot fix, or
// when it is dropped from a full queue. It runs on the sender's goroutines
// (or, for drops, on the caller of Send) and must not block.
func OnFailure(f func(Failure)) Option {
	return func(c *config) { c.onFailure = f }
}

// WithLogger sets the logger of failed deliveries (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}
