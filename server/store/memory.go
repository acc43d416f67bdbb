package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// MemoryOption configures NewMemory.
type MemoryOption func(*Memory)

// WithSubscriberBuffer sets how many unread events a subscription may hold
// before it is dropped (ErrSlowSubscriber); n < 1 keeps the default.
func WithSubscriberBuffer(n int) MemoryOption {
	return func(m *Memory) {
		if n >= 1 {
			m.buffer = n
		}
	}
}

// DefaultMaxPendingDeliveries is how many deliveries the in-memory outbox
// keeps per webhook config; see WithMaxPendingDeliveries.
const DefaultMaxPendingDeliveries = 1024

// WithMaxPendingDeliveries bounds the in-memory outbox: a webhook config
// that already has n deliveries waiting (its receiver is down or slow) gets
// no more until they drain; the dropped ones are counted in
// MemoryStats.DroppedDeliveries. n < 1 keeps DefaultMaxPendingDeliveries.
func WithMaxPendingDeliveries(n int) MemoryOption {
	return func(m *Memory) {
		if n >= 1 {
			m.maxPending = n
		}
	}
}

// Memory is the in-memory Store: nothing survives the process. By default
// it keeps every task until the process ends; Retention.TerminalTaskTTL and
// Retention.MaxTerminalTasks bound what it keeps of finished tasks. It delivers
// events to subscribers without blocking the writer, and is safe for
// concurrent use. Reads of a task take no lock on the task: records are
// immutable and published atomically.
type Memory struct {
	Unshared // one process uses it

	mu      sync.RWMutex
	tenants map[string]*memTenant
	buffer  int
	broker  *Broker
	closed  atomic.Bool

	// Retention of terminal tasks (retention.go); guarded by mu.
	ttl         time.Duration
	maxTerminal int
	now         func() time.Time
	ended       endedQueue // for the TTL

	// Retention per owner (memory_owners.go); guarded by mu.
	maxTerminalPerOwner, maxWaitingPerOwner int
	maxBytesPerOwner                        int64
	owners                                  map[string]*ownerTasks
	ownersByEnded                           ownerBuckets
	nEnded                                  int // terminal tasks counted against their owners

	// Retention of interrupted tasks (interrupted.go); guarded by mu.
	interruptedTTL time.Duration
	waiting        waitingHeap

	// Execution records: the unfinished tasks of each runner.
	runMu sync.Mutex
	runs  map[string]map[*memEntry]struct{}

	// Push configs and the outbox (memory_outbox.go); guarded by pmu.
	pmu        sync.Mutex
	outbox     memOutbox
	maxPending int

	sendKeys memSendKeys // memory_sendkeys.go

	endedLogs memEndedLogs // memory_endedlogs.go
}

type memTenant struct {
	tasks   map[string]*memEntry
	lists   map[listKey]*listIndex           // owner (and context, state) → its tasks in listing order (memory_index.go); guarded by Memory.mu
	configs map[string]map[string]PushConfig // task id → config id → config; guarded by Memory.pmu
}

