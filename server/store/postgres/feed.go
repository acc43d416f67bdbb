package postgres

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// The feed across replicas.
//
// Each subscription remembers last, the version up to which it has
// received every event. Events reach it in two ways, both under its topic's
// lock and both filtered by last, so that each event arrives exactly once
// and in order:
//
//   - a write of this process at version v, computed from v-1, is handed
//     over directly to the subscribers whose last is v-1 (publish);
//   - otherwise the subscriber catches up: its topic's catch-up goroutine
//     reads the task's version V and its events after the smallest last of
//     the topic, in one statement, and hands each subscriber the events
//     after its own last, which then becomes V. Catching up is triggered by
//     a notification of another replica's write (or of a write this process
//     could not hand over), by a reconnection of the listener, and by a
//     subscription whose snapshot read overlapped with either.
//
// A subscription costs a struct, its channel and a context callback; a
// topic (one per task with subscribers) a struct and a map entry. No
// goroutine runs per subscriber, and one per topic only while it catches
// up.

type topicKey struct{ tenant, id string }

type feed struct {
	s      *Store
	buffer int
	epoch  atomic.Uint64 // listener (re)connections

	mu      sync.RWMutex
	topics  map[topicKey]*topic
	stopped bool // Close was called; guarded by mu

	gmu  sync.Mutex     // orders starting catch-up goroutines with close; never held while taking another lock
	done bool           // no more catch-up goroutines; guarded by gmu
	wg   sync.WaitGroup // catch-up goroutines
}

// topic is the subscribers of one task.
type topic struct {
	key topicKey

	mu      sync.Mutex
	subs    []*sub
	notes   uint64 // counts notifications and unpublished writes, for Subscribe
	running bool   // a catch-up goroutine works on the topic
	dirty   bool   // it should read (again)
}

func newFeed(s *Store, buffer int) *feed {
	if buffer < 1 {
		buffer = store.DefaultSubscriberBuffer
	}
	return &feed{s: s, buffer: buffer, topics: make(map[topicKey]*topic)}
}

// Subscribe implements store.Subscriptions. Every subscriber gets the
// feed's buffer, FollowOutcome ones too: a subscriber dropped as slow
// subscribes again, and that costs a read from the database server.
func (s *Store) Subscribe(ctx context.Context, tenant, id string, _ store.Follow) (store.Record, store.Subscription, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, nil, err
	}
	return s.feed.subscribe(ctx, tenant, id)
}

func (f *feed) subscribe(ctx context.Context, tenant, id string) (store.Record, store.Subscription, error) {
	p, err := f.register(topicKey{tenant, id})
	if err != nil {
		return store.Record{}, nil, err
	}
	rec, err := f.s.Task(ctx, tenant, id)
	return f.arm(ctx, p, rec, err)
}

// CreateTask implements store.Tasks. A subscriber (c.Subscriber) is
// registered before the creation is written, so that a write of another
// replica, which can only follow the creation, is either in the created
// record's version (none is) or reaches the subscriber by its
// notification; the created record is the snapshot, with no read. Every
// subscriber gets the feed's buffer (see Subscribe).
func (s *Store) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	if c.Subscriber == nil {
		rec, err := s.create(ctx, c)
		return rec, nil, err
	}
	if err := s.checkOpen(); err != nil {
		return store.Record{}, nil, err
	}
	p, err := s.feed.register(topicKey{c.Tenant, c.Task.GetId()})
	if err != nil {
		return store.Record{}, nil, err
	}
	rec, err := s.create(ctx, c)
	return s.feed.arm(c.Subscriber.Ctx, p, rec, err)
}

// pending is a subscription registered with its topic whose snapshot is
// not known yet: writes published or notified meanwhile are counted in the
// topic's notes, reconnections of the listener in the feed's epoch.
type pending struct {
	sb           *sub
	t            *topic
	notes, epoch uint64
}

