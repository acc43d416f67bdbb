package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// writeTimeout bounds one batch (a database that stops answering fails the
// writes instead of holding them forever).
const writeTimeout = 30 * time.Second

// Operation states: queued until a writer takes it or the caller gives up.
const (
	opQueued int32 = iota
	opTaken
	opAbandoned
)

// writeOp is one task write: a statement returning at most one row of three
// bigints.
type writeOp struct {
	state atomic.Int32
	done  chan struct{}

	key      topicKey
	what     string // names the write in errors
	sql      string
	args     []any
	notifies bool // the statement may NOTIFY (see writer)

	// Set by the writer.
	found bool     // the statement returned its row
	res   [3]int64 // the row
	err   error    // a database error (the batch was rolled back)

	// For UpdateTask: what the feed gets after COMMIT.
	publish  bool
	expect   int64
	task     *a2av1.Task
	events   []*a2av1.StreamResponse
	terminal bool
}

// writer is the group-commit writer: goroutines that each take the writes
// waiting at that moment and send them as one batch, an implicit
// transaction committed with one round trip.
//
// Writes that may NOTIFY (task updates with events, creations queueing
// deliveries) and writes that do not (most creations) wait on separate
// queues, taken by separate goroutines: PostgreSQL serializes the commits
// of all transactions that notify, over the whole server, each holding a
// lock until its commit is flushed (async.c, PreCommit_Notify), so a batch
// of creations mixed in with them would wait its turn for nothing. The
// notifying writes go to two goroutines by default (as many as all writes
// had before they were split: more would queue on that lock), the others
// to three, whose commits PostgreSQL flushes together.
type writer struct {
	s        *Store
	ops      chan *writeOp // writes that do not notify
	nops     chan *writeOp // writes that may notify
	maxBatch int
	quit     chan struct{} // closed by stop
	done     chan struct{} // closed when every loop returned
	wg       sync.WaitGroup
}

// newWriter starts nn goroutines for the notifying writes and n for the
// others (at least one each).
func newWriter(s *Store, nn, n, maxBatch int) *writer {
	nn, n = max(nn, 1), max(n, 1)
	w := &writer{s: s, ops: make(chan *writeOp, 1024), nops: make(chan *writeOp, 1024), maxBatch: maxBatch,
		quit: make(chan struct{}), done: make(chan struct{})}
	w.wg.Add(nn + n)
	for range nn {
		go w.loop(w.nops)
	}
	for range n {
		go w.loop(w.ops)
	}
	return w
}

func (w *writer) stop() {
	close(w.quit)
	w.wg.Wait()
	close(w.done)
}

// submit queues o and waits for its outcome. A caller whose ctx ends before
// a writer took the operation gets ctx's error and the operation never
// runs; once taken, the caller waits for its outcome.
func (w *writer) submit(ctx context.Context, o *writeOp) error {
	if w.s.closed.Load() {
		return store.ErrClosed
	}
	o.done = make(chan struct{})
	o.state.Store(opQueued)
	o.found, o.err = false, nil
	queue := w.ops
	if o.notifies {
		queue = w.nops
	}
	select {
	case queue <- o:
	case <-w.done:
		return store.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-o.done:
		return nil
	case <-ctx.Done():
		if o.state.CompareAndSwap(opQueued, opAbandoned) {
			return ctx.Err()
		}
	case <-w.done:
		if o.state.CompareAndSwap(opQueued, opAbandoned) {
			return store.ErrClosed
		}
	}
	<-o.done
	return nil
}

func (w *writer) loop(ops chan *writeOp) {
	defer w.wg.Done()
	batch := make([]*writeOp, 0, w.maxBatch)
	for {
		batch = batch[:0]
		select {
		case <-w.quit:
			return
		case o := <-ops:
			if o.state.CompareAndSwap(opQueued, opTaken) {
				batch = append(batch, o)
			}
		}
	drain:
		for len(batch) < w.maxBatch {
			select {
			case o := <-ops:
				if o.state.CompareAndSwap(opQueued, opTaken) {
					batch = append(batch, o)
				}
			default:
				break drain
			}
		}
		if len(batch) > 0 {
			w.run(batch)
			clear(batch[:cap(batch)])
		}
	}
}

