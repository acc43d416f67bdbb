package store

import "sync"

// memEndedLogs is the entries of the last MemoryEndedTaskLogs tasks to end,
// in a ring: the task that ends pushes out the one that ended
// MemoryEndedTaskLogs tasks before it, whose event log is then dropped
// (eventlog.go).
type memEndedLogs struct {
	mu   sync.Mutex
	ring [MemoryEndedTaskLogs]*memEntry
	next int
}

// push records that e's task ended and returns the entry whose log is to
// be dropped (nil while the ring fills).
func (r *memEndedLogs) push(e *memEntry) (out *memEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out, r.ring[r.next] = r.ring[r.next], e
	r.next = (r.next + 1) % len(r.ring)
	return out
}

// dropLog drops e's event log (nil: nothing to drop).
func (e *memEntry) dropLog() {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.log = nil
	e.mu.Unlock()
}
