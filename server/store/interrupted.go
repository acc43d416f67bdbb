package store

import (
	"container/heap"
	"time"
)

// Retention of interrupted tasks in the in-memory store
// (Retention.InterruptedTaskTTL). A task that has been INPUT_REQUIRED or
// AUTH_REQUIRED for longer than the TTL — counted from its status
// timestamp, which the server sets when it writes the status — is removed
// with its push configs. Every write that leaves a task interrupted pushes
// it on a heap ordered by that timestamp; creations and such writes pop the
// expired ones (amortised O(log n) per write), removing those still in the
// state they were pushed with. In between, reads treat an expired task as
// already gone, so the TTL holds exactly even when the store sees no
// writes.

// waitingTask is an interrupted task on the heap.
type waitingTask struct {
	since      time.Time // its status timestamp when it was pushed
	tenant, id string
	e          *memEntry
}

type waitingHeap []waitingTask

func (h waitingHeap) Len() int           { return len(h) }
func (h waitingHeap) Less(i, j int) bool { return h[i].since.Before(h[j].since) }
func (h waitingHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *waitingHeap) Push(x any)        { *h = append(*h, x.(waitingTask)) }
func (h *waitingHeap) Pop() any {
	old := *h
	n := len(old) - 1
	x := old[n]
	old[n] = waitingTask{}
	*h = old[:n]
	return x
}

// WithClock sets the clock of retention (tests); nil keeps time.Now.
func WithClock(now func() time.Time) MemoryOption {
	return func(m *Memory) {
		if now != nil {
			m.now = now
		}
	}
}

// interruptedExpiredAt reports whether rec is an interrupted task that has
// outlived Retention.InterruptedTaskTTL at now.
func (m *Memory) interruptedExpiredAt(rec *Record, now time.Time) bool {
	if m.interruptedTTL <= 0 {
		return false
	}
	st := rec.Task.GetStatus()
	return IsInterrupted(st.GetState()) && now.Sub(st.GetTimestamp().AsTime()) > m.interruptedTTL
}

// interruptedLocked records that the task of e is interrupted as of its
// current record and removes the interrupted tasks past their TTL. Called
// with m.mu held.
func (m *Memory) interruptedLocked(tenant, id string, e *memEntry) {
	m.countWaitingLocked(tenant, id, e)
	if m.interruptedTTL <= 0 || e.gone {
		return
	}
	heap.Push(&m.waiting, waitingTask{since: e.rec.Load().Task.GetStatus().GetTimestamp().AsTime(), tenant: tenant, id: id, e: e})
	m.sweepInterruptedLocked()
}

// sweepInterruptedLocked removes the interrupted tasks past their TTL.
// Called with m.mu held.
func (m *Memory) sweepInterruptedLocked() {
	if len(m.waiting) == 0 {
		return
	}
	now := m.now()
	for len(m.waiting) > 0 && now.Sub(m.waiting[0].since) > m.interruptedTTL {
		w := heap.Pop(&m.waiting).(waitingTask)
		if m.interruptedExpiredAt(w.e.rec.Load(), now) {
			m.removeLocked(w.tenant, w.id, w.e)
		}
	}
	// Give the heap's memory back once most of it is unused.
	if c := cap(m.waiting); c > 64 && len(m.waiting) < c/4 {
		m.waiting = append(waitingHeap(nil), m.waiting...)
	}
}
