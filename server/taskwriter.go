package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// taskWriter writes the changes of tasks: every change of an existing task
// goes through commit, under the task's lock (a striped mutex, so that one
// server's writes to a task and their webhook notifications happen in one
// order), as an optimistic write that carries its events and, for the
// task's execution, its execution record (runner and lease). It also holds
// what a new task's creation needs (creation.go) and the batch window of
// blocking calls' new tasks (batch.go), and tells the TaskObserver of each
// state it wrote (observer.go).
type taskWriter struct {
	store store.Store

	// locks serialise the writes this server makes to one task. A task
	// maps to one stripe by a hash of its key.
	locks [lockStripes]sync.Mutex

	// runner names this server instance in the execution records of the
	// tasks it runs; runLease is how long such a record holds without
	// renewal (recovery.go).
	runner   string
	runLease time.Duration

	batchWindow time.Duration // batch.go

	observer     TaskObserver                             // observer.go
	traceContext func(context.Context) store.TraceContext // observer.go
}

// lockStripes is the number of task lock stripes.
const lockStripes = 256

// lock locks the stripe of a task and returns it, for the caller to unlock
// (a mutex and not its Unlock method: a method value would be allocated on
// every call).
func (w *taskWriter) lock(k taskKey) *sync.Mutex {
	m := w.stripe(k)
	m.Lock()
	return m
}

// unlockKey unlocks the stripe of a task locked with lock.
func (w *taskWriter) unlockKey(k taskKey) { w.stripe(k).Unlock() }

// stripe is the mutex of a task's lock stripe.
func (w *taskWriter) stripe(k taskKey) *sync.Mutex {
	// FNV-1a over tenant and id: cheap, and spreads UUIDs well.
	h := uint32(2166136261)
	for i := 0; i < len(k.tenant); i++ {
		h = (h ^ uint32(k.tenant[i])) * 16777619
	}
	h = (h ^ 0xff) * 16777619
	for i := 0; i < len(k.id); i++ {
		h = (h ^ uint32(k.id[i])) * 16777619
	}
	return &w.locks[h%lockStripes]
}

// maxConflicts bounds how often one write is retried after losing to other
// writers. Writers in this process take the task's lock, so conflicts come
// only from other replicas sharing the store.
const maxConflicts = 32

// commit applies ch to the task and writes the result, starting from
// rec (the writer's latest known record) and re-reading after a conflict.
// On success the store publishes the events to the task's subscribers and
// queues them, in the same write, for every webhook of the task. byRun says
// that the writer is the task's execution in this process, which renews its
// execution record. The caller holds the task's lock.
func (w *taskWriter) commit(ctx context.Context, key taskKey, rec store.Record, ch change, byRun bool) (store.Record, error) {
	for attempt := 0; ; attempt++ {
		next, events, err := ch(rec.Task)
		if err != nil {
			return rec, err
		}
		if next == rec.Task && len(events) == 0 {
			return rec, nil // the change leaves the task as it is
		}
		u := store.Update{Tenant: key.tenant, Task: next, Expect: rec.Version, Events: events, Trace: w.traceOf(ctx, events)}
		if byRun && rec.Runner != w.runner {
			// The execution moves here (a new turn after another instance's,
			// or after a restart). Later writes leave the record alone: the
			// renewal ticker keeps the lease, so that a write touches no
			// more of the store than its change.
			u.Runner, u.LeaseUntil = w.runner, w.leaseEnd()
		}
		v, err := w.store.UpdateTask(ctx, u)
		if err == nil {
			w.observeState(ctx, key.tenant, rec.Task, next)
			rec = store.Record{Tenant: key.tenant, Owner: rec.Owner, Version: v, Generation: store.NextGeneration(rec.Generation, len(events)),
				Task: next, Runner: rec.Runner, LeaseUntil: rec.LeaseUntil}
			switch {
			case store.IsTerminal(next.GetStatus().GetState()):
				rec.Runner, rec.LeaseUntil = "", time.Time{}
			case u.Runner != "":
				rec.Runner, rec.LeaseUntil = u.Runner, u.LeaseUntil
			}
			return rec, nil
		}
		if !errors.Is(err, store.ErrConflict) || attempt == maxConflicts {
			return rec, err
		}
		if rec, err = w.store.Task(ctx, key.tenant, key.id); err != nil {
			return rec, err
		}
	}
}
