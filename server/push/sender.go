// Package push delivers A2A push notifications (A2A §4.3, §13.2): every task
// event is POSTed as one StreamResponse JSON document to each webhook
// registered for the task.
//
// A Sender keeps one queue per webhook config, so the events of a task reach
// each receiver in the order they happened, and one receiver's troubles never
// delay another's. Sending never blocks the caller: queues are bounded, and a
// notification that cannot be delivered (after retries with exponential
// backoff and jitter, or because its queue is full) is reported to a failure
// hook. Requests carry
//
//	Content-Type: application/a2a+json
//	Authorization: <scheme> <credentials>      from the config's authentication
//	X-A2A-Notification-Token: <token>          and, for receivers built on the
//	A2A-Notification-Token: <token>            official Go SDK, the same token
//
// Addresses are checked when they are dialled, after name resolution, and
// loopback, private, link-local, unspecified and multicast addresses are
// refused unless AllowPrivateNetworks is set; redirects are not followed.
package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
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

// maxResponseBytes is how much of a receiver's answer is read (and thrown
// away) so that the connection can be reused.
const maxResponseBytes = 64 << 10

// Errors reported in Failure.Err besides transport errors and ErrBlockedAddress.
var (
	// ErrQueueFull: the config's queue was full; the notification was dropped.
	ErrQueueFull = errors.New("push: delivery queue full")
	// ErrClosed: the sender was closed before the notification was delivered.
	ErrClosed = errors.New("push: sender closed")
)

