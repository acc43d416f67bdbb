// Package push delivers A2A push notifications (A2A §4.3, §13.2): every task
// event is POSTed as one StreamResponse JSON document to each webhook
// registered for the task. A webhook registered through another protocol
// version is posted what its store record says (store.TaskPayload: for
// A2A v0.3, the task as written, once per change) in the form of the
// PayloadEncoder given for that version (WithPayloadEncoder; for v0.3,
// compat/a2av03.PushPayload writes the v0.3 Task JSON).
//
// The deliveries come from a store's outbox (store.Outbox), where the task
// write that produced an event queued one delivery per webhook config in
// the same transaction. A Sender claims due deliveries with a lease, posts
// them, and records the outcome in the outbox: done, retry at a time chosen
// by capped exponential backoff with jitter (the attempt count and due time
// live in the store, so retries survive restarts), or given up (reported to
// a failure hook). The outbox hands out only the oldest pending delivery of
// each config, so each receiver gets the events of a task in the order they
// happened, and one receiver's troubles never delay another's.
//
// Delivery is at least once: a process that dies between a successful POST
// and recording it, or whose lease runs out mid-attempt, leaves the delivery
// to be posted again. Every request carries the delivery's stable identity,
// which receivers can deduplicate on:
//
//	Content-Type: application/a2a+json
//	Authorization: <scheme> <credentials>      from the config's authentication
//	X-A2A-Notification-Token: <token>          and, for receivers built on the
//	A2A-Notification-Token: <token>            official Go SDK, the same token
//	X-A2A-Notification-Id: <delivery id>       task id/version.index/config id
//	Traceparent: <W3C trace context>           with an attempt interceptor that
//	                                           sets it (package telemetry's)
//
// Addresses are checked when they are dialled, after name resolution: every
// range of the IANA special-purpose address registries that is not globally
// reachable (loopback, private, link-local, shared, reserved,
// documentation, ...) is refused, as are IPv6 addresses embedding such an
// IPv4 address, unless AllowPrivateNetworks is set or AllowDestinations
// names the destination; DenyDestinations refuses destinations whatever
// else allows them. Redirects are not followed.
package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// ContentType is the media type of a notification body.
const ContentType = "application/a2a+json"

// The headers that carry a config's token. A2A v1.0 names none; the v0.3
// specification and the Python SDK use the first, the official Go SDK the
// second, so both are sent and receivers may read either.
const (
	TokenHeader    = "X-A2A-Notification-Token"
	AltTokenHeader = "A2A-Notification-Token"
)

// IDHeader carries the delivery's stable identity (store.DeliveryID): the
// same on every attempt, after a restart and from any replica, so that a
// receiver can drop a notification it has already processed. A2A names no
// such header; this one follows the token header's naming.
const IDHeader = "X-A2A-Notification-Id"

// maxResponseBytes is how much of a receiver's answer is read (and thrown
// away) so that the connection can be reused.
const maxResponseBytes = 64 << 10

