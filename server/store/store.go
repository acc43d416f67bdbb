// Package store defines where the default A2A server keeps tasks, their event
// streams and their push-notification configs, and provides the in-memory
// implementation.
//
// A Store holds immutable task snapshots. Every change is an optimistic write:
// the writer computes a new snapshot from the version it read and the store
// accepts it only if that version is still current, so concurrent writers
// (the running agent, a cancel request, a follow-up message, another server
// replica) never lose each other's changes. A write may carry the stream
// events it produced; the store delivers them, in write order, to every
// subscriber of the task. Because events travel through the store, a store
// shared by several server replicas (SQL, Redis, …) lets a client subscribed
// on one replica follow a task that runs on another.
//
// Snapshots are shared, never copied: a *a2av1.Task handed to or returned by a
// store must not be modified by anyone. Build a new Task for every change.
//
// Every implementation must pass the conformance suite in package storetest.
package store

import (
	"context"
	"errors"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Errors a Store reports. Implementations return these values (possibly
// wrapped) so that callers can test them with errors.Is.
var (
	// ErrNotFound: no task (or push config) with that id in that tenant.
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
	// Task is the immutable snapshot. Its Status.Timestamp orders listings.
	Task *a2av1.Task
}

// Update is one optimistic write of a task.
type Update struct {
	Tenant string
	// Task is the new snapshot; Task.Id names the task to replace.
	Task *a2av1.Task
	// Expect is the version the new snapshot was computed from.
	Expect int64
	// Events are published to the task's subscribers, in order, if and only
	// if the write succeeds. Each carries the new version.
	Events []*a2av1.StreamResponse
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

// Store keeps tasks, their event feeds and their push-notification configs.
// Implementations are safe for concurrent use.
type Store interface {
	// CreateTask stores a new task (rec.Version is ignored; the stored
	// record has version 1). ErrExists when the tenant already has the id.
	CreateTask(ctx context.Context, rec Record) (Record, error)
	// Task returns the current record. ErrNotFound.
	Task(ctx context.Context, tenant, id string) (Record, error)
	// UpdateTask replaces the task if u.Expect is its current version and
	// publishes u.Events. It returns the new version. Errors: ErrNotFound,
	// ErrTerminal (the stored task is terminal), ErrConflict,
	// ErrInvalidTransition. When the new state is terminal, every
	// subscription ends (with Err() == nil) after receiving the events.
	UpdateTask(ctx context.Context, u Update) (int64, error)
	// ListTasks returns a page of the tenant's tasks in listing order.
	ListTasks(ctx context.Context, tenant string, q Query) (Page, error)
	// Subscribe returns the current record and a subscription to the events
	// written after it, atomically: nothing is missed in between. A terminal
	// task yields its record and an already ended subscription. The
	// subscription also ends when ctx is done. ErrNotFound.
	Subscribe(ctx context.Context, tenant, id string) (Record, Subscription, error)

	// SavePushConfig stores cfg (cfg.TaskId and cfg.Id must be set),
	// replacing a config with the same id. The task must exist (ErrNotFound).
	SavePushConfig(ctx context.Context, tenant string, cfg *a2av1.TaskPushNotificationConfig) error
	// PushConfig returns one config. ErrNotFound.
	PushConfig(ctx context.Context, tenant, taskID, id string) (*a2av1.TaskPushNotificationConfig, error)
	// ListPushConfigs returns the task's configs ordered by id, those with an
	// id greater than after, at most limit (limit <= 0: all), and whether
	// more follow.
	ListPushConfigs(ctx context.Context, tenant, taskID, after string, limit int) ([]*a2av1.TaskPushNotificationConfig, bool, error)
	// DeletePushConfig removes a config; removing a missing one succeeds.
	DeletePushConfig(ctx context.Context, tenant, taskID, id string) error
}
