package store

import "google.golang.org/protobuf/proto"

// Retention per owner in the in-memory store (issue 26): one owner — one
// Record.Owner, across tenants; the empty owner is every anonymous caller
// together — cannot make the store drop the tasks of another.
//
//   - Finished tasks: over Retention.MaxTerminalTasks in all, the oldest finished
//     task of the owner holding the most goes (not the oldest of all, which
//     let 10,001 anonymous hellos evict every authenticated caller's task);
//     over Retention.MaxTerminalTasksPerOwner, the owner's own oldest.
//   - Interrupted tasks (INPUT_REQUIRED, AUTH_REQUIRED): over
//     Retention.MaxInterruptedTasksPerOwner, the owner's task interrupted longest
//     ago goes.
//   - Bytes: over Retention.MaxBytesPerOwner (the protobuf sizes of the owner's
//     terminal and interrupted tasks), its oldest terminal task goes, then
//     the one it left waiting longest ago.
//
// Each owner keeps its finished and its interrupted tasks in queues, in the
// order they ended or were interrupted; entries of tasks removed otherwise
// (by a TTL, by the other cap) or no longer interrupted stay in the queues
// until they reach the front or the queue is compacted (once more than half
// of it is such entries), so every step is amortised O(1). Owners are kept
// in buckets by their count of finished tasks, so the one holding the most
// is found in O(1).

// ownerTasks is what the store keeps track of for one owner; guarded by
// Memory.mu.
type ownerTasks struct {
	name    string
	ended   endedQueue // its terminal tasks, in the order they ended
	nEnded  int        // how many of them are still stored
	waiting endedQueue // its interrupted tasks, in the order they were interrupted
	nWait   int        // how many of them are still stored and interrupted
	bytes   int64      // the sizes of the tasks counted in nEnded and nWait
}

// ownerBuckets finds the owner with the most terminal tasks: owners by
// their count of terminal tasks (counts of at least 1).
type ownerBuckets struct {
	byCount map[int]map[*ownerTasks]struct{}
	top     int // the highest count with an owner (0: none)
}

func (b *ownerBuckets) move(o *ownerTasks, from, to int) {
	if from > 0 {
		set := b.byCount[from]
		delete(set, o)
		if len(set) == 0 {
			delete(b.byCount, from)
		}
	}
	if to > 0 {
		if b.byCount == nil {
			b.byCount = make(map[int]map[*ownerTasks]struct{})
		}
		set := b.byCount[to]
		if set == nil {
			set = make(map[*ownerTasks]struct{})
			b.byCount[to] = set
		}
		set[o] = struct{}{}
	}
	switch {
	case to > b.top:
		b.top = to
	case from == b.top && b.byCount[from] == nil:
		b.top = max(to, 0) // counts change by one: the next highest is to
	}
}

// largest is an owner holding the most terminal tasks (nil: none).
func (b *ownerBuckets) largest() *ownerTasks {
	for o := range b.byCount[b.top] {
		return o
	}
	return nil
}

// tracksOwners reports whether the store counts tasks per owner.
func (m *Memory) tracksOwners() bool {
	return m.maxTerminal > 0 || m.maxTerminalPerOwner > 0 || m.tracksWaiting()
}

// tracksWaiting reports whether the store counts interrupted tasks per
// owner.
func (m *Memory) tracksWaiting() bool { return m.maxWaitingPerOwner > 0 || m.maxBytesPerOwner > 0 }

// sizeLocked is what the task of e counts against Retention.MaxBytesPerOwner.
func (m *Memory) sizeLocked(e *memEntry) int64 {
	if m.maxBytesPerOwner <= 0 {
		return 0
	}
	return int64(proto.Size(e.rec.Load().Task))
}

// trimBytesLocked removes o's oldest terminal tasks, then the ones it left
// waiting longest ago, but never keep, while o holds more than
// Retention.MaxBytesPerOwner.
func (m *Memory) trimBytesLocked(o *ownerTasks, keep *memEntry) {
	for m.maxBytesPerOwner > 0 && o.bytes > m.maxBytesPerOwner {
		if !m.evictOldestLocked(&o.ended, keep, func(t endedTask) bool { return !t.e.gone }) &&
			!m.evictOldestLocked(&o.waiting, keep, waitingLive) {
			return
		}
	}
}

// evictOldestLocked removes the task of the first live entry of q (live
// tells), unless it is keep; false when there is none to remove.
func (m *Memory) evictOldestLocked(q *endedQueue, keep *memEntry, live func(endedTask) bool) bool {
	for q.len() > 0 {
		f := q.front()
		if !live(f) {
			q.pop()
			continue
		}
		if f.e == keep {
			return false
		}
		q.pop()
		m.removeLocked(f.tenant, f.id, f.e)
		return true
	}
	return false
}

