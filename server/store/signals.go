package store

import "context"

// Signals reach the server instance that runs a task's execution from
// another instance sharing the store: a cancel must stop the execution, a
// follow-up message must reach it (Request.FollowUps). Instances in one
// process signal each other directly; a store shared by processes carries
// the signals between them (Processes, with Shared true). Signals are best
// effort: the task write that precedes each one is what counts (a canceled
// task is CANCELED whether or not its execution heard of it; a follow-up is
// in the history), and a lost signal only delays the execution's reaction.

// SignalKind says what a signal asks for.
type SignalKind int

const (
	// SignalCancel: the task was canceled; stop its execution.
	SignalCancel SignalKind = iota + 1
	// SignalFollowUp: a message (MessageID, already in the task's history)
	// was sent to the task; hand it to the execution, or start a new turn
	// for it if the task waits for input and no execution runs.
	SignalFollowUp
)

// Signal is one request to the instance running a task.
type Signal struct {
	Kind      SignalKind
	Tenant    string
	TaskID    string
	MessageID string // SignalFollowUp
}

// Processes is the part of a Store that says whether other processes share
// it and carries signals between them.
type Processes interface {
	// Shared reports whether other processes (replicas) may run tasks of
	// this store. The server then signals them through the store and
	// reconciles its executions with the stored tasks on every lease
	// renewal, to make up for lost signals; for a store only this process
	// uses, it does neither.
	Shared() bool
	// SendSignal delivers s to the instance runner, wherever it runs. The
	// server calls it only when Shared; a store that is not shared returns
	// nil.
	SendSignal(ctx context.Context, runner string, s Signal) error
	// ReceiveSignals returns the signals other processes send to runner,
	// until stop is called or the store closes (then the channel is
	// closed). A store that is not shared returns a nil channel (never
	// ready) and a stop that does nothing.
	ReceiveSignals(runner string) (signals <-chan Signal, stop func())
}

// Unshared implements Processes for a store that only one process uses
// (the memory and SQLite stores embed it): Shared is false and there is no
// one to signal.
type Unshared struct{}

// Shared reports false.
func (Unshared) Shared() bool { return false }

// SendSignal does nothing: no other process uses the store.
func (Unshared) SendSignal(context.Context, string, Signal) error { return nil }

// ReceiveSignals returns a nil channel: no other process sends any.
func (Unshared) ReceiveSignals(string) (<-chan Signal, func()) { return nil, func() {} }
