package store

import "context"

// Signals reach the server instance that runs a task's execution from
// another instance sharing the store: a cancel must stop the execution, a
// follow-up message must reach it (Request.FollowUps). Instances in one
// process signal each other directly; a store shared by processes carries
// the signals between them by implementing Signaler. Signals are best
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

// Signaler is implemented by stores shared by several processes.
type Signaler interface {
	// SendSignal delivers s to the instance runner, wherever it runs.
	SendSignal(ctx context.Context, runner string, s Signal) error
	// ReceiveSignals returns the signals sent to runner until stop is
	// called or the store closes (then the channel is closed).
	ReceiveSignals(runner string) (signals <-chan Signal, stop func())
}