// waitingLive reports whether an entry of an owner's queue of interrupted
// tasks still stands for an interrupted task.
func waitingLive(t endedTask) bool { return !t.e.gone && t.e.countedWaiting && t.e.waitSeq == t.seq }

// ownerLocked returns the owner's record, created when missing. Called
// with m.mu held.
func (m *Memory) ownerLocked(name string) *ownerTasks {
	o := m.owners[name]
	if o == nil {
		if m.owners == nil {
			m.owners = make(map[string]*ownerTasks)
		}
		o = &ownerTasks{name: name}
		m.owners[name] = o
	}
	return o
}

// forgetOwnerLocked drops an owner that has nothing left to count.
func (m *Memory) forgetOwnerLocked(o *ownerTasks) {
	if o.nEnded == 0 && o.nWait == 0 {
		delete(m.owners, o.name)
	}
}

// countEndedLocked counts the task of e, which has just ended, against its
// owner and removes what the caps no longer allow. Called with m.mu held.
func (m *Memory) countEndedLocked(tenant, id string, e *memEntry) {
	m.uncountWaitingLocked(e)
	if e.gone { // removed while its last write was under way
		return
	}
	o := m.ownerLocked(e.rec.Load().Owner)
	o.ended.push(endedTask{tenant: tenant, id: id, e: e})
	o.nEnded++
	m.nEnded++
	e.countedEnded = true
	e.bytes = m.sizeLocked(e)
	o.bytes += e.bytes
	m.ownersByEnded.move(o, o.nEnded-1, o.nEnded)
	if m.maxTerminalPerOwner > 0 {
		for o.nEnded > m.maxTerminalPerOwner && m.evictEndedLocked(o) {
		}
	}
	m.trimBytesLocked(o, e)
	for m.maxTerminal > 0 && m.nEnded > m.maxTerminal {
		if l := m.ownersByEnded.largest(); l == nil || !m.evictEndedLocked(l) {
			break
		}
	}
}

// evictEndedLocked removes the oldest stored terminal task of o; false
// when it has none.
func (m *Memory) evictEndedLocked(o *ownerTasks) bool {
	for o.ended.len() > 0 {
		f := o.ended.front()
		o.ended.pop()
		if f.e.gone {
			continue
		}
		m.removeLocked(f.tenant, f.id, f.e)
		return true
	}
	return false
}

// uncountEndedLocked takes the task of e, being removed, off its owner's
// count of terminal tasks. Called with m.mu held.
func (m *Memory) uncountEndedLocked(e *memEntry) {
	if !e.countedEnded {
		return
	}
	e.countedEnded = false
	m.nEnded--
	o := m.owners[e.rec.Load().Owner]
	if o == nil {
		return
	}
	o.nEnded--
	o.bytes -= e.bytes
	m.ownersByEnded.move(o, o.nEnded+1, o.nEnded)
	if o.ended.len() > 2*o.nEnded+64 {
		o.ended.compact(func(t endedTask) bool { return !t.e.gone })
	}
	m.forgetOwnerLocked(o)
}

// countWaitingLocked counts the task of e, which has just been
// interrupted, against its owner and removes the owner's task interrupted
// longest ago while it has more than Retention.MaxInterruptedTasksPerOwner.
// Called with m.mu held.
func (m *Memory) countWaitingLocked(tenant, id string, e *memEntry) {
	if !m.tracksWaiting() || e.countedWaiting || e.gone {
		return
	}
	o := m.ownerLocked(e.rec.Load().Owner)
	e.waitSeq++
	e.countedWaiting = true
	e.bytes = m.sizeLocked(e)
	o.bytes += e.bytes
	o.waiting.push(endedTask{tenant: tenant, id: id, e: e, seq: e.waitSeq})
	o.nWait++
	for m.maxWaitingPerOwner > 0 && o.nWait > m.maxWaitingPerOwner && m.evictOldestLocked(&o.waiting, e, waitingLive) {
	}
	m.trimBytesLocked(o, e)
}

// uncountWaitingLocked takes the task of e off its owner's count of
// interrupted tasks, when it is counted there: it was resumed, ended or
// removed. Called with m.mu held.
func (m *Memory) uncountWaitingLocked(e *memEntry) {
	if !e.countedWaiting {
		return
	}
	e.countedWaiting = false
	o := m.owners[e.rec.Load().Owner]
	if o == nil {
		return
	}
	o.nWait--
	o.bytes -= e.bytes
	if o.waiting.len() > 2*o.nWait+64 {
		o.waiting.compact(waitingLive)
	}
	m.forgetOwnerLocked(o)
}
