package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// yields is how often the writer yields before collecting a batch.
const yields = 2

// maxBatch is the most write operations committed in one transaction.
const maxBatch = 64

// writeOp is one write operation queued for the writer goroutine.
type writeOp interface {
	base() *opBase
	// apply runs the operation inside the writer's transaction. It returns
	// the operation's own failure (a store sentinel, nothing written) or a
	// database error, which fails the whole transaction.
	apply(w *writer, now int64) (failure, dbErr error)
	// what names the operation in errors ("writing task X").
	what() string
	// committed runs in the writer after the operation's transaction
	// committed, when the operation succeeded: it brings the record cache
	// up to date.
	committed(c *recordCache)
}

// Operation states: queued until the writer takes it or the caller gives up.
const (
	opQueued int32 = iota
	opTaken
	opAbandoned
)

// opBase is what every operation shares: its state, its completion and what
// the writer does after COMMIT.
type opBase struct {
	state atomic.Int32
	done  chan struct{}
	err   error

	// Set by apply on success.
	publish   bool // publish events of the task write to subscribers:
	pubTenant string
	pubTask   string
	version   int64 // the new version (also UpdateTask's result)
	events    []*a2av1.StreamResponse
	terminal  bool
	queued    bool       // outbox rows were inserted
	termDelta int64      // change in the number of terminal tasks
	endsTask  bool       // a task became terminal
	evicted   []cacheKey // tasks the per-owner caps removed (owners.go)

	// answered: the writer answered the operation when it applied it,
	// before the commit (a send key's claim, early_claims.go); its caller
	// has its result, and the writer no longer touches it.
	answered bool
}

func (b *opBase) base() *opBase { return b }

// reset clears what apply sets, before the operation is applied (again,
// when its first transaction was rolled back for another operation).
func (b *opBase) reset() {
	b.publish, b.pubTenant, b.pubTask, b.version, b.events = false, "", "", 0, nil
	b.terminal, b.queued, b.termDelta, b.endsTask = false, false, 0, false
	b.evicted = b.evicted[:0]
}

func (b *opBase) committed(*recordCache) {}

// writer is the goroutine that owns the write connection.
type writer struct {
	s    *Store
	conn *sql.Conn
	st   writeStmts
	ops  chan writeOp
	quit chan struct{} // closed by Close
	done chan struct{} // closed when loop returns

	batch []writeOp
	timer *time.Timer // wakes the loop when the next sweep is due

	claims int // send keys claimed (sendkeys.go), for purgeEvery
	// Claims answered before their commit (early_claims.go): those of the
	// open transaction, and those whose transaction rolled back, which the
	// next transaction writes first.
	answered, owed []store.SendKey
	// commitFault, when set, makes a COMMIT fail (tests).
	commitFault func() error

	// WAL bookkeeping (checkpoint.go).
	walPending   int   // pages appended since the checkpointer was last woken
	walTotal     int64 // pages appended since Open
	sinceRestart int64 // pages appended since the WAL was last restarted
	restartAfter int64 // the next restart of the WAL waits until walTotal reaches it

	// Retention bookkeeping (retention.go), owned by the writer goroutine.
	terminal   int64 // committed number of terminal tasks
	nextExpiry int64 // when the oldest terminal task outlives the TTL (0: none)
	// when the oldest interrupted task outlives Retention.InterruptedTaskTTL (0:
	// none), and the last sweep of interrupted tasks.
	nextWaitExpiry int64
	lastWaitSweep  time.Time
	lastSweep      time.Time // of the last TTL sweep
	sweepSoon      bool      // the last sweep stopped at its chunk size
	blockedUntil   time.Time // no sweep before (after a failed one)
	// The owner the cap on terminal tasks takes from, and how many more it
	// may take before counting again (0: count first).
	largest     string
	largestRoom int64
	anyOwner    bool // no owner holds many: take the oldest of all
}

// submit queues o and waits for its outcome. A caller whose ctx ends
// before the writer took the operation gets ctx's error and the operation
// never runs; once taken, the caller waits for its outcome.
func (s *Store) submit(ctx context.Context, o writeOp) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	b := o.base()
	b.done = make(chan struct{})
	select {
	case s.w.ops <- o:
	case <-s.w.done:
		return store.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		if b.state.CompareAndSwap(opQueued, opAbandoned) {
			return ctx.Err()
		}
	case <-s.w.done:
		if b.state.CompareAndSwap(opQueued, opAbandoned) {
			return store.ErrClosed
		}
	}
	<-b.done
	return b.err
}

