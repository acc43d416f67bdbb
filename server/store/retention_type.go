package store

import "time"

// Retention is how long and how many tasks a store keeps. The memory,
// SQLite and PostgreSQL stores all accept it (WithRetention of each
// package); the zero value keeps every task, and a field <= 0 sets no
// bound.
type Retention struct {
	// TerminalTaskTTL removes a task, with its push configs, once it has
	// been terminal for longer: from then on it is reported not found and
	// left out of listings. Tasks that have not ended are never removed.
	// Deliveries still pending for it are kept until they are done.
	TerminalTaskTTL time.Duration
	// MaxTerminalTasks keeps at most this many terminal tasks (over all
	// tenants), removing those that ended first among the tasks of the
	// owner (Record.Owner; anonymous callers together are one) holding the
	// most, so that one owner's flood removes only its own. The SQL stores
	// count owners again only once the leading owner's lead is used up, and
	// PostgreSQL enforces the bound within about a second.
	MaxTerminalTasks int
	// InterruptedTaskTTL removes a task, with its push configs, once it has
	// been INPUT_REQUIRED or AUTH_REQUIRED for longer, counted from its
	// status timestamp: from then on it is reported not found, left out of
	// listings and cannot be resumed. A task that leaves the state in time
	// is kept; its TTL starts again if it is interrupted again.
	InterruptedTaskTTL time.Duration
	// MaxTerminalTasksPerOwner and MaxInterruptedTasksPerOwner bound one
	// owner's terminal and interrupted (INPUT_REQUIRED, AUTH_REQUIRED)
	// tasks (Record.Owner, over all tenants; anonymous callers together are
	// one owner): over either, the owner's task that ended, or was
	// interrupted, first is removed. MaxBytesPerOwner bounds the bytes
	// (protobuf size, taken when the task ended or was interrupted) of both
	// together: over it, the owner's oldest terminal task is removed, or,
	// when it has none left, the one it left waiting longest ago; the task
	// that just ended or was interrupted is kept, however large. Running
	// tasks do not count (memory_owners.go; sqlite/owners.go,
	// postgres/owners.go). Every store keeps these bounds once the write
	// that went over returns; PostgreSQL replicas writing for one owner at
	// once may each leave it over by the writes under way until their own
	// enforcement runs.
	MaxTerminalTasksPerOwner, MaxInterruptedTasksPerOwner int
	MaxBytesPerOwner                                      int64
}

// WithRetention sets what the in-memory store keeps (Retention).
func WithRetention(r Retention) MemoryOption {
	return func(m *Memory) {
		m.ttl, m.maxTerminal, m.interruptedTTL = max(r.TerminalTaskTTL, 0), max(r.MaxTerminalTasks, 0), max(r.InterruptedTaskTTL, 0)
		m.maxTerminalPerOwner, m.maxWaitingPerOwner = max(r.MaxTerminalTasksPerOwner, 0), max(r.MaxInterruptedTasksPerOwner, 0)
		m.maxBytesPerOwner = max(r.MaxBytesPerOwner, 0)
	}
}