// register adds an unarmed subscriber to the task's topic.
func (f *feed) register(key topicKey) (pending, error) {
	sb := &sub{ch: make(chan store.Event, f.buffer)}
	// Read the epoch before registering: a reconnection after this point
	// may have skipped the subscriber while it was not armed.
	p := pending{sb: sb, epoch: f.epoch.Load()}
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		return pending{}, store.ErrClosed
	}
	t := f.topics[key]
	if t == nil {
		t = &topic{key: key}
		f.topics[key] = t
	}
	sb.f, sb.t, p.t = f, t, t
	t.mu.Lock()
	t.addLocked(sb)
	p.notes = t.notes
	t.mu.Unlock()
	f.mu.Unlock()
	return p, nil
}

// arm gives a registered subscriber its snapshot rec (read or written
// since it registered; err: that failed, and the subscriber is dropped)
// and makes it catch up if writes may have happened in between.
func (f *feed) arm(ctx context.Context, p pending, rec store.Record, err error) (store.Record, store.Subscription, error) {
	sb, t := p.sb, p.t
	if err != nil {
		sb.end(nil)
		return store.Record{}, nil, err
	}
	t.mu.Lock()
	switch {
	case sb.ended: // the store closed meanwhile
	case store.IsTerminal(rec.Task.GetStatus().GetState()):
		t.removeLocked(sb)
		sb.endLocked(nil)
	default:
		sb.armed, sb.last, sb.budget = true, rec.Version, store.NewBudget(ctx)
		// A write notified while the snapshot was read may be missing
		// from it; so may one lost while the listener was away.
		if t.notes != p.notes || f.epoch.Load() != p.epoch {
			f.triggerLocked(t)
		}
	}
	ended, empty := sb.ended, len(t.subs) == 0
	t.mu.Unlock()
	if empty {
		f.release(t)
	}
	if ctx.Done() != nil && !ended {
		sb.stop = context.AfterFunc(ctx, func() { sb.end(ctx.Err()) })
	}
	return rec, sb, nil
}

// publish hands a committed write of this process (version, computed from
// expect) to the task's subscribers.
func (f *feed) publish(key topicKey, expect, version int64, task *a2av1.Task, events []*a2av1.StreamResponse, terminal bool) {
	t := f.lookup(key)
	if t == nil {
		return
	}
	t.mu.Lock()
	behind, unarmed := false, false
	for i := 0; i < len(t.subs); {
		sb := t.subs[i]
		switch {
		case !sb.armed:
			unarmed = true
		case sb.last >= version:
		case sb.last == expect:
			if err := sb.sendLocked(version, events); err != nil {
				t.removeLocked(sb)
				sb.endLocked(err)
				continue
			}
			sb.last = version
			sb.written, sb.writtenAt = task, version
			if terminal {
				t.removeLocked(sb)
				sb.endLocked(nil)
				continue
			}
		default:
			behind = true
		}
		i++
	}
	if unarmed {
		t.notes++
	}
	if behind {
		f.triggerLocked(t)
	}
	empty := len(t.subs) == 0
	t.mu.Unlock()
	if empty {
		f.release(t)
	}
}

// notified handles another replica's notification of a write at version.
func (f *feed) notified(key topicKey, version int64) {
	if t := f.lookup(key); t != nil {
		f.noteAndTrigger(t, func() bool {
			return slices.ContainsFunc(t.subs, func(sb *sub) bool { return sb.armed && sb.last < version })
		})
	}
}

// recheck makes the task's subscribers catch up (a write whose outcome is
// unknown, a notification that names no task).
func (f *feed) recheck(key topicKey) {
	if t := f.lookup(key); t != nil {
		f.noteAndTrigger(t, nil)
	}
}

// recheckAll makes every subscriber catch up; after a reconnection of the
// listener, counted in epoch.
func (f *feed) recheckAll(reconnected bool) {
	if reconnected {
		f.epoch.Add(1)
	}
	f.mu.RLock()
	topics := slices.Collect(maps.Values(f.topics))
	f.mu.RUnlock()
	for _, t := range topics {
		f.noteAndTrigger(t, nil)
	}
}

// lookup is the topic of key, nil when the task has no subscribers here.
func (f *feed) lookup(key topicKey) *topic {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.topics[key]
}

// noteAndTrigger counts a notification on t and makes t's subscribers
// catch up, when behind is nil or says one of them is behind (it runs
// under t.mu).
func (f *feed) noteAndTrigger(t *topic, behind func() bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes++
	if behind == nil || behind() {
		f.triggerLocked(t)
	}
}