// loop is the writer goroutine.
func (w *writer) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.quit:
			return
		default:
		}
		w.batch = w.batch[:0]
		first, quit := w.first()
		if quit {
			return
		}
		w.collect(first)
		if len(w.batch) == 0 && !w.sweepDue(w.s.opts.now(), w.terminal) {
			continue
		}
		w.run(w.batch)
		clear(w.batch[:cap(w.batch)]) // with the writes a transaction joined
	}
}

// first waits for the first operation of a batch: when a sweep is due it
// takes one only if it is already queued (the sweep runs without waiting),
// otherwise it waits until one comes, the next sweep is due (first is then
// nil) or the store closes (quit).
func (w *writer) first() (first writeOp, quit bool) {
	if w.sweepDue(w.s.opts.now(), w.terminal) {
		select {
		case first = <-w.ops:
		default:
		}
		return first, false
	}
	var tick <-chan time.Time
	if at, ok := w.nextSweep(); ok {
		tick = w.sweepTimer(at.Sub(w.s.opts.now()))
	}
	select {
	case first = <-w.ops:
	case <-w.quit:
		return nil, true
	case <-tick:
	}
	return first, false
}

// sweepTimer is the writer's one timer, set to fire after d.
func (w *writer) sweepTimer(d time.Duration) <-chan time.Time {
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	return w.timer.C
}

// collect makes the batch: first, and the operations queued behind it up
// to maxBatch.
func (w *writer) collect(first writeOp) {
	w.batch = taken(w.batch, first)
	if len(w.batch) > 0 && len(w.ops) < maxBatch {
		yield()
	}
	w.batch = w.takeQueued(w.batch)
}

// yield lets the goroutines that are about to write get their operations
// in: on a busy server a commit shared by more writes costs each of them
// less (the commit, not the statements, is most of a write's cost).
// Yielding costs a few microseconds and waits for nothing.
func yield() {
	for range yields {
		runtime.Gosched()
	}
}

// takeQueued appends to batch the operations queued now, up to maxBatch.
func (w *writer) takeQueued(batch []writeOp) []writeOp {
	for len(batch) < maxBatch {
		select {
		case o := <-w.ops:
			batch = taken(batch, o)
		default:
			return batch
		}
	}
	return batch
}

// taken is batch with o unless its caller gave up on it.
func taken(batch []writeOp, o writeOp) []writeOp {
	if o != nil && o.base().state.CompareAndSwap(opQueued, opTaken) {
		batch = append(batch, o)
	}
	return batch
}

// run commits batch in one transaction (with a retention sweep when one is
// due), then publishes the events, signals the outbox and completes the
// operations.
func (w *writer) run(batch []writeOp) {
	ctx := context.Background()
	if err := w.begin(ctx); err != nil {
		w.fail(batch, err)
		return
	}
	now := w.s.now()
	terminal, ended, ok := w.applyAll(batch, 0, w.terminal, now)
	if ok {
		batch, terminal, ended, ok = w.join(batch, terminal, ended, now)
	}
	if !ok {
		return
	}
	var sw sweepResult
	if sweepAt := w.s.opts.now(); w.sweepDue(sweepAt, terminal) {
		sw = w.sweep(ctx, sweepAt, terminal)
	}
	if err := w.commit(ctx); err != nil {
		w.rollback()
		w.fail(batch, fmt.Errorf("committing: %w", err))
		return
	}
	w.answered = w.answered[:0]
	w.s.transactions.Add(1)
	w.updateCache(batch, sw)
	w.keepRetention(batch, sw, terminal, ended, now)
	w.publish(batch)
	w.answer(batch)
	w.walAppended()
}

// begin starts a transaction and writes the claims owed (early_claims.go)
// first.
func (w *writer) begin(ctx context.Context) error {
	if _, err := w.st.begin.ExecContext(ctx); err != nil {
		return fmt.Errorf("starting a transaction: %w", err)
	}
	if err := w.payOwed(); err != nil {
		w.rollback()
		return err
	}
	return nil
}

// answer completes the operations of a committed batch (but those answered
// before: early_claims.go).
func (w *writer) answer(batch []writeOp) {
	for _, o := range batch {
		if b := o.base(); !b.answered {
			close(b.done)
		}
	}
}

// commit commits the open transaction.
func (w *writer) commit(ctx context.Context) error {
	if w.commitFault != nil {
		if err := w.commitFault(); err != nil {
			return err
		}
	}
	_, err := w.st.commit.ExecContext(ctx)
	return err
}

