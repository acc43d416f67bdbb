package store

import "time"

// Retention of terminal tasks in the in-memory store (Retention.TerminalTaskTTL,
// Retention.MaxTerminalTasks). Tasks are queued in the order they end; removal
// happens when a task ends or is created (amortised O(1) per write), and in
// between, reads treat a task past its TTL as already gone, so the TTL holds
// exactly even when the store sees no writes.

// endedTask is a terminal task waiting for its removal (or, in an owner's
// queue of interrupted tasks, an interrupted one: seq is then the entry's
// waitSeq when it was queued).
type endedTask struct {
	tenant, id string
	e          *memEntry
	seq        uint32
}

// endedQueue holds terminal tasks in the order they ended.
type endedQueue struct {
	items []endedTask
	head  int // items[:head] are gone
}

func (q *endedQueue) len() int { return len(q.items) - q.head }

func (q *endedQueue) push(t endedTask) { q.items = append(q.items, t) }

func (q *endedQueue) front() endedTask { return q.items[q.head] }

func (q *endedQueue) pop() {
	q.items[q.head] = endedTask{}
	q.head++
	// Reuse the front of the slice once half of it is gone, so that the
	// queue's memory follows its length.
	if q.head > 64 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
}

func (q *endedQueue) compact(keep func(endedTask) bool) {
	live := q.items[:0]
	for _, t := range q.items[q.head:] {
		if keep(t) {
			live = append(live, t)
		}
	}
	clear(q.items[len(live):])
	q.items, q.head = live, 0
}

// retains reports whether the store bounds its terminal tasks.
func (m *Memory) retains() bool { return m.ttl > 0 || m.tracksOwners() }

// endedLocked records that the task of e has become terminal and removes
// the terminal tasks the retention options no longer allow: those past the
// TTL, and over the caps on their number (per owner, memory_owners.go).
// Called with m.mu held.
func (m *Memory) endedLocked(tenant, id string, e *memEntry) {
	if !m.retains() {
		return
	}
	e.endedAt = m.now()
	if m.ttl > 0 {
		m.ended.push(endedTask{tenant: tenant, id: id, e: e})
	}
	m.sweepLocked()
	if m.tracksOwners() {
		m.countEndedLocked(tenant, id, e)
	}
}

// sweepLocked removes terminal tasks that have outlived the TTL, oldest
// first. Tasks end in queue order, so the expired ones are always at the
// front; tasks removed otherwise (over a cap) are skipped. Called with m.mu
// held.
func (m *Memory) sweepLocked() {
	if m.ended.len() == 0 {
		return
	}
	now := m.now()
	for m.ended.len() > 0 {
		f := m.ended.front()
		if !f.e.gone && !m.expiredAt(f.e, now) {
			return
		}
		m.ended.pop()
		m.removeLocked(f.tenant, f.id, f.e)
	}
}

// sweepDueLocked reports whether sweepLocked or sweepInterruptedLocked
// would remove (or drop from its heap) anything now. Called with m.mu held
// (read or write).
func (m *Memory) sweepDueLocked() bool {
	now := m.now()
	if m.ended.len() > 0 && (m.ended.front().e.gone || m.expiredAt(m.ended.front().e, now)) {
		return true
	}
	return len(m.waiting) > 0 && now.Sub(m.waiting[0].since) > m.interruptedTTL
}

// expiredLocked reports whether the task of e has outlived the TTL. Called
// with m.mu held (read or write).
func (m *Memory) expiredLocked(e *memEntry) bool {
	if m.ttl > 0 && !e.endedAt.IsZero() && m.expiredAt(e, m.now()) {
		return true
	}
	return m.interruptedTTL > 0 && m.interruptedExpiredAt(e.rec.Load(), m.now())
}

func (m *Memory) expiredAt(e *memEntry, now time.Time) bool {
	return m.ttl > 0 && now.Sub(e.endedAt) > m.ttl
}

// removeLocked deletes the task of e and its push configs, unless the id
// has meanwhile been taken by another entry. Called with m.mu held.
func (m *Memory) removeLocked(tenant, id string, e *memEntry) {
	t := m.tenants[tenant]
	if t == nil || t.tasks[id] != e {
		return
	}
	delete(t.tasks, id)
	t.unindexLocked(e)
	e.gone = true
	m.uncountEndedLocked(e)
	m.uncountWaitingLocked(e)
	if m.ended.len() > 2*m.nEnded+64 && m.ttl > 0 && m.tracksOwners() {
		m.ended.compact(func(t endedTask) bool { return !t.e.gone })
	}
	m.pmu.Lock()
	delete(t.configs, id)
	empty := len(t.tasks) == 0 && len(t.configs) == 0
	m.pmu.Unlock()
	if empty {
		delete(m.tenants, tenant)
	}
	m.trackRun(e, e.rec.Load().Runner, "")
}