// triggerLocked makes t's catch-up goroutine read, starting it if needed.
// The caller holds t.mu.
func (f *feed) triggerLocked(t *topic) {
	t.dirty = true
	if t.running {
		return
	}
	f.gmu.Lock()
	defer f.gmu.Unlock()
	if f.done {
		return
	}
	t.running = true
	f.wg.Add(1)
	go f.catchUp(t)
}

// feedRead is what one catch-up read found.
type feedRead struct {
	version int64 // the task's version: every event up to it is in events
	gone    bool  // the task no longer exists
	events  []feedEvent
}

type feedEvent struct {
	version  int64
	resp     *a2av1.StreamResponse // nil: the end marker of a terminal write without events
	terminal bool
}

// catchUp is the goroutine reading the feed of one topic while it is dirty.
func (f *feed) catchUp(t *topic) {
	defer f.wg.Done()
	ctx := f.s.ctx
	backoff := 50 * time.Millisecond
	for {
		t.mu.Lock()
		from, armed := int64(math.MaxInt64), false
		for _, sb := range t.subs {
			if sb.armed {
				from, armed = min(from, sb.last), true
			}
		}
		if !t.dirty || !armed || ctx.Err() != nil {
			t.running = false
			t.mu.Unlock()
			return
		}
		t.dirty = false
		t.mu.Unlock()

		res, err := f.s.readFeed(ctx, t.key, from)
		if err != nil {
			if ctx.Err() != nil {
				t.mu.Lock()
				t.running = false
				t.mu.Unlock()
				return
			}
			f.s.opts.logger.Warn("postgres store: reading task events failed; retrying",
				"store", f.s.name, "tenant", t.key.tenant, "task", t.key.id, "err", err)
			t.mu.Lock()
			t.dirty = true
			t.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		t.mu.Lock()
		t.applyLocked(from, res)
		empty := len(t.subs) == 0
		t.mu.Unlock()
		if empty {
			f.release(t)
		}
	}
}

// applyLocked hands the events of a read after from to the subscribers
// that had received everything up to from when it was made.
func (t *topic) applyLocked(from int64, res feedRead) {
	for i := 0; i < len(t.subs); {
		sb := t.subs[i]
		if !sb.armed {
			i++
			continue
		}
		if sb.last < from {
			// Joined with an older snapshot while the read ran.
			t.dirty = true
			i++
			continue
		}
		var end error
		ended := false
		for j, ev := range res.events {
			if ev.version <= sb.last {
				continue
			}
			if ev.resp != nil {
				if err := sb.trySendLocked(store.Event{Version: ev.version, Response: ev.resp}); err != nil {
					end, ended = err, true
					break
				}
			}
			if ev.terminal && (j == len(res.events)-1 || res.events[j+1].version != ev.version) {
				ended = true
				break
			}
		}
		if !ended && res.gone {
			// Removed by retention before the subscriber saw it end.
			end, ended = store.ErrSlowSubscriber, true
		}
		if ended {
			t.removeLocked(sb)
			sb.endLocked(end)
			continue
		}
		sb.last = max(sb.last, res.version)
		i++
	}
}

// readFeed reads the task's version and its events after from.
func (s *Store) readFeed(ctx context.Context, key topicKey, from int64) (feedRead, error) {
	s.catchUps.Add(1)
	rows, err := s.pool.Query(ctx, sqlEvents, key.tenant, key.id, from)
	if err != nil {
		return feedRead{}, err
	}
	defer rows.Close()
	res := feedRead{gone: true}
	for rows.Next() {
		var (
			ended    bool
			version  *int64
			event    []byte
			terminal *bool
		)
		if err := rows.Scan(&res.version, &ended, &version, &event, &terminal); err != nil {
			return feedRead{}, err
		}
		res.gone = false
		if version == nil {
			continue
		}
		ev := feedEvent{version: *version, terminal: *terminal}
		if event != nil {
			ev.resp = new(a2av1.StreamResponse)
			if err := proto.Unmarshal(event, ev.resp); err != nil {
				return feedRead{}, err
			}
		}
		res.events = append(res.events, ev)
	}
	return res, rows.Err()
}

// release drops t when it has no subscriber left.
func (f *feed) release(t *topic) {
	f.mu.Lock()
	t.mu.Lock()
	if len(t.subs) == 0 && f.topics[t.key] == t {
		delete(f.topics, t.key)
	}
	t.mu.Unlock()
	f.mu.Unlock()
}

// close ends every subscription with store.ErrClosed; later subscriptions
// fail with it.
func (f *feed) close() {
	f.gmu.Lock()
	f.done = true
	f.gmu.Unlock()
	f.mu.Lock()
	f.stopped = true
	topics := f.topics
	f.topics = make(map[topicKey]*topic)
	f.mu.Unlock()
	for _, t := range topics {
		t.mu.Lock()
		for len(t.subs) > 0 {
			sb := t.subs[len(t.subs)-1]
			t.removeLocked(sb)
			sb.endLocked(store.ErrClosed)
		}
		t.mu.Unlock()
	}
}

// wait waits for the catch-up goroutines (after the store's context ended).
func (f *feed) wait() { f.wg.Wait() }

// Subscribers returns how many live subscriptions the store holds.
func (s *Store) Subscribers() int {
	f := s.feed
	f.mu.RLock()
	defer f.mu.RUnlock()
	n := 0
	for _, t := range f.topics {
		t.mu.Lock()
		n += len(t.subs)
		t.mu.Unlock()
	}
	return n
}

func (t *topic) addLocked(sb *sub) {
	sb.pos = len(t.subs)
	t.subs = append(t.subs, sb)
}

// removeLocked takes sb out of t.subs (moving the last one into its place).
func (t *topic) removeLocked(sb *sub) {
	i := sb.pos
	if i < 0 || i >= len(t.subs) || t.subs[i] != sb {
		return
	}
	last := len(t.subs) - 1
	t.subs[i] = t.subs[last]
	t.subs[i].pos = i
	t.subs[last] = nil
	t.subs = t.subs[:last]
	sb.pos = -1
}

// sub is one subscription. Its fields other than f, t and ch are guarded
// by t.mu.
type sub struct {
	f  *feed
	t  *topic
	ch chan store.Event

	budget *store.Budget // set once by arm; nil: no byte budget
	pos    int           // index in t.subs
	armed  bool          // the snapshot is known; last is valid
	last   int64         // every event up to this version was delivered
	ended  bool
	err    error
	stop   func() bool // stops the context callback
	// The snapshot of the last write of this process handed over (publish)
	// and its version; events read from the table carry none.
	written   *a2av1.Task
	writtenAt int64
}

func (sb *sub) Events() <-chan store.Event { return sb.ch }

// Written implements store.Subscription.
func (sb *sub) Written(version int64) *a2av1.Task {
	sb.t.mu.Lock()
	defer sb.t.mu.Unlock()
	if sb.written == nil || sb.writtenAt != version || sb.last != version {
		return nil
	}
	return sb.written
}

func (sb *sub) Err() error {
	sb.t.mu.Lock()
	defer sb.t.mu.Unlock()
	return sb.err
}

func (sb *sub) Close() {
	sb.end(nil)
	if sb.stop != nil {
		sb.stop()
	}
}

// end ends the subscription with err (unless it already ended) and drops
// an empty topic.
func (sb *sub) end(err error) {
	t := sb.t
	t.mu.Lock()
	if sb.ended {
		t.mu.Unlock()
		return
	}
	t.removeLocked(sb)
	sb.endLocked(err)
	empty := len(t.subs) == 0
	t.mu.Unlock()
	if empty {
		sb.f.release(t)
	}
}

// sendLocked queues the events of one write without blocking:
// store.ErrSlowSubscriber when the buffer is full, store.ErrSubscriberBytes
// when the byte budget is.
func (sb *sub) sendLocked(version int64, events []*a2av1.StreamResponse) error {
	for _, ev := range events {
		if err := sb.trySendLocked(store.Event{Version: version, Response: ev}); err != nil {
			return err
		}
	}
	return nil
}

func (sb *sub) trySendLocked(ev store.Event) error {
	if sb.budget != nil {
		var ok bool
		if ev, ok = sb.budget.Admit(ev, store.EventSize(ev.Response)); !ok {
			return store.ErrSubscriberBytes
		}
	}
	select {
	case sb.ch <- ev:
		return nil
	default:
		ev.Taken()
		return store.ErrSlowSubscriber
	}
}

// endLocked marks the subscription ended and closes its channel; the
// caller holds t.mu and has removed it from t.subs.
func (sb *sub) endLocked(err error) {
	if sb.ended {
		return
	}
	sb.ended = true
	sb.err = err
	close(sb.ch)
}

// ---- The listener ----

// listenPing is how long the listener waits for a notification before it
// checks that its connection is alive (a variable for tests).
var listenPing = 30 * time.Second

// listener holds the connection that LISTENs for the writes of every
// replica.
type listener struct {
	s   *Store
	cfg *pgx.ConnConfig

	mu   sync.Mutex
	conn *pgx.Conn
	done chan struct{}
}

// start connects and starts listening; its failure is Open's.
func (l *listener) start(ctx context.Context) error {
	conn, err := l.connect(ctx)
	if err != nil {
		return err
	}
	l.conn = conn
	l.done = make(chan struct{})
	go l.loop(conn)
	return nil
}

// stop waits for the listener to end (after the store's context ended).
func (l *listener) stop() {
	<-l.done
}

func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.s.opts.channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// pid is the server process of the listener's connection (tests).
func (l *listener) pid() uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn.PgConn().PID()
}