// StatusError is a receiver's non-2xx answer.
type StatusError struct {
	StatusCode int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("push: webhook answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Notification is one event for one webhook config.
type Notification struct {
	Tenant string
	// Config is the webhook: TaskId, Id, Url, Token, Authentication. It is
	// read, never modified.
	Config *a2av1.TaskPushNotificationConfig
	// Event is the StreamResponse to POST (task, statusUpdate or
	// artifactUpdate). It is read, never modified.
	Event *a2av1.StreamResponse
}

// Failure describes a notification that was given up.
type Failure struct {
	Notification
	// Attempts is how many requests were made (0 when it was dropped).
	Attempts int
	// Err is the last error: a *StatusError, a transport error (possibly
	// wrapping ErrBlockedAddress), ErrQueueFull or ErrClosed.
	Err error
}

// Sender delivers notifications. It is safe for concurrent use. Close it to
// stop its goroutines (it starts one per webhook with queued notifications,
// which ends when the queue is empty).
type Sender struct {
	cfg       config
	client    *http.Client
	transport *http.Transport
	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error

	ctx    context.Context // canceled by Close: in-flight attempts stop
	cancel context.CancelFunc

	mu     sync.Mutex
	queues map[queueKey]*queue
	closed bool
	wg     sync.WaitGroup
}

type queueKey struct{ tenant, taskID, configID string }

// queue holds the notifications waiting for one config; at most one worker
// drains it, which gives per-config ordering.
type queue struct {
	key    queueKey
	items  []Notification
	ctx    context.Context // canceled by Forget
	cancel context.CancelFunc
}

// NewSender returns a sender configured by opts.
func NewSender(opts ...Option) *Sender {
	cfg := newConfig(opts)
	tr := &http.Transport{
		Proxy:                 nil, // the guard checks the address dialled, which must be the receiver's
		DialContext:           newDialer(!cfg.allowPrivate).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   defaultDialTimeout,
		ExpectContinueTimeout: time.Second,
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Sender{
		cfg:       cfg,
		transport: tr,
		client: &http.Client{
			Transport: tr,
			// A redirect would move the request (and its token) to an address
			// the client chose after the URL was checked; a 3xx is a failure.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		sleep:  sleepContext,
		ctx:    ctx,
		cancel: cancel,
		queues: make(map[queueKey]*queue),
	}
}

// Send queues n for delivery and returns at once. Notifications for the same
// config are delivered one at a time, in the order they were sent.
func (s *Sender) Send(n Notification) {
	key := queueKey{n.Tenant, n.Config.GetTaskId(), n.Config.GetId()}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.fail(Failure{Notification: n, Err: ErrClosed})
		return
	}
	q := s.queues[key]
	if q != nil && len(q.items) >= s.cfg.queueLimit {
		s.mu.Unlock()
		s.fail(Failure{Notification: n, Err: ErrQueueFull})
		return
	}
	if q == nil {
		q = &queue{key: key}
		q.ctx, q.cancel = context.WithCancel(s.ctx)
		s.queues[key] = q
		s.wg.Add(1)
		go s.drain(q)
	}
	q.items = append(q.items, n)
	s.mu.Unlock()
}

// Forget drops the queued notifications of a config and stops its delivery
// in progress; the server calls it when the config is deleted.
func (s *Sender) Forget(tenant, taskID, configID string) {
	key := queueKey{tenant, taskID, configID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queues[key]; q != nil {
		q.items = nil
		q.cancel()
		delete(s.queues, key)
	}
}

// Close stops accepting notifications, lets the queued ones be delivered
// until ctx is done, then cancels what is left (reported as ErrClosed when
// not yet attempted) and waits for the sender's goroutines to end.
func (s *Sender) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.cancel()
		<-done
	}
	s.cancel()
	s.transport.CloseIdleConnections()
	return err
}

// drain delivers q's notifications until the queue is empty.
func (s *Sender) drain(q *queue) {
	defer s.wg.Done()
	defer q.cancel()
	for {
		s.mu.Lock()
		if len(q.items) == 0 || q.ctx.Err() != nil {
			if s.queues[q.key] == q {
				delete(s.queues, q.key)
			}
			rest := q.items
			q.items = nil
			s.mu.Unlock()
			for _, n := range rest {
				s.fail(Failure{Notification: n, Err: ErrClosed})
			}
			return
		}
		n := q.items[0]
		q.items[0] = Notification{}
		q.items = q.items[1:]
		s.mu.Unlock()
		s.deliver(q.ctx, n)
	}
}

// deliver makes up to maxAttempts attempts to deliver n.
func (s *Sender) deliver(ctx context.Context, n Notification) {
	body, err := runtime.MarshalJSON(n.Event)
	if err != nil {
		s.fail(Failure{Notification: n, Err: fmt.Errorf("push: encoding the event: %w", err)})
		return
	}
	for attempt := 1; ; attempt++ {
		err := s.attempt(ctx, n.Config, body)
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			if s.ctx.Err() != nil { // Close, not Forget: report it
				s.fail(Failure{Notification: n, Attempts: attempt, Err: ErrClosed})
			}
			return
		}
		if attempt >= s.cfg.maxAttempts || !retryable(err) {
			s.fail(Failure{Notification: n, Attempts: attempt, Err: err})
			return
		}
		if s.sleep(ctx, s.backoff(attempt)) != nil {
			if s.ctx.Err() != nil {
				s.fail(Failure{Notification: n, Attempts: attempt, Err: ErrClosed})
			}
			return
		}
	}
}

// attempt makes one request.
func (s *Sender) attempt(ctx context.Context, cfg *a2av1.TaskPushNotificationConfig, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.GetUrl(), bytes.NewReader(body))
	if err != nil {
		return &permanentError{fmt.Errorf("push: webhook url %q: %w", cfg.GetUrl(), err)}
	}
	req.Header.Set("Content-Type", ContentType)
	if auth := cfg.GetAuthentication(); auth.GetScheme() != "" && auth.GetCredentials() != "" {
		req.Header.Set("Authorization", auth.GetScheme()+" "+auth.GetCredentials())
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

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fail reports a given-up notification to the log and the hook.
func (s *Sender) fail(f Failure) {
	s.cfg.logger.LogAttrs(context.Background(), slog.LevelWarn, "a2a: push notification not delivered",
		slog.String("tenant", f.Tenant), slog.String("taskId", f.Config.GetTaskId()),
		slog.String("configId", f.Config.GetId()), slog.String("url", redactURL(f.Config.GetUrl())),
		slog.Int("attempts", f.Attempts), slog.Any("error", f.Err))
	if s.cfg.onFailure != nil {
		s.cfg.onFailure(f)
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
