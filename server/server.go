package server

import (
	"time"

	"context"
	"errors"
	"fmt"
	"log/slog"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
)

// Causes of a canceled execution context (context.Cause inside Execute).
var (
	// ErrCanceled: a client canceled the task.
	ErrCanceled = errors.New("server: task canceled by a client")
	// ErrShutdown: the server is shutting down (Shutdown), and the
	// execution did not finish within the grace period its host gave it
	// (Drain). The executor still has a moment to record how far it got
	// (events written after the cancel are kept) and must then return.
	ErrShutdown = errors.New("server: shutting down")
)

// Server is the default a2av1.A2AServiceHandler: the eleven A2A 1.0
// operations and the 1.1 draft's SendLiveMessage over an Executor and a
// store.Store. Serve it with any binding, e.g.
// a2av1.NewA2AServiceJSONRPCHandler(srv). It is safe for concurrent use.
//
// It is a facade: each operation checks its request (edge.go, budget.go),
// learns its caller (call.go) and hands the work to one of three parts —
// the executions (executions.go, run.go, followups.go, signals.go,
// recovery.go), the task writer (taskwriter.go, creation.go, batch.go,
// changes.go) and the follower (follow.go, relay.go).
type Server struct {
	card *a2av1.AgentCard
	exec Executor

	store    store.Store
	push     *push.Sender // nil when the card does not declare push notifications
	ownPush  bool
	pushOpts []push.Option // for the sender the server creates itself
	owner    func(*runtime.Identity) string
	extended func(context.Context, *runtime.Identity) (*a2av1.AgentCard, error)
	logger   *slog.Logger

	maxPushConfigs int // pushconfig.go: per task; 0 means no limit
	// limits.go; 0 means no limit.
	maxFollowUps, maxHistory int
	// budget.go; 0 means no limit.
	maxParts                      int
	maxMessageBytes, maxTaskBytes int64

	streaming, pushEnabled, extendedEnabled bool
	// returnImmediately: SendMessage returns as soon as the task exists
	// whatever the request says (WithReturnImmediatelyByDefault).
	returnImmediately bool
	// idemWindow: how long a send's idempotency key is kept (0: sends are
	// not deduplicated); clock: the time claims are made at.
	idemWindow time.Duration
	clock      func() time.Time

	execs     executions   // the runs of this server's tasks
	writer    taskWriter   // every write of a task
	followers follower     // subscriptions, waiting calls, streams
	listings  listingSlots // ListTasks calls in progress, per owner
}

var _ a2av1.A2AServiceHandler = (*Server)(nil)

// taskKey identifies a task across tenants.
type taskKey struct{ tenant, id string }

// New returns a server for the agent described by card, whose work exec
// does. The card's capabilities switch operations on: streaming
// (SendStreamingMessage, SubscribeToTask), pushNotifications (the push config
// operations, inline configs and webhook delivery) and extendedAgentCard; an
// absent or false capability answers UnsupportedOperation (push:
// PushNotificationNotSupported). The card is read once; it is not modified.
func New(card *a2av1.AgentCard, exec Executor, opts ...Option) (*Server, error) {
	if card == nil {
		return nil, errors.New("server: New needs the agent card (for its capabilities)")
	}
	if exec == nil {
		return nil, errors.New("server: New needs an Executor")
	}
	s := &Server{
		card:            card,
		exec:            exec,
		logger:          slog.Default(),
		maxPushConfigs:  DefaultMaxPushConfigsPerTask,
		maxFollowUps:    DefaultMaxFollowUpsPerTask,
		maxHistory:      DefaultMaxHistoryPerTask,
		maxParts:        DefaultMaxPartsPerMessage,
		maxMessageBytes: DefaultMaxMessageBytes,
		maxTaskBytes:    DefaultMaxTaskBytes,
		writer:          taskWriter{runLease: DefaultRunLease, batchWindow: DefaultBatchWindow},
		followers: follower{
			maxStreams:         DefaultMaxStreams,
			maxCallerStreams:   DefaultMaxStreamsPerCaller,
			maxAnonStreams:     DefaultMaxAnonymousStreams,
			maxSubscriberBytes: DefaultMaxSubscriberBytes,
			ending:             make(chan struct{}),
		},
		listings:   listingSlots{max: DefaultMaxListingsPerOwner},
		idemWindow: DefaultIdempotencyWindow,
		clock:      time.Now,
	}
	s.execs.init()
	for _, o := range opts {
		o(s)
	}
	if s.store == nil {
		s.store = store.NewMemory()
	}
	s.writer.store, s.followers.store = s.store, s.store
	s.execs.server, s.execs.exec, s.execs.store, s.execs.writer, s.execs.logger = s, exec, s.store, &s.writer, s.logger
	s.followers.owned = s.owner != nil
	caps := card.GetCapabilities()
	s.streaming = caps.GetStreaming()
	s.pushEnabled = caps.GetPushNotifications()
	s.extendedEnabled = caps.GetExtendedAgentCard()
	if !s.pushEnabled {
		s.push = nil
	} else if s.push == nil {
		opts := append([]push.Option{push.WithLogger(s.logger)}, s.pushOpts...)
		s.push, s.ownPush = push.NewSender(opts...), true
	}
	if s.push != nil {
		if err := s.push.Start(s.store); err != nil {
			return nil, fmt.Errorf("server: starting webhook delivery: %w", err)
		}
	}
	s.writer.runner = store.NewRunnerID()
	s.execs.listenSignals()
	s.execs.bg.Add(1)
	go s.execs.maintain()
	return s, nil
}

// Drain begins a graceful shutdown: messages that would start an
// execution are refused from now on (follow-ups still reach executions
// that run), while the running executions go on. It waits until all of
// them have returned or ctx is done, and reports the second case as an
// error naming how many still run. Streams and calls stay open; Shutdown,
// called next, ends them. A host that gives its executions a grace period
// calls Drain with a context that ends with it.
func (s *Server) Drain(ctx context.Context) error {
	s.execs.stopAccepting()
	if !s.execs.waitIdle(ctx) {
		return fmt.Errorf("server: %s still running at the end of the drain: %w", executionCount(s.Executions()), ctx.Err())
	}
	return nil
}

// Shutdown stops accepting messages, cancels running executions (their
// context's cause is ErrShutdown) and waits for them to return; then it ends
// every open stream — with the task's latest state when that ends the
// stream (a terminal state, INPUT_REQUIRED), else with an error event saying
// the agent is shutting down and the task goes on (so that the client can
// subscribe elsewhere) — and lets blocking SendMessage calls return the task
// as it is; then it lets the webhook deliveries in flight finish. All of
// that until ctx is done: executions still running then are reported as an
// error, the streams are ended anyway, and deliveries not made stay in the
// store's outbox. Call Drain first to let executions finish by themselves.
// The store is the caller's to close after Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.execs.stopAccepting()
	instances.Delete(s.writer.runner)
	s.execs.stopBase(ErrShutdown)
	var err error
	if !s.execs.waitIdle(ctx) {
		err = fmt.Errorf("server: %s still running at the shutdown deadline: %w", executionCount(s.Executions()), ctx.Err())
	}
	s.followers.endStreams(ctx)
	if err != nil {
		return err
	}
	s.execs.bg.Wait()
	if s.ownPush {
		return s.push.Close(ctx)
	}
	return nil
}

// Executions returns how many executions run in this server now.
func (s *Server) Executions() int { return s.execs.count() }

// Store returns the store the server keeps its tasks in (WithStore, or the
// in-memory one it made).
func (s *Server) Store() store.Store { return s.store }