// StatusError is a receiver's non-2xx answer.
type StatusError struct {
	StatusCode int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("push: webhook answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Notification is one event for one webhook config.
type Notification struct {
	// ID is the delivery's stable identity (sent in IDHeader).
	ID     string
	Tenant string
	// Config is the webhook: TaskId, Id, Url, Token, Authentication. It is
	// read, never modified.
	Config *a2av1.TaskPushNotificationConfig
	// Event is the StreamResponse to POST (task, statusUpdate or
	// artifactUpdate). It is read, never modified.
	Event *a2av1.StreamResponse
	// ProtocolVersion is the protocol version the config was registered
	// through when the notification was queued (store.Delivery's): it picks
	// the body's form (WithPayloadEncoder); without an encoder for it, the
	// StreamResponse is posted in ProtoJSON as that version knows it (what
	// the version lacks left out; "" is the oldest version of a2a/v1).
	ProtocolVersion string
	// Trace is the trace context of the write that produced the event
	// (empty when tracing is off); an AttemptInterceptor continues it.
	Trace store.TraceContext
}

// Failure describes a notification that was given up.
type Failure struct {
	Notification
	// Attempts is how many requests were made.
	Attempts int
	// Err is the last error: a *StatusError, or a transport error (possibly
	// wrapping ErrBlockedAddress).
	Err error
}

// Sender delivers the notifications of an outbox (see Start). It is safe
// for concurrent use. Close it to stop its goroutines.
type Sender struct {
	cfg       config
	guard     *guard
	client    *http.Client
	transport *http.Transport // nil with WithHTTPClient
	// now is the clock of due times; tests replace it.
	now func() time.Time
	// intercepted is attempt wrapped in the attempt interceptors; nil
	// without any.
	intercepted AttemptFunc

	worker string          // lease owner in the outbox
	ctx    context.Context // canceled by Close at its deadline: in-flight attempts stop
	cancel context.CancelFunc

	mu      sync.Mutex
	started bool
	closing chan struct{} // closed by Close: claim nothing new, drain what is due
	done    chan struct{} // closed when the dispatcher has stopped
}

// NewSender returns a sender configured by opts. It delivers nothing until
// Start gives it an outbox.
func NewSender(opts ...Option) *Sender {
	cfg := newConfig(opts)
	g := &cfg.guard
	var tr *http.Transport
	var client *http.Client
	if cfg.client != nil {
		c := *cfg.client
		client = &c
	} else {
		tr = &http.Transport{
			Proxy:                 nil, // the guard checks the address dialled, which must be the receiver's
			DialContext:           g.guardedDial(&net.Dialer{Timeout: defaultDialTimeout, KeepAlive: defaultKeepAlive}),
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   defaultDialTimeout,
			ExpectContinueTimeout: time.Second,
		}
		client = &http.Client{Transport: tr}
	}
	// A redirect would move the request (and its token) to an address the
	// client chose after the URL was checked; a 3xx is a failure.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sender{
		cfg:       cfg,
		guard:     g,
		transport: tr,
		client:    client,
		now:       time.Now,
		worker:    store.NewRunnerID(),
		ctx:       ctx,
		cancel:    cancel,
		closing:   make(chan struct{}),
		done:      make(chan struct{}),
	}
	if len(cfg.interceptors) > 0 {
		s.intercepted = s.attempt
		for i := len(cfg.interceptors) - 1; i >= 0; i-- {
			s.intercepted = cfg.interceptors[i](s.intercepted)
		}
	}
	return s
}

// Post makes one delivery attempt of n, with the sender's timeout, SSRF
// guard and attempt interceptors, and reports its outcome (nil for a 2xx
// answer). Start's dispatcher uses it; it is exported for programs that
// deliver notifications of their own.
func (s *Sender) Post(ctx context.Context, n Notification) error {
	return s.post(ctx, n, 1)
}

// post makes attempt number of n through the interceptors.
func (s *Sender) post(ctx context.Context, n Notification, number int) error {
	body, contentType, err := s.encode(n)
	if errors.Is(err, errUnknownToVersion) {
		return nil
	}
	if err != nil {
		return &permanentError{err}
	}
	a := &Attempt{Notification: n, Number: number, body: body, contentType: contentType}
	if s.intercepted == nil {
		return s.attempt(ctx, a)
	}
	a.Header = make(http.Header)
	return s.intercepted(ctx, a)
}

// attempt makes one request.
func (s *Sender) attempt(ctx context.Context, a *Attempt) error {
	cfg, id := a.Config, a.ID
	if err := s.CheckURL(cfg.GetUrl()); err != nil {
		// The policy may have changed since the config was accepted, and
		// with WithHTTPClient this is the guard's only look at the URL.
		if errors.Is(err, ErrBlockedAddress) {
			return err
		}
		return &permanentError{err}
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.GetUrl(), bytes.NewReader(a.body))
	if err != nil {
		return &permanentError{fmt.Errorf("push: webhook url %q: %w", cfg.GetUrl(), err)}
	}
	for k, v := range a.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", a.contentType)
	if auth := cfg.GetAuthentication(); auth.GetScheme() != "" && auth.GetCredentials() != "" {
		req.Header.Set("Authorization", auth.GetScheme()+" "+auth.GetCredentials())
	}
	if id != "" {
		req.Header.Set(IDHeader, id)
	}
	if tok := cfg.GetToken(); tok != "" {
		req.Header.Set(TokenHeader, tok)
		req.Header.Set(AltTokenHeader, tok)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
	resp.Body.Close()
	a.StatusCode = resp.StatusCode
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	return &StatusError{StatusCode: resp.StatusCode}
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// retryable reports whether another attempt may succeed: transport errors
// (except a blocked address) and the statuses that announce a transient
// condition (408, 425, 429, 5xx). Other answers (4xx, 3xx) are final.
func retryable(err error) bool {
	var perm *permanentError
	if errors.As(err, &perm) || errors.Is(err, ErrBlockedAddress) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch c := se.StatusCode; {
		case c == http.StatusRequestTimeout, c == http.StatusTooEarly, c == http.StatusTooManyRequests, c >= 500:
			return true
		}
		return false
	}
	return true
}

// backoff returns the wait after the given failed attempt (1-based): the
// step initial·2^(attempt-1), capped at max, with "equal jitter" — a random
// duration in the upper half of the step — so waits grow exponentially but
// retries of different notifications do not line up.
func (s *Sender) backoff(attempt int) time.Duration {
	step := s.cfg.initial
	for i := 1; i < attempt && step < s.cfg.max; i++ {
		step *= 2
	}
	step = min(step, s.cfg.max)
	half := step / 2
	return half + rand.N(half+1)
}

// fail reports a given-up notification to the log and the hook.
func (s *Sender) fail(f Failure) {
	s.cfg.logger.LogAttrs(context.Background(), slog.LevelWarn, "a2a: push notification not delivered",
		slog.String("tenant", f.Tenant), slog.String("taskId", f.Config.GetTaskId()),
		slog.String("configId", f.Config.GetId()), slog.String("url", redactURL(f.Config.GetUrl())),
		slog.Int("attempts", f.Attempts), slog.Any("error", f.Err))
	for _, h := range s.cfg.onFailure {
		h(f)
	}
}

// redactURL drops the query of a URL for logs: webhook URLs sometimes carry
// secrets there.
func redactURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}