// run sends batch as one implicit transaction. The writes lock task rows
// in key order, so concurrent batches (of this or another replica) cannot
// deadlock. A write the database refuses fails alone: the batch is rolled
// back and sent again without it (at most once per write of the batch), so
// one caller's bad write never fails another's.
func (w *writer) run(batch []*writeOp) {
	slices.SortStableFunc(batch, func(a, b *writeOp) int {
		return cmp.Or(cmp.Compare(a.key.tenant, b.key.tenant), cmp.Compare(a.key.id, b.key.id))
	})
	failed, failure := w.send(batch)
	switch {
	case failure == nil:
		w.committed(batch)
	case failed >= 0 && ownFailure(failure):
		w.s.rolledBack.Add(1)
		w.isolate(batch, failed, failure)
	default:
		w.s.rolledBack.Add(1)
		w.fail(batch, failed, failure)
	}
}

// send runs the statements of batch in one round trip and reads their
// results. It returns the first failure and the index of the write whose
// statement failed (-1 when the batch as a whole failed).
func (w *writer) send(batch []*writeOp) (failed int, failure error) {
	b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(batch))}
	for _, o := range batch {
		b.Queue(o.sql, o.args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	br := w.s.pool.SendBatch(ctx, b)
	failed = -1
	for i, o := range batch {
		err := br.QueryRow().Scan(&o.res[0], &o.res[1], &o.res[2])
		switch {
		case err == nil:
			o.found = true
		case errors.Is(err, pgx.ErrNoRows):
		case failure == nil:
			failure, failed = err, i
		}
	}
	if err := br.Close(); err != nil && failure == nil {
		failure = err
	}
	return failed, failure
}

// isolate fails the write whose statement the database refused alone and
// sends the others, which did nothing wrong, again without it.
func (w *writer) isolate(batch []*writeOp, failed int, failure error) {
	o := batch[failed]
	o.err = fmt.Errorf("postgres store %s: %s: %w", w.s.name, o.what, failure)
	o.found = false
	close(o.done)
	rest := make([]*writeOp, 0, len(batch)-1)
	rest = append(append(rest, batch[:failed]...), batch[failed+1:]...)
	for _, o := range rest {
		o.found = false
	}
	if len(rest) > 0 {
		w.s.isolated.Add(1)
		w.run(rest)
	}
}

// fail completes every write of a batch that failed as a whole (or for a
// failure of the database itself) with the failure.
func (w *writer) fail(batch []*writeOp, failed int, failure error) {
	s := w.s
	for i, o := range batch {
		if failed < 0 || i == failed {
			o.err = fmt.Errorf("postgres store %s: %s: %w", s.name, o.what, failure)
		} else {
			o.err = fmt.Errorf("postgres store %s: %s: batch rolled back: %s: %w", s.name, o.what, batch[failed].what, failure)
		}
		o.found = false
		// A batch whose answer was lost may have committed: let the
		// task's local subscribers look.
		s.feed.recheck(o.key)
		close(o.done)
	}
}

// committed publishes the events of a committed batch's writes, wakes the
// push dispatcher when one queued deliveries and completes the writes.
func (w *writer) committed(batch []*writeOp) {
	s := w.s
	s.batches.Add(1)
	var writes int64
	queued := false
	for _, o := range batch {
		if !o.found {
			continue
		}
		writes++
		queued = queued || o.res[1] > 0
		if o.publish {
			s.feed.publish(o.key, o.expect, o.res[0], o.task, o.events, o.terminal)
		}
	}
	s.writes.Add(writes)
	if queued {
		s.signalQueued()
	}
	for _, o := range batch {
		close(o.done)
	}
}

// ownFailure reports whether err is a statement's own failure, which the
// database reports for that statement and which says nothing of the other
// writes of its batch: a constraint, a value the column cannot hold (a NUL
// byte, an index row too large), a data error. Failures of the database
// itself (a lost connection, no disk space, an administrator's shutdown, an
// internal error) fail the whole batch: re-sending it would only fail again.
func ownFailure(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) < 2 {
		return false
	}
	switch pe.Code[:2] {
	case "08", // connection exception
		"53", // insufficient resources
		"57", // operator intervention (shutdown, statement timeout, cancel)
		"58", // system error
		"XX": // internal error
		return false
	}
	return true
}

// signalQueued wakes a dispatcher waiting on DeliveriesQueued.
func (s *Store) signalQueued() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
