// Package store defines where the default A2A server keeps its state, and
// provides the in-memory implementation and the in-process event broker that
// durable stores build on.
//
// A Store is five parts, each with its own conformance suite in package
// storetest:
//
//   - Tasks: versioned task records. Every change is an optimistic write: the
//     writer computes a new snapshot from the version it read and the store
//     accepts it only if that version is still current, so concurrent writers
//     (the running agent, a cancel, a follow-up, another replica) never lose
//     each other's changes. The record also says which server instance runs
//     the task's execution and until when its lease holds (the execution
//     record), so that tasks orphaned by a crash can be found and settled.
//   - Subscriptions: the live feed. A write carries the stream events it
//     produced, and the store publishes them after the write is durable, in
//     write order, to every subscriber of the task. Subscribe returns a
//     snapshot and exactly the events written after it. Broker is the
//     in-process feed the memory and SQLite stores use; a store shared by
//     replicas publishes across processes instead.
//   - PushConfigs: the webhook configs of each task.
//   - Outbox: the pending push deliveries. The same write that stores a task
//     change queues one delivery per event and webhook config of the task,
//     atomically, so a crash can lose neither the change nor its
//     notifications. Deliveries are leased to a worker, retried with their
//     attempt count and due time kept in the store, and handed out in order
//     per webhook config.
//   - Processes: whether other processes share the store (replicas), and
//     the signals between them (signals.go).
//   - SendKeys: the claims of idempotency keys of message sends
//     (sendkeys.go).
//
// Every capability is a method of Store, so a wrapper that forwards Store
// forwards all of them (Wrap); there are no optional interfaces to find.
//
// Snapshots are shared, never copied: a *a2av1.Task handed to or returned by
// a store must not be modified by anyone. Build a new Task for every change.
package store

