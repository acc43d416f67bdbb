package store

// A task's generation (A2A 1.1, §3.2.7 "Task Generation Semantics") is 1
// when the task is created and grows by exactly 1 with every state-changing
// mutation, each of which is announced by exactly one event: a status or
// artifact update carries the generation the task has after it. So the
// stores count it themselves, from the events a write carries, and a
// server stamps the same numbers into the snapshots and events it builds:
// Record.Generation is what every store keeps (the SQL stores in a column
// of its own, which also answers for tasks written before generations
// existed), and what long-polls and precondition checks compare with.

// FirstGeneration is the generation a store records for a new task: the
// creation's, or 1 when it says none (a task created with its first
// changes folded in says 1 plus one per event of those changes).
func FirstGeneration(g int64) int64 {
	if g < 1 {
		return 1
	}
	return g
}

// NextGeneration is the generation after a write that carries events
// events to a task at generation g.
func NextGeneration(g int64, events int) int64 { return g + int64(events) }
