package server

import (
	"context"
	"log/slog"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
)

// Option configures New.
type Option func(*Server)

// WithStore sets where tasks, their events, push configs and pending
// webhook deliveries are kept; the default is store.NewMemory(). The server
// does not close the store: its owner does, after Shutdown.
func WithStore(st store.Store) Option {
	return func(s *Server) {
		if st != nil {
			s.store = st
		}
	}
}

// WithPushSender sets the webhook sender used when the card declares
// capabilities.pushNotifications. The default is push.NewSender() (SSRF guard
// on), closed by Shutdown; a sender given here belongs to the caller, who
// closes it after Shutdown.
func WithPushSender(p *push.Sender) Option {
	return func(s *Server) {
		if p != nil {
			s.push, s.ownPush = p, false
		}
	}
}

// WithPushOptions configures the webhook sender the server creates (and
// closes in Shutdown) when none is given with WithPushSender — for example
// push.AllowPrivateNetworks() for webhooks on a private network or loopback.
// It has no effect together with WithPushSender.
func WithPushOptions(opts ...push.Option) Option {
	return func(s *Server) { s.pushOpts = append(s.pushOpts, opts...) }
}

// WithTaskOwner scopes tasks to their owners: owner(caller) — caller is the
// identity the binding attached, nil for an anonymous caller — is recorded
// when a task is created, and a task is visible (Get, List, Cancel, Subscribe,
// follow-up messages, push configs) only to callers with the same owner;
// others get TaskNotFound, as if it did not exist. OwnerByCallerID is the
// usual choice. Without it every caller of a tenant sees all its tasks.
//
// The empty owner (OwnerByCallerID gives it to anonymous callers) is no
// owner: a task created with it is reachable by anyone who presents its id
// (task ids are random UUIDv7s, 74 random bits), but ListTasks shows such
// tasks only to a request that names their contextId, and an ownerless
// caller that names none gets an empty page. So anonymous callers never
// see each other's tasks, yet one that created tasks can find them again
// by the ids it was given; authenticated callers see only their own.
func WithTaskOwner(owner func(caller *runtime.Identity) string) Option {
	return func(s *Server) { s.owner = owner }
}

// WithExtendedCard sets the extended agent card served to authenticated
// callers when the public card declares capabilities.extendedAgentCard.
func WithExtendedCard(card *a2av1.AgentCard) Option {
	return func(s *Server) {
		if card != nil {
			s.extended = func(context.Context, *runtime.Identity) (*a2av1.AgentCard, error) { return card, nil }
		}
	}
}

// WithExtendedCardFunc is WithExtendedCard for cards that depend on the
// caller (never nil: anonymous callers are refused first). Returning a nil card answers ExtendedAgentCardNotConfigured.
func WithExtendedCardFunc(f func(ctx context.Context, caller *runtime.Identity) (*a2av1.AgentCard, error)) Option {
	return func(s *Server) { s.extended = f }
}

// WithReturnImmediatelyByDefault makes SendMessage return as soon as the task
// exists, as if every request set configuration.returnImmediately, for
// deployments whose clients expect the non-blocking behaviour. The spec's
// default, kept without this option, is to wait until the task is terminal or
// interrupted. returnImmediately is a plain proto3 bool, so a request cannot
// ask to block on such a server: callers that need the outcome use
// SendStreamingMessage, SubscribeToTask or GetTask (docs/bindings.md).
// Streaming calls are not affected.
func WithReturnImmediatelyByDefault() Option {
	return func(s *Server) { s.returnImmediately = true }
}

// WithIdempotencyWindow sets how long the idempotency key of a send (the
// Idempotency-Key service parameter, else its messageId) is kept: a send
// retried with the key by the same caller within d answers with the task
// the first send created or added its message to (DefaultIdempotencyWindow;
// d <= 0: sends are not deduplicated). Replicas sharing a store share the
// keys. See docs/bindings.md, "Idempotent sends".
func WithIdempotencyWindow(d time.Duration) Option {
	return func(s *Server) { s.idemWindow = max(d, 0) }
}

// WithLogger sets the logger for executor failures and other errors clients
// do not see in detail (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.logger = l
		}
	}
}

// DefaultRunLease is how long the execution record of a running task holds
// without renewal; see WithRunLease.
const DefaultRunLease = 30 * time.Second

// DefaultMaxPushConfigsPerTask is how many push notification configs one
// task may have unless WithMaxPushConfigsPerTask says otherwise. Every event
// of a task is posted to each of its configs, so the bound is what keeps one
// follow-up from turning into thousands of webhook requests.
const DefaultMaxPushConfigsPerTask = 16

// WithMaxPushConfigsPerTask bounds the push notification configs of one
// task (DefaultMaxPushConfigsPerTask; n < 0: no limit). A config beyond it
// — by CreateTaskPushNotificationConfig or inline in SendMessage — is
// refused with InvalidRequest naming MaxPushConfigsPerTask; replacing a
// config under its id is always allowed. Replicas sharing a store check it
// each on their own, so at most one config more per racing replica can
// slip in.
func WithMaxPushConfigsPerTask(n int) Option {
	return func(s *Server) {
		switch {
		case n < 0:
			s.maxPushConfigs = 0
		case n > 0:
			s.maxPushConfigs = n
		}
	}
}

// WithRunLease sets how long this server's claim on the tasks it executes
// holds without renewal (d < 1s keeps DefaultRunLease). The server renews
// its claims every third of d; another server instance sharing the store
// (or this one after a restart) settles the tasks of an instance whose
// claims ran out, or whose process on the same host is gone, as FAILED. A
// shorter lease notices a dead replica sooner and costs more renewals.
func WithRunLease(d time.Duration) Option {
	return func(s *Server) {
		if d >= time.Second {
			s.writer.runLease = d
		}
	}
}