import (
	"context"
	"errors"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Errors a Store reports. Implementations return these values (possibly
// wrapped) so that callers can test them with errors.Is. Any other error is
// a failure of the storage itself (a database error), which the server
// answers with an Internal error.
var (
	// ErrNotFound: no task (or push config, or delivery) with that id in
	// that tenant.
	ErrNotFound = errors.New("store: not found")
	// ErrExists: CreateTask with an id the tenant already uses.
	ErrExists = errors.New("store: task already exists")
	// ErrConflict: UpdateTask computed from a version that is no longer
	// current. Re-read the task, re-apply the change, write again.
	ErrConflict = errors.New("store: version conflict")
	// ErrTerminal: UpdateTask on a task in a terminal state; a terminal task
	// never changes again.
	ErrTerminal = errors.New("store: task is in a terminal state")
	// ErrInvalidTransition: the new snapshot's state cannot follow the
	// current one (see ValidTransition), or the snapshot is malformed.
	ErrInvalidTransition = errors.New("store: invalid task state transition")
	// ErrSlowSubscriber ends a subscription whose reader fell so far behind
	// that its buffer filled up. The writer and the other subscribers are
	// never held up by a slow one; the dropped reader recovers by subscribing
	// again, which starts with a fresh snapshot.
	ErrSlowSubscriber = errors.New("store: subscriber fell behind and was dropped")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
)

// Record is a stored task with its bookkeeping.
type Record struct {
	// Tenant the task belongs to; tasks of different tenants never meet.
	Tenant string
	// Owner is the identity that may see the task (empty: anyone in the
	// tenant). The server sets it when owner scoping is enabled.
	Owner string
	// Version increases with every successful write; 1 after CreateTask.
	Version int64
	// Generation is the task's generation (A2A 1.1, §3.2.7): what the
	// creation said (Creation: 0 means 1), then one more for every event
	// each write carries, so that event-less writes (a follow-up joining
	// the history of a running task, an execution record) leave it alone.
	// See generation.go.
	Generation int64
	// Task is the immutable snapshot. Its Status.Timestamp orders listings.
	Task *a2av1.Task
	// Runner identifies the server instance (see NewRunnerID) whose
	// execution works on the task, "" when none does. Stores clear it when
	// the task becomes terminal.
	Runner string
	// LeaseUntil is when the runner's claim on the task ends unless it is
	// renewed (RenewRuns or another write by the runner).
	LeaseUntil time.Time
}

// Creation is a new task, written with what must exist from its first
// moment on.
type Creation struct {
	// Record is the new task (Version is ignored: the stored record has
	// version 1; Generation 0 stores 1, see FirstGeneration).
	Record
	// PushConfigs are stored together with the task (an inline config of
	// the message that started it). Their TaskId must be the task's id.
	PushConfigs []PushConfig
	// Events are queued in the outbox for every config in PushConfigs (they
	// are not published to subscribers: nobody can follow a task before it
	// exists); a config whose version wants the task (TaskPayload) gets
	// Record.Task instead. Their version is 1.
	Events []*a2av1.StreamResponse
	// Trace is kept with the deliveries the creation queues.
	Trace TraceContext
	// Subscriber, when not nil, subscribes the creator to the new task in
	// the same call, as a caller that follows the task's events needs:
	// CreateTask then returns the subscription too.
	Subscriber *Subscriber
}

// Subscriber asks CreateTask for a subscription to the task it creates.
// A store that can register the subscriber before it writes the creation
// saves reading the task back (a round trip to a database server); others
// subscribe after creating (SubscribeCreated).
type Subscriber struct {
	// Ctx ends the subscription when it is done: the creator's context,
	// not the write's.
	Ctx context.Context
	// Follow sets the subscriber's room, as for Subscribe.
	Follow Follow
}

// Update is one optimistic write of a task.
type Update struct {
	Tenant string
	// Task is the new snapshot; Task.Id names the task to replace.
	Task *a2av1.Task
	// Expect is the version the new snapshot was computed from.
	Expect int64
	// Events travel with the write, if and only if it succeeds: they are
	// published to the task's subscribers, in order, once the write is
	// durable, and queued in the outbox for every push config the task has
	// at the time of the write (a config whose version wants the task,
	// TaskPayload, gets Task once instead). Each carries the new version.
	// The task's generation grows by len(Events) (NextGeneration).
	Events []*a2av1.StreamResponse
	// Runner, when not empty, records that this runner executes the task
	// from now on, with its lease extended to LeaseUntil. Empty keeps the
	// stored runner and lease. A write that makes the task terminal clears
	// both.
	Runner     string
	LeaseUntil time.Time
	// Trace is kept with the deliveries the write queues, so that their
	// webhook requests continue the trace of the write.
	Trace TraceContext
}

// Event is one published stream event of a task.
type Event struct {
	// Version is the task version written together with the event. Events a
	// subscriber receives always have versions greater than the snapshot
	// Subscribe returned, in increasing (not necessarily consecutive) order;
	// several events of one write share its version.
	Version int64
	// Response is a statusUpdate or artifactUpdate (never to be modified).
	Response *a2av1.StreamResponse

	budget *Budget // the subscription's byte budget, released by Taken
	size   int64
}

// Subscription is a live feed of a task's events. Events is closed when the
// feed ends; Err then says why. After a terminal state has been published the
// feed ends with Err() == nil.
type Subscription interface {
	// Events returns the channel the events arrive on.
	Events() <-chan Event
	// Err reports why Events was closed: nil after a terminal state,
	// ErrSlowSubscriber, the context's error, or ErrClosed. It returns nil
	// while the subscription is live.
	Err() error
	// Close ends the subscription and releases it. It is idempotent.
	Close()
	// Written returns the snapshot (never to be modified) stored by the
	// write of the last events received, if that write was at version and
	// the store has it at hand (a write of this process, on a store that
	// keeps it); else nil, and the caller reads the task instead.
	Written(version int64) *a2av1.Task
}

// Cursor is a position in the listing order (Status.Timestamp descending,
// then task id descending). A page that starts after a cursor contains only
// tasks strictly after it in that order, so tasks created after the first
// page was read (whose timestamps are newer) never shift later pages: a walk
// through all pages sees every task that existed when it started exactly once,
// unless the task's status changed meanwhile (its timestamp then moves it
// to the front).
type Cursor struct {
	Time time.Time
	ID   string
}

// Query selects and pages tasks of one tenant.
type Query struct {
	// Owner must equal Record.Owner (the empty owner matches only tasks
	// without an owner).
	Owner string
	// ContextID, when set, keeps only tasks of that context.
	ContextID string
	// State, when not TASK_STATE_UNSPECIFIED, keeps only tasks in that state.
	State a2av1.TaskState
	// UpdatedAfter, when not zero, keeps tasks whose status timestamp is at
	// or after it (inclusive).
	UpdatedAfter time.Time
	// After, when not nil, starts the page after that position.
	After *Cursor
	// Limit is the page size; it must be positive.
	Limit int
}

// Page is the result of List.
type Page struct {
	// Records in listing order, at most Query.Limit.
	Records []Record
	// Total is the number of tasks matching the filters (ignoring After and
	// Limit).
	Total int
	// More reports whether tasks follow the last record.
	More bool
}

// Tasks keeps versioned task records and their execution records.
type Tasks interface {
	// CreateTask stores a new task with its push configs and queues its
	// events for them, atomically. ErrExists when the tenant already has the
	// id; ErrInvalidTransition for a malformed snapshot; ErrInvalidKey for a
	// tenant, id, context id, owner or push config id no store can hold
	// (CheckCreation).
	//
	// With c.Subscriber it also returns a subscription to the events
	// written after the returned record (the created one, unless a store
	// that subscribes after creating saw another write in between), by any
	// writer, exactly once and in order; without, the subscription is nil.
	// A failed creation returns no subscription. When the task was created
	// but the subscription could not be made (the subscriber's context
	// ended, the store is closing), the subscription returned has already
	// ended with that error: the task exists, and its creator must go on.
	CreateTask(ctx context.Context, c Creation) (Record, Subscription, error)
	// Task returns the current record. ErrNotFound.
	Task(ctx context.Context, tenant, id string) (Record, error)
	// UpdateTask replaces the task if u.Expect is its current version,
	// queues u.Events for the task's push configs and, once the write is
	// durable, publishes them to subscribers. It returns the new version.
	// Errors: ErrNotFound, ErrTerminal (the stored task is terminal),
	// ErrConflict, ErrInvalidTransition. When the new state is terminal,
	// every subscription ends (with Err() == nil) after receiving the events.
	UpdateTask(ctx context.Context, u Update) (int64, error)
	// ListTasks returns a page of the tenant's tasks in listing order.
	ListTasks(ctx context.Context, tenant string, q Query) (Page, error)
	// RenewRuns extends to until the lease of every task that runner
	// executes and that is not terminal.
	RenewRuns(ctx context.Context, runner string, until time.Time) error
	// StaleRuns returns up to limit tasks, of any tenant, that are
	// SUBMITTED or WORKING, have a runner other than self, and whose runner
	// has stopped: its lease ended before now, or it ran on this host in a
	// process that no longer exists (RunnerGone). The server settles them.
	StaleRuns(ctx context.Context, self string, now time.Time, limit int) ([]Record, error)
}

// Follow says what a subscriber follows of a task, which sets how far it
// may fall behind before it is dropped with ErrSlowSubscriber.
type Follow uint8

const (
	// FollowEvents: every event, as a stream relays them; the subscriber
	// has room for the store's lag (DefaultSubscriberBuffer unless the
	// store was configured otherwise).
	FollowEvents Follow = iota
	// FollowOutcome: only the task's outcome, by a caller that subscribes
	// again when dropped as slow, as a blocking SendMessage does. A store
	// may give such a subscriber room for only OutcomeSubscriberBuffer
	// events, so that each call does not allocate (and the GC scan) a
	// stream's buffer; one whose re-subscription is costly (a read from a
	// database server) may give it the stream's room instead.
	FollowOutcome
)

// OutcomeSubscriberBuffer is how many events a FollowOutcome subscriber may
// lag in the stores that keep its buffer small.
const OutcomeSubscriberBuffer = 8

// Subscriptions is the live feed of task events.
type Subscriptions interface {
	// Subscribe returns the current record and a subscription to the events
	// written after it, atomically: nothing is missed in between and nothing
	// already in the snapshot is repeated. A terminal task yields its record
	// and an already ended subscription. The subscription also ends when ctx
	// is done. f sets the subscriber's room (Follow). ErrNotFound.
	Subscribe(ctx context.Context, tenant, id string, f Follow) (Record, Subscription, error)
	// TaskEvents returns the events of the task's log (eventlog.go) whose
	// generations lie in (after, upTo], in generation order: those the log
	// still holds, so a caller that needs them all checks that the first
	// is at after+1 and that none is missing. ErrNotFound when the task
	// does not exist.
	TaskEvents(ctx context.Context, tenant, id string, after, upTo int64) ([]LoggedEvent, error)
}

// PushConfigs keeps the webhook configs of tasks.
type PushConfigs interface {
	// SavePushConfig stores cfg with its protocol version (cfg.TaskId and
	// cfg.Id must be set), replacing a config with the same id; deliveries
	// of that config still pending go to the new config's webhook, in the
	// form they were queued in (their Delivery.ProtocolVersion). The task
	// must exist (ErrNotFound); an id no store can hold is ErrInvalidKey
	// (CheckPushConfig).
	SavePushConfig(ctx context.Context, tenant string, cfg PushConfig) error
	// PushConfig returns one config with its protocol version. ErrNotFound.
	PushConfig(ctx context.Context, tenant, taskID, id string) (PushConfig, error)
	// ListPushConfigs returns the task's configs ordered by id, those with an
	// id greater than after, at most limit (limit <= 0: all), and whether
	// more follow.
	ListPushConfigs(ctx context.Context, tenant, taskID, after string, limit int) ([]PushConfig, bool, error)
	// DeletePushConfig removes a config: later writes queue nothing for it.
	// Deliveries already queued (events written while it existed) are still
	// made. Removing a missing config succeeds.
	DeletePushConfig(ctx context.Context, tenant, taskID, id string) error
}

// Delivery is one event to post to one webhook.
type Delivery struct {
	// ID identifies the delivery; it is stable across attempts, restarts
	// and replicas (see DeliveryID), so receivers can deduplicate on it.
	ID string
	// Tenant of the task.
	Tenant string
	// Config is the webhook (as currently stored).
	Config *a2av1.TaskPushNotificationConfig
	// Event is the StreamResponse to post: an event of the task, or for a
	// config whose version wants the task (TaskPayload) the task as written.
	Event *a2av1.StreamResponse
	// ProtocolVersion is the config's protocol version when the delivery
	// was queued (PushConfig.ProtocolVersion): the form Event is posted in.
	// Replacing the config later does not change it.
	ProtocolVersion string
	// Attempts is how many attempts failed before this claim.
	Attempts int
	// Trace is the trace context of the write that queued the delivery.
	Trace TraceContext
}

// Claim asks the outbox for due deliveries.
type Claim struct {
	// Worker names the claimant (a runner id); the deliveries are leased to
	// it until Now+Lease.
	Worker string
	Now    time.Time
	Lease  time.Duration
	// Max is the most deliveries returned (at least 1).
	Max int
}

// Outbox keeps the push deliveries that are not done yet.
type Outbox interface {
	// ClaimDeliveries leases up to c.Max deliveries that are due (their
	// retry time has come) and not leased to anyone (or whose lease ended).
	// Only the oldest pending delivery of each webhook config can be
	// claimed, so each config receives its events one at a time, in the
	// order they were written.
	ClaimDeliveries(ctx context.Context, c Claim) ([]Delivery, error)
	// FinishDelivery removes a delivery that succeeded or was given up;
	// removing a missing one succeeds.
	FinishDelivery(ctx context.Context, id string) error
	// RetryDelivery records a failed attempt (attempts: the total made so
	// far) and releases the lease: the delivery is due again at at.
	// ErrNotFound when it is gone.
	RetryDelivery(ctx context.Context, id string, attempts int, at time.Time) error
	// NextDelivery reports when the next pending delivery is due (its
	// retry time or, for a leased one, its lease end), or false when the
	// outbox is empty.
	NextDelivery(ctx context.Context) (time.Time, bool, error)
	// DeliveriesQueued is signalled (never blocking the writer) after a
	// write queued deliveries, so that a dispatcher in this process starts
	// at once instead of at its next poll. A store shared by several
	// processes may also signal for writes made elsewhere.
	DeliveriesQueued() <-chan struct{}
}

// Store is everything the default server keeps. Implementations are safe
// for concurrent use and pass storetest.Run. A wrapper (metrics, retries,
// faults) forwards every method, most simply through Wrap.
type Store interface {
	Tasks
	Subscriptions
	PushConfigs
	Outbox
	Processes
	SendKeys
	// Ping returns nil when the store can serve requests now, else why not
	// (ErrClosed after Close). A database store checks that its database
	// answers, with ctx's deadline; health checks (host's /readyz) call it.
	Ping(ctx context.Context) error
	// Close releases the store: live subscriptions end with ErrClosed, and
	// later calls fail with ErrClosed. It is idempotent.
	Close() error
}