// applyAll applies the operations of batch from from on in the open
// transaction and returns the number of terminal tasks they leave, counted
// on from terminal, and whether one of them ended a task. On a database
// error it rolls the transaction back and runs the batch again without the
// failing operation (isolate); ok is then false and the batch is done.
func (w *writer) applyAll(batch []writeOp, from int, terminal, now int64) (_ int64, ended, ok bool) {
	for i := from; i < len(batch); i++ {
		o := batch[i]
		o.base().reset()
		failure, dbErr := o.apply(w, now)
		if dbErr != nil {
			w.rollback()
			w.isolate(batch, i, dbErr)
			return 0, false, false
		}
		b := o.base()
		b.err = failure
		if failure == nil {
			terminal += b.termDelta
			ended = ended || b.endsTask
		}
		if c, ok := o.(*sendKeyClaimOp); ok {
			w.answerClaim(c)
		}
	}
	return terminal, ended, true
}

// updateCache brings the record cache in line with a committed
// transaction: its writes, then the tasks the per-owner caps and the sweep
// removed.
func (w *writer) updateCache(batch []writeOp, sw sweepResult) {
	for _, o := range batch {
		if o.base().err == nil {
			o.committed(w.s.cache)
		}
	}
	for _, o := range batch {
		if b := o.base(); b.err == nil {
			for _, k := range b.evicted {
				w.s.cache.evict(k.tenant, k.id)
			}
		}
	}
	for _, k := range sw.deleted {
		w.s.cache.evict(k.tenant, k.id)
	}
}

// keepRetention updates the retention bookkeeping after a committed
// transaction: the count of terminal tasks, the next expiry of a task that
// ended and the interrupted tasks waiting.
func (w *writer) keepRetention(batch []writeOp, sw sweepResult, terminal int64, ended bool, now int64) {
	w.terminal = terminal - sw.removed
	w.s.terminal.Store(w.terminal)
	w.swept(sw)
	if ended && w.nextExpiry == 0 && w.s.opts.ttl > 0 {
		w.nextExpiry = now + int64(w.s.opts.ttl) + 1
	}
	if w.s.opts.interruptedTTL <= 0 {
		return
	}
	for _, o := range batch {
		if o.base().err == nil {
			w.waiting(o)
		}
	}
}

// publish hands the events of the committed writes to the subscribers and
// wakes the push dispatcher when a write queued deliveries.
func (w *writer) publish(batch []writeOp) {
	queued := false
	var writes int64
	for _, o := range batch {
		b := o.base()
		if b.err != nil {
			continue
		}
		writes++
		if b.publish {
			w.s.broker.Publish(b.pubTenant, b.pubTask, b.version, b.events, b.terminal)
		}
		queued = queued || b.queued
	}
	w.s.writes.Add(writes)
	if queued {
		select {
		case w.s.wake <- struct{}{}:
		default:
		}
	}
}

// fail completes every operation of a rolled back batch with err (but
// the claims answered already, which the next transaction writes again:
// owe).
func (w *writer) fail(batch []writeOp, err error) {
	if len(batch) > 0 {
		w.s.rolledBack.Add(1)
	}
	w.owe()
	for _, o := range batch {
		b := o.base()
		if b.answered {
			continue
		}
		b.err = fmt.Errorf("sqlite store %s: %s: %w", w.s.path, o.what(), err)
		close(b.done)
	}
	if len(batch) == 0 {
		w.s.opts.logger.Error("sqlite store: retention sweep failed", "path", w.s.path, "err", err)
		w.blockSweeps()
	}
}

// isolate completes operation i of a batch rolled back because that
// operation failed with err, and runs the others again without it: one
// write's failure is its own (a write too large for the space left fails,
// the small writes batched with it do not). Each round removes one
// operation, so a batch is tried at most as many times as it has writes.
// The claims answered already are not run again: the next transaction
// writes them first (owe).
func (w *writer) isolate(batch []writeOp, i int, err error) {
	w.s.rolledBack.Add(1)
	w.owe()
	b := batch[i].base()
	b.err = fmt.Errorf("sqlite store %s: %s: %w", w.s.path, batch[i].what(), err)
	b.answered = true // not run again
	close(b.done)
	if rest := unanswered(batch); len(rest) > 0 || len(w.owed) > 0 {
		w.run(rest)
	}
}

// rollback ends the transaction after a failure. A failed statement may
// already have rolled it back; the error of ROLLBACK then says only that.
func (w *writer) rollback() {
	_, _ = w.st.rollback.ExecContext(context.Background())
}

// dbErr wraps a database error of one statement.
func dbErr(stmt string, err error) error {
	return fmt.Errorf("%s: %w", stmt, err)
}