func (l *listener) loop(conn *pgx.Conn) {
	defer close(l.done)
	s := l.s
	ctx := s.ctx
	for {
		err := l.receive(ctx, conn)
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.opts.logger.Warn("postgres store: lost the connection listening for other replicas' writes; reconnecting",
			"store", s.name, "err", err)
		backoff := 100 * time.Millisecond
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			if conn, err = l.connect(ctx); err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			s.opts.logger.Warn("postgres store: cannot listen for other replicas' writes; retrying",
				"store", s.name, "err", err, "retry_in", backoff)
			backoff = min(2*backoff, 5*time.Second)
		}
		l.mu.Lock()
		l.conn = conn
		l.mu.Unlock()
		s.reconnects.Add(1)
		s.opts.logger.Info("postgres store: listening again; subscribers catch up", "store", s.name)
		// Writes made while nobody listened: every subscriber reads what it
		// missed, and dispatchers look for deliveries.
		s.feed.recheckAll(true)
		s.signalQueued()
	}
}

// receive handles notifications until the connection fails.
func (l *listener) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, listenPing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed() {
				return err
			}
			// Quiet for a while: make sure the connection still works.
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
			continue
		}
		l.handle(n.Payload)
	}
}

// handle reads a notification: a kind ('e': events written, 'q': events
// written and deliveries queued, 'o': deliveries queued by a new task), the
// sending store, then the version, the tenant's length and tenant and task
// id, or "*" for every task; or a signal ('s', see signals.go).
func (l *listener) handle(payload string) {
	s := l.s
	if payload == "" {
		return
	}
	kind := payload[0]
	if kind == 's' {
		s.sigs.received(payload[1:])
		return
	}
	origin, rest, _ := strings.Cut(payload[1:], " ")
	own := origin == s.origin
	if !own && (kind == 'q' || kind == 'o') {
		s.signalQueued()
	}
	if own || kind == 'o' {
		return // this process published its writes itself
	}
	if rest == "*" {
		s.feed.recheckAll(false)
		return
	}
	vs, rest, _ := strings.Cut(rest, " ")
	ls, rest, _ := strings.Cut(rest, " ")
	version, err1 := strconv.ParseInt(vs, 10, 64)
	n, err2 := strconv.Atoi(ls)
	if err1 != nil || err2 != nil || n < 0 || n > len(rest) {
		s.opts.logger.Warn("postgres store: malformed notification", "store", s.name, "channel", s.opts.channel, "payload", payload)
		s.feed.recheckAll(false)
		return
	}
	s.feed.notified(topicKey{rest[:n], rest[n:]}, version)
}