// memEntry is one task: its current record. mu serialises its writes (and
// their publication, so that every subscriber sees the events of the task
// in the same order); the record is published atomically so that readers
// take no lock.
type memEntry struct {
	mu      sync.Mutex
	rec     atomic.Pointer[Record]
	configs atomic.Int32 // how many push configs the task has

	endedAt time.Time // when the task became terminal, if retention is on; guarded by Memory.mu
	// Retention per owner (memory_owners.go), guarded by Memory.mu: the
	// task was removed; it counts against its owner as terminal, as
	// interrupted (and the how-manieth time it was interrupted).
	gone                         bool
	countedEnded, countedWaiting bool
	waitSeq                      uint32
	bytes                        int64 // its size as counted against its owner (Retention.MaxBytesPerOwner)
	// Where the task sits in the listing indexes (memory_index.go): its
	// cursor, the context and state it is indexed under, and its nodes
	// there (reused when it moves). Guarded by Memory.mu.
	key     Cursor
	context string
	state   a2av1.TaskState
	nodes   [4]*listNode

	// log is the task's event log (eventlog.go): its latest events, at
	// most MemoryEventLogLen; guarded by mu.
	log []LoggedEvent

	// final is the record of a task created terminal, which never changes:
	// rec points here, one allocation fewer (CreateTask).
	final Record
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory(opts ...MemoryOption) *Memory {
	m := &Memory{
		tenants:    make(map[string]*memTenant),
		buffer:     DefaultSubscriberBuffer,
		now:        time.Now,
		runs:       make(map[string]map[*memEntry]struct{}),
		maxPending: DefaultMaxPendingDeliveries,
	}
	for _, o := range opts {
		o(m)
	}
	m.broker = NewBroker(m.buffer)
	m.outbox.init()
	return m
}

// Close implements Store: subscriptions end with ErrClosed, later calls fail
// with ErrClosed.
func (m *Memory) Close() error {
	if m.closed.Swap(true) {
		return nil
	}
	m.broker.Close()
	return nil
}

func (m *Memory) checkOpen() error {
	if m.closed.Load() {
		return ErrClosed
	}
	return nil
}

// liveLocked reports whether tenant t holds the task and it has not outlived
// Retention.TerminalTaskTTL. Called with m.mu held.
func (m *Memory) liveLocked(t *memTenant, id string) bool {
	if t == nil {
		return false
	}
	e := t.tasks[id]
	return e != nil && !m.expiredLocked(e)
}

// entry returns the live entry of a task, or nil when there is none or it
// has outlived Retention.TerminalTaskTTL.
func (m *Memory) entry(tenant, id string) *memEntry {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.tenants[tenant]; m.liveLocked(t, id) {
		return t.tasks[id]
	}
	return nil
}

func (e *memEntry) snapshot() Record { return *e.rec.Load() }

// CreateTask implements Tasks.
func (m *Memory) CreateTask(_ context.Context, c Creation) (Record, Subscription, error) {
	rec, err := m.create(c)
	return SubscribeCreated(m, c, rec, err)
}

func (m *Memory) create(c Creation) (Record, error) {
	if err := m.checkOpen(); err != nil {
		return Record{}, err
	}
	rec, err := firstRecord(c)
	if err != nil {
		return Record{}, err
	}
	id := rec.Task.GetId()
	e := newEntry(rec) // made before the store's lock, which every creation takes
	m.mu.Lock()
	m.sweepLocked() // a task past its TTL must not block its id
	m.sweepInterruptedLocked()
	t := m.tenantLocked(rec.Tenant)
	if _, dup := t.tasks[id]; dup {
		m.mu.Unlock()
		return Record{}, fmt.Errorf("%w: task %q", ErrExists, id)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t.tasks[id] = e
	t.indexLocked(e)
	if state := rec.Task.GetStatus().GetState(); IsTerminal(state) {
		m.endedLocked(rec.Tenant, id, e)
	} else if IsInterrupted(state) {
		m.interruptedLocked(rec.Tenant, id, e)
	}
	m.mu.Unlock()
	if len(c.PushConfigs) > 0 {
		m.saveNewConfigs(t, e, c, rec)
	}
	m.trackRun(e, "", rec.Runner)
	return rec, nil
}

// firstRecord checks a creation and returns the task's first record:
// version 1, its first generation, no runner when it is created ended.
func firstRecord(c Creation) (Record, error) {
	rec := c.Record
	if err := CheckSnapshot(rec.Task); err != nil {
		return Record{}, err
	}
	if err := CheckCreation(c); err != nil {
		return Record{}, err
	}
	id := rec.Task.GetId()
	for _, cfg := range c.PushConfigs {
		if cfg.GetId() == "" || cfg.GetTaskId() != id {
			return Record{}, fmt.Errorf("store: push config %q of new task %q must have an id and the task's id (got %q)", cfg.GetId(), id, cfg.GetTaskId())
		}
	}
	rec.Version, rec.Generation = 1, FirstGeneration(rec.Generation)
	if IsTerminal(rec.Task.GetStatus().GetState()) {
		rec.Runner, rec.LeaseUntil = "", time.Time{}
	}
	return rec, nil
}

// tenantLocked is the tenant's part of the store, made on its first task.
// The caller holds m.mu.
func (m *Memory) tenantLocked(tenant string) *memTenant {
	t := m.tenants[tenant]
	if t == nil {
		t = &memTenant{tasks: make(map[string]*memEntry), lists: make(map[listKey]*listIndex), configs: make(map[string]map[string]PushConfig)}
		m.tenants[tenant] = t
	}
	return t
}

// newEntry is the entry of a new task at rec; a terminal task's record
// lives in the entry itself, since it never changes.
func newEntry(rec Record) *memEntry {
	e := &memEntry{}
	if IsTerminal(rec.Task.GetStatus().GetState()) {
		e.final = rec
		e.rec.Store(&e.final)
	} else {
		live := rec
		e.rec.Store(&live)
	}
	return e
}

// saveNewConfigs keeps the push configs of a new task (t's task e, at
// rec) and queues its events for them.
func (m *Memory) saveNewConfigs(t *memTenant, e *memEntry, c Creation, rec Record) {
	id := rec.Task.GetId()
	m.pmu.Lock()
	defer m.pmu.Unlock()
	byID := t.configs[id]
	if byID == nil {
		byID = make(map[string]PushConfig)
		t.configs[id] = byID
	}
	for _, cfg := range c.PushConfigs {
		byID[cfg.GetId()] = cfg
	}
	e.configs.Store(int32(len(byID)))
	m.enqueueLocked(rec.Tenant, id, 1, c.Events, rec.Task, c.Trace, byID)
}

// Task implements Tasks.
func (m *Memory) Task(_ context.Context, tenant, id string) (Record, error) {
	if err := m.checkOpen(); err != nil {
		return Record{}, err
	}
	e := m.entry(tenant, id)
	if e == nil {
		return Record{}, fmt.Errorf("%w: task %q", ErrNotFound, id)
	}
	return e.snapshot(), nil
}

// UpdateTask implements Tasks.
func (m *Memory) UpdateTask(_ context.Context, u Update) (int64, error) {
	if err := m.checkUpdate(u); err != nil {
		return 0, err
	}
	e := m.entry(u.Tenant, u.Task.GetId())
	if e == nil {
		return 0, fmt.Errorf("%w: task %q", ErrNotFound, u.Task.GetId())
	}
	var dropLog *memEntry // an older ended task's, once e's lock is released
	defer func() { dropLog.dropLog() }()
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.rec.Load()
	if err := checkUpdateOf(cur, u); err != nil {
		return 0, err
	}
	next := nextRecord(cur, u)
	v, terminal := next.Version, IsTerminal(u.Task.GetStatus().GetState())
	if terminal && !IsTerminal(cur.Task.GetStatus().GetState()) {
		dropLog = m.endedLogs.push(e)
	}
	m.replace(u.Tenant, e, cur, next)
	if len(u.Events) > 0 && e.configs.Load() > 0 {
		m.queueDeliveries(u, v)
	}
	e.logLocked(cur.Generation, v, u.Events)
	m.broker.Publish(u.Tenant, u.Task.GetId(), v, u.Events, terminal)
	if cur.Runner != next.Runner {
		m.trackRun(e, cur.Runner, next.Runner)
	}
	m.trackState(u.Tenant, e, cur.Task, u.Task)
	return v, nil
}

// checkUpdate refuses an update no task could take, and any write to a
// closed store.
func (m *Memory) checkUpdate(u Update) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	if err := CheckSnapshot(u.Task); err != nil {
		return err
	}
	return CheckUpdate(u)
}

// checkUpdateOf refuses an update of the task at record cur: a task that
// ended, another version than expected, a transition the states forbid.
func checkUpdateOf(cur *Record, u Update) error {
	from, to := cur.Task.GetStatus().GetState(), u.Task.GetStatus().GetState()
	if IsTerminal(from) {
		return fmt.Errorf("%w: task %q is %s", ErrTerminal, u.Task.GetId(), stateName(from))
	}
	if cur.Version != u.Expect {
		return fmt.Errorf("%w: task %q is at version %d, not %d", ErrConflict, u.Task.GetId(), cur.Version, u.Expect)
	}
	return ValidTransition(from, to)
}

// nextRecord is the record u makes of cur: the next version, the runner
// and lease u takes (or cur's), none once the task ended.
func nextRecord(cur *Record, u Update) *Record {
	next := &Record{Tenant: cur.Tenant, Owner: cur.Owner, Version: cur.Version + 1, Generation: NextGeneration(cur.Generation, len(u.Events)),
		Task: u.Task, Runner: cur.Runner, LeaseUntil: cur.LeaseUntil}
	if u.Runner != "" {
		next.Runner, next.LeaseUntil = u.Runner, u.LeaseUntil
	}
	if IsTerminal(u.Task.GetStatus().GetState()) {
		next.Runner, next.LeaseUntil = "", time.Time{}
	}
	return next
}

// replace publishes next as e's record. When the task moves in its
// listing indexes, it does so under m.mu so that a listing never sees a
// record whose cursor, context or state differs from its place in the
// indexes.
func (m *Memory) replace(tenant string, e *memEntry, cur, next *Record) {
	if !moved(cur.Task, next.Task) {
		e.rec.Store(next)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tenants[tenant]
	live := t != nil && t.tasks[next.Task.GetId()] == e
	if live {
		t.unindexLocked(e)
	}
	e.rec.Store(next)
	if live {
		t.indexLocked(e)
	}
}

// queueDeliveries queues the events of u, written at version v, for the
// task's push configs.
func (m *Memory) queueDeliveries(u Update, v int64) {
	t := m.tenantOf(u.Tenant)
	if t == nil {
		return
	}
	m.pmu.Lock()
	defer m.pmu.Unlock()
	m.enqueueLocked(u.Tenant, u.Task.GetId(), v, u.Events, u.Task, u.Trace, t.configs[u.Task.GetId()])
}

// trackState keeps the retention bookkeeping of a task whose snapshot went
// from cur to next: a task that ended, one that became (or is again)
// interrupted, one that resumed.
func (m *Memory) trackState(tenant string, e *memEntry, cur, next *a2av1.Task) {
	from, to := cur.GetStatus().GetState(), next.GetStatus().GetState()
	switch {
	case IsTerminal(to):
		m.mu.Lock()
		m.endedLocked(tenant, next.GetId(), e)
		m.mu.Unlock()
	case (m.interruptedTTL > 0 || m.tracksWaiting()) && IsInterrupted(to) && (!IsInterrupted(from) || !sameStatusTime(cur, next)):
		m.mu.Lock()
		m.interruptedLocked(tenant, next.GetId(), e)
		m.mu.Unlock()
	case m.tracksWaiting() && IsInterrupted(from) && !IsInterrupted(to):
		m.mu.Lock()
		m.uncountWaitingLocked(e) // resumed
		m.mu.Unlock()
	}
}

// sameStatusTime reports whether two snapshots of a task carry the same
// status time.
func sameStatusTime(a, b *a2av1.Task) bool {
	return a.GetStatus().GetTimestamp().AsTime().Equal(b.GetStatus().GetTimestamp().AsTime())
}

// moved reports whether a task's place in the listing indexes (its cursor,
// context and state) differs between two snapshots. A change that keeps the
// status and the context (an artifact, a message: the snapshots share the
// status) keeps the place without comparing timestamps.
func moved(cur, next *a2av1.Task) bool {
	if cur.GetContextId() != next.GetContextId() {
		return true
	}
	if cur.GetStatus() == next.GetStatus() && cur.GetId() == next.GetId() {
		return false
	}
	return cur.GetStatus().GetState() != next.GetStatus().GetState() || CursorOf(next).Compare(CursorOf(cur)) != 0
}

func (m *Memory) tenantOf(tenant string) *memTenant {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tenants[tenant]
}

// trackRun moves e from the execution records of runner from to those of
// runner to.
func (m *Memory) trackRun(e *memEntry, from, to string) {
	if from == to {
		return
	}
	m.runMu.Lock()
	defer m.runMu.Unlock()
	if set := m.runs[from]; from != "" && set != nil {
		delete(set, e)
		if len(set) == 0 {
			delete(m.runs, from)
		}
	}
	if to != "" {
		set := m.runs[to]
		if set == nil {
			set = make(map[*memEntry]struct{})
			m.runs[to] = set
		}
		set[e] = struct{}{}
	}
}

// RenewRuns implements Tasks.
func (m *Memory) RenewRuns(_ context.Context, runner string, until time.Time) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	m.runMu.Lock()
	entries := make([]*memEntry, 0, len(m.runs[runner]))
	for e := range m.runs[runner] {
		entries = append(entries, e)
	}
	m.runMu.Unlock()
	for _, e := range entries {
		e.mu.Lock()
		cur := e.rec.Load()
		if cur.Runner == runner && !IsTerminal(cur.Task.GetStatus().GetState()) {
			n := *cur
			n.LeaseUntil = until
			e.rec.Store(&n)
		}
		e.mu.Unlock()
	}
	return nil
}

// StaleRuns implements Tasks.
func (m *Memory) StaleRuns(_ context.Context, self string, now time.Time, limit int) ([]Record, error) {
	if err := m.checkOpen(); err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range m.othersRuns(self) {
		rec := e.snapshot()
		if !staleRun(rec, self, now) || m.entry(rec.Tenant, rec.Task.GetId()) != e { // or removed meanwhile
			continue
		}
		out = append(out, rec)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// othersRuns are the entries of the tasks that runners other than self
// run.
func (m *Memory) othersRuns(self string) []*memEntry {
	m.runMu.Lock()
	defer m.runMu.Unlock()
	var entries []*memEntry
	for runner, set := range m.runs {
		if runner != self {
			entries = slices.AppendSeq(entries, maps.Keys(set))
		}
	}
	return entries
}

// staleRun reports whether rec is a run another runner than self left:
// a task still SUBMITTED or WORKING whose lease ended or whose runner's
// process is gone.
func staleRun(rec Record, self string, now time.Time) bool {
	state := rec.Task.GetStatus().GetState()
	if state != a2av1.TaskState_TASK_STATE_SUBMITTED && state != a2av1.TaskState_TASK_STATE_WORKING {
		return false
	}
	return rec.Runner != "" && rec.Runner != self && (rec.LeaseUntil.Before(now) || RunnerGone(self, rec.Runner))
}

// ListTasks implements Tasks. It costs O(Limit + log n): the page is
// walked from its cursor in the index of exactly the tasks the filters
// select (owner, context, state; memory_index.go), and Total is counted
// from the index's subtree sizes. The walk holds the store's lock for
// reading only (writers wait for at most one page); expired tasks are
// swept under the write lock first, so that the counts are exact.
func (m *Memory) ListTasks(_ context.Context, tenant string, q Query) (Page, error) {
	if err := m.checkOpen(); err != nil {
		return Page{}, err
	}
	if q.Limit < 1 {
		return Page{}, fmt.Errorf("store: list limit %d must be positive", q.Limit)
	}
	m.mu.RLock()
	for m.sweepDueLocked() {
		m.mu.RUnlock()
		m.mu.Lock()
		m.sweepLocked()
		m.sweepInterruptedLocked()
		m.mu.Unlock()
		m.mu.RLock()
	}
	defer m.mu.RUnlock()
	page := Page{Records: make([]Record, 0, min(q.Limit, 64))}
	t := m.tenants[tenant]
	if t == nil {
		return page, nil
	}
	x := t.lists[listKey{owner: q.Owner, context: q.ContextID, state: q.State}]
	if x == nil {
		return page, nil
	}
	// Tasks updated before UpdatedAfter are at the end of the order.
	var stop *Cursor
	page.Total = x.len()
	if !q.UpdatedAfter.IsZero() {
		stop = &Cursor{Time: q.UpdatedAfter}
		page.Total = x.before(*stop)
	}
	x.walk(q.After, func(e *memEntry) bool {
		if stop != nil && e.key.Compare(*stop) >= 0 {
			return false
		}
		if len(page.Records) == q.Limit {
			page.More = true
			return false
		}
		page.Records = append(page.Records, *e.rec.Load())
		return true
	})
	return page, nil
}

// Subscribe implements Subscriptions.
func (m *Memory) Subscribe(ctx context.Context, tenant, id string, f Follow) (Record, Subscription, error) {
	if err := m.checkOpen(); err != nil {
		return Record{}, nil, err
	}
	return m.broker.Subscribe(ctx, tenant, id, f, func(ctx context.Context) (Record, error) { return m.Task(ctx, tenant, id) })
}

// logLocked appends the events of a write at version v to the log of a task
// that was at generation g, dropping the oldest beyond MemoryEventLogLen.
func (e *memEntry) logLocked(g, v int64, events []*a2av1.StreamResponse) {
	if len(events) == 0 {
		return
	}
	if over := len(e.log) + len(events) - MemoryEventLogLen; over > 0 {
		if over >= len(e.log) {
			e.log = e.log[:0]
		} else {
			e.log = append(e.log[:0], e.log[over:]...)
		}
	}
	for i, ev := range events {
		e.log = append(e.log, LoggedEvent{Generation: g + int64(i) + 1, Version: v, Response: ev})
	}
	if over := len(e.log) - MemoryEventLogLen; over > 0 {
		e.log = append(e.log[:0], e.log[over:]...)
	}
}

// TaskEvents implements Subscriptions.
func (m *Memory) TaskEvents(_ context.Context, tenant, id string, after, upTo int64) ([]LoggedEvent, error) {
	if err := m.checkOpen(); err != nil {
		return nil, err
	}
	e := m.entry(tenant, id)
	if e == nil {
		return nil, fmt.Errorf("%w: task %q", ErrNotFound, id)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []LoggedEvent
	for _, ev := range e.log {
		if ev.Generation > after && ev.Generation <= upTo {
			out = append(out, ev)
		}
	}
	return out, nil
}

// SavePushConfig implements PushConfigs.
func (m *Memory) SavePushConfig(_ context.Context, tenant string, cfg PushConfig) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	if cfg.GetTaskId() == "" || cfg.GetId() == "" {
		return fmt.Errorf("store: push config needs a task id and an id (got task %q, id %q)", cfg.GetTaskId(), cfg.GetId())
	}
	if err := CheckPushConfig(tenant, cfg.TaskPushNotificationConfig); err != nil {
		return err
	}
	m.mu.RLock()
	t := m.tenants[tenant]
	live := m.liveLocked(t, cfg.GetTaskId())
	var e *memEntry
	if live {
		e = t.tasks[cfg.GetTaskId()]
	}
	m.mu.RUnlock()
	if !live {
		return fmt.Errorf("%w: task %q", ErrNotFound, cfg.GetTaskId())
	}
	m.pmu.Lock()
	defer m.pmu.Unlock()
	byID := t.configs[cfg.GetTaskId()]
	if byID == nil {
		byID = make(map[string]PushConfig)
		t.configs[cfg.GetTaskId()] = byID
	}
	byID[cfg.GetId()] = cfg
	e.configs.Store(int32(len(byID)))
	m.outbox.replaceConfig(tenant, cfg.TaskPushNotificationConfig)
	return nil
}

// PushConfig implements PushConfigs.
func (m *Memory) PushConfig(_ context.Context, tenant, taskID, id string) (PushConfig, error) {
	if err := m.checkOpen(); err != nil {
		return PushConfig{}, err
	}
	if t := m.liveTenant(tenant, taskID); t != nil {
		m.pmu.Lock()
		cfg, ok := t.configs[taskID][id]
		m.pmu.Unlock()
		if ok {
			return cfg, nil
		}
	}
	return PushConfig{}, fmt.Errorf("%w: push config %q of task %q", ErrNotFound, id, taskID)
}

// liveTenant returns the tenant when it holds the live task, else nil.
func (m *Memory) liveTenant(tenant, taskID string) *memTenant {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.tenants[tenant]; m.liveLocked(t, taskID) {
		return t
	}
	return nil
}

// ListPushConfigs implements PushConfigs.
func (m *Memory) ListPushConfigs(_ context.Context, tenant, taskID, after string, limit int) ([]PushConfig, bool, error) {
	if err := m.checkOpen(); err != nil {
		return nil, false, err
	}
	var all []PushConfig
	if t := m.liveTenant(tenant, taskID); t != nil {
		m.pmu.Lock()
		for id, cfg := range t.configs[taskID] {
			if id > after {
				all = append(all, cfg)
			}
		}
		m.pmu.Unlock()
	}
	slices.SortFunc(all, func(a, b PushConfig) int { return strings.Compare(a.GetId(), b.GetId()) })
	if limit > 0 && len(all) > limit {
		return all[:limit], true, nil
	}
	return all, false, nil
}

// DeletePushConfig implements PushConfigs.
func (m *Memory) DeletePushConfig(_ context.Context, tenant, taskID, id string) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	m.mu.RLock()
	t := m.tenants[tenant]
	var e *memEntry
	if t != nil {
		e = t.tasks[taskID]
	}
	m.mu.RUnlock()
	m.pmu.Lock()
	defer m.pmu.Unlock()
	if t != nil {
		delete(t.configs[taskID], id)
		if e != nil {
			e.configs.Store(int32(len(t.configs[taskID])))
		}
	}
	return nil
}
