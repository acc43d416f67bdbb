package store

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// DefaultSubscriberBuffer is how many events a subscriber of the in-memory
// store may lag behind before it is dropped with ErrSlowSubscriber.
const DefaultSubscriberBuffer = 128

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

// WithTerminalTaskTTL removes a task, with its push-notification configs,
// once it has been in a terminal state for longer than d: from then on the
// store reports it not found (GetTask answers TaskNotFound) and listings leave
// it out. Tasks that have not ended are never removed. d <= 0 (the default)
// keeps terminal tasks until the process ends.
func WithTerminalTaskTTL(d time.Duration) MemoryOption {
	return func(m *Memory) { m.ttl = max(d, 0) }
}

// WithMaxTerminalTasks keeps at most n terminal tasks in the store (over all
// tenants): when one more task ends, the task that ended first is removed,
// with its push-notification configs. Tasks that have not ended are never
// removed and do not count. n <= 0 (the default) sets no limit.
func WithMaxTerminalTasks(n int) MemoryOption {
	return func(m *Memory) { m.maxTerminal = max(n, 0) }
}

// Memory is the in-memory Store. By default it keeps everything until the
// process ends; WithTerminalTaskTTL and WithMaxTerminalTasks bound what it
// keeps of finished tasks. It delivers events to subscribers without blocking
// the writer, and is safe for concurrent use. Reads of a task take no lock on
// the task: records are immutable and published atomically.
type Memory struct {
	mu      sync.RWMutex
	tenants map[string]*memTenant
	buffer  int

	// Retention of terminal tasks (retention.go); guarded by mu.
	ttl         time.Duration
	maxTerminal int
	now         func() time.Time
	ended       endedQueue
}

type memTenant struct {
	tasks   map[string]*memEntry
	configs map[string]map[string]*a2av1.TaskPushNotificationConfig // task id → config id → config
}

// memEntry is one task: its current record and its subscribers. mu
// serialises writes and subscriber changes, so every subscriber sees the
// events of the task in the same order; the record is published atomically
// so that readers take no lock.
type memEntry struct {
	mu   sync.Mutex
	rec  atomic.Pointer[Record]
	subs []*memSub // guarded by mu

	endedAt time.Time // when the task became terminal, if retention is on; guarded by Memory.mu
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory(opts ...MemoryOption) *Memory {
	m := &Memory{tenants: make(map[string]*memTenant), buffer: DefaultSubscriberBuffer, now: time.Now}
	for _, o := range opts {
		o(m)
	}
	return m
}

// liveLocked reports whether tenant t holds the task and it has not outlived
// WithTerminalTaskTTL. Called with m.mu held.
func (m *Memory) liveLocked(t *memTenant, id string) bool {
	if t == nil {
		return false
	}
	e := t.tasks[id]
	return e != nil && !m.expiredLocked(e)
}

// entry returns the live entry of a task, or nil when there is none or it
// has outlived WithTerminalTaskTTL.
func (m *Memory) entry(tenant, id string) *memEntry {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.tenants[tenant]; m.liveLocked(t, id) {
		return t.tasks[id]
	}
	return nil
}

func (e *memEntry) snapshot() Record { return *e.rec.Load() }

// CreateTask implements Store.
func (m *Memory) CreateTask(_ context.Context, rec Record) (Record, error) {
	if err := CheckSnapshot(rec.Task); err != nil {
		return Record{}, err
	}
	rec.Version = 1
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked() // a task past its TTL must not block its id
	t := m.tenants[rec.Tenant]
	if t == nil {
		t = &memTenant{tasks: make(map[string]*memEntry), configs: make(map[string]map[string]*a2av1.TaskPushNotificationConfig)}
		m.tenants[rec.Tenant] = t
	}
	if _, dup := t.tasks[rec.Task.GetId()]; dup {
		return Record{}, fmt.Errorf("%w: task %q", ErrExists, rec.Task.GetId())
	}
	e := &memEntry{}
	e.rec.Store(&rec)
	t.tasks[rec.Task.GetId()] = e
	if IsTerminal(rec.Task.GetStatus().GetState()) {
		m.endedLocked(rec.Tenant, rec.Task.GetId(), e)
	}
	return rec, nil
}

// Task implements Store.
func (m *Memory) Task(_ context.Context, tenant, id string) (Record, error) {
	e := m.entry(tenant, id)
	if e == nil {
		return Record{}, fmt.Errorf("%w: task %q", ErrNotFound, id)
	}
	return e.snapshot(), nil
}

// UpdateTask implements Store.
func (m *Memory) UpdateTask(_ context.Context, u Update) (int64, error) {
	if err := CheckSnapshot(u.Task); err != nil {
		return 0, err
	}
	e := m.entry(u.Tenant, u.Task.GetId())
	if e == nil {
		return 0, fmt.Errorf("%w: task %q", ErrNotFound, u.Task.GetId())
	}
	v, err := e.update(u)
	if err == nil && IsTerminal(u.Task.GetStatus().GetState()) {
		m.mu.Lock()
		m.endedLocked(u.Tenant, u.Task.GetId(), e)
		m.mu.Unlock()
	}
	return v, err
}

// update is UpdateTask on the entry of the task.
func (e *memEntry) update(u Update) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.rec.Load()
	from, to := cur.Task.GetStatus().GetState(), u.Task.GetStatus().GetState()
	if IsTerminal(from) {
		return 0, fmt.Errorf("%w: task %q is %s", ErrTerminal, u.Task.GetId(), stateName(from))
	}
	if cur.Version != u.Expect {
		return 0, fmt.Errorf("%w: task %q is at version %d, not %d", ErrConflict, u.Task.GetId(), cur.Version, u.Expect)
	}
	if err := ValidTransition(from, to); err != nil {
		return 0, err
	}
	v := cur.Version + 1
	e.rec.Store(&Record{Tenant: cur.Tenant, Owner: cur.Owner, Version: v, Task: u.Task})
	if len(e.subs) > 0 {
		e.publish(v, u.Events)
	}
	if IsTerminal(to) {
		for _, s := range e.subs {
			s.endLocked(nil)
		}
		e.subs = nil
	}
	return v, nil
}

// publish hands events to every subscriber without blocking; a subscriber
// whose buffer is full is dropped. Called with e.mu held.
func (e *memEntry) publish(version int64, events []*a2av1.StreamResponse) {
	for i := 0; i < len(e.subs); {
		s := e.subs[i]
		ok := true
		for _, ev := range events {
			select {
			case s.ch <- Event{Version: version, Response: ev}:
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			i++
			continue
		}
		e.removeLocked(i)
		s.endLocked(ErrSlowSubscriber)
	}
}

// removeLocked drops subscriber i (order among subscribers does not matter).
func (e *memEntry) removeLocked(i int) {
	last := len(e.subs) - 1
	e.subs[i] = e.subs[last]
	e.subs[i].idx = i
	e.subs[last] = nil
	e.subs = e.subs[:last]
}

// ListTasks implements Store.
func (m *Memory) ListTasks(_ context.Context, tenant string, q Query) (Page, error) {
	if q.Limit < 1 {
		return Page{}, fmt.Errorf("store: list limit %d must be positive", q.Limit)
	}
	m.mu.RLock()
	t := m.tenants[tenant]
	var entries []*memEntry
	if t != nil {
		entries = make([]*memEntry, 0, len(t.tasks))
		for _, e := range t.tasks {
			if !m.expiredLocked(e) {
				entries = append(entries, e)
			}
		}
	}
	m.mu.RUnlock()

	type item struct {
		rec Record
		cur Cursor
	}
	matches := make([]item, 0, len(entries))
	for _, e := range entries {
		rec := e.snapshot()
		task := rec.Task
		switch {
		case rec.Owner != q.Owner,
			q.ContextID != "" && task.GetContextId() != q.ContextID,
			q.State != a2av1.TaskState_TASK_STATE_UNSPECIFIED && task.GetStatus().GetState() != q.State:
			continue
		}
		c := CursorOf(task)
		if !q.UpdatedAfter.IsZero() && c.Time.Before(q.UpdatedAfter) {
			continue
		}
		matches = append(matches, item{rec, c})
	}
	sort.Slice(matches, func(i, j int) bool { return matches[i].cur.Compare(matches[j].cur) < 0 })
	start := 0
	if q.After != nil {
		start = sort.Search(len(matches), func(i int) bool { return matches[i].cur.Compare(*q.After) > 0 })
	}
	end := min(start+q.Limit, len(matches))
	page := Page{Total: len(matches), More: end < len(matches), Records: make([]Record, 0, end-start)}
	for _, it := range matches[start:end] {
		page.Records = append(page.Records, it.rec)
	}
	return page, nil
}

// Subscribe implements Store.
func (m *Memory) Subscribe(ctx context.Context, tenant, id string) (Record, Subscription, error) {
	e := m.entry(tenant, id)
	if e == nil {
		return Record{}, nil, fmt.Errorf("%w: task %q", ErrNotFound, id)
	}
	s := &memSub{e: e}
	e.mu.Lock()
	rec := *e.rec.Load()
	if IsTerminal(rec.Task.GetStatus().GetState()) {
		s.ch = make(chan Event)
		s.endLocked(nil)
		e.mu.Unlock()
		return rec, s, nil
	}
	s.ch = make(chan Event, m.buffer)
	s.idx = len(e.subs)
	e.subs = append(e.subs, s)
	e.mu.Unlock()
	if ctx.Done() != nil {
		s.stop = context.AfterFunc(ctx, func() { s.end(ctx.Err()) })
	}
	return rec, s, nil
}

// memSub is a subscription of the in-memory store. Its fields are guarded by
// the entry's mutex.
type memSub struct {
	e     *memEntry
	ch    chan Event
	idx   int // position in e.subs while live
	ended bool
	err   error
	stop  func() bool // stops the context callback
}

func (s *memSub) Events() <-chan Event { return s.ch }

func (s *memSub) Err() error {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	return s.err
}

func (s *memSub) Close() {
	s.end(nil)
	if s.stop != nil {
		s.stop()
	}
}

// end ends the subscription with err (unless it already ended).
func (s *memSub) end(err error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.ended {
		return
	}
	if s.idx < len(s.e.subs) && s.e.subs[s.idx] == s {
		s.e.removeLocked(s.idx)
	}
	s.endLocked(err)
}

// endLocked marks the subscription ended and closes its channel; the caller
// holds e.mu and has removed it from e.subs.
func (s *memSub) endLocked(err error) {
	if s.ended {
		return
	}
	s.ended = true
	s.err = err
	close(s.ch)
}

// SavePushConfig implements Store.
func (m *Memory) SavePushConfig(_ context.Context, tenant string, cfg *a2av1.TaskPushNotificationConfig) error {
	if cfg.GetTaskId() == "" || cfg.GetId() == "" {
		return fmt.Errorf("store: push config needs a task id and an id (got task %q, id %q)", cfg.GetTaskId(), cfg.GetId())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tenants[tenant]
	if !m.liveLocked(t, cfg.GetTaskId()) {
		return fmt.Errorf("%w: task %q", ErrNotFound, cfg.GetTaskId())
	}
	byID := t.configs[cfg.GetTaskId()]
	if byID == nil {
		byID = make(map[string]*a2av1.TaskPushNotificationConfig)
		t.configs[cfg.GetTaskId()] = byID
	}
	byID[cfg.GetId()] = cfg
	return nil
}

// PushConfig implements Store.
func (m *Memory) PushConfig(_ context.Context, tenant, taskID, id string) (*a2av1.TaskPushNotificationConfig, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.tenants[tenant]; m.liveLocked(t, taskID) {
		if cfg := t.configs[taskID][id]; cfg != nil {
			return cfg, nil
		}
	}
	return nil, fmt.Errorf("%w: push config %q of task %q", ErrNotFound, id, taskID)
}

// ListPushConfigs implements Store.
func (m *Memory) ListPushConfigs(_ context.Context, tenant, taskID, after string, limit int) ([]*a2av1.TaskPushNotificationConfig, bool, error) {
	m.mu.RLock()
	var all []*a2av1.TaskPushNotificationConfig
	if t := m.tenants[tenant]; m.liveLocked(t, taskID) {
		for id, cfg := range t.configs[taskID] {
			if id > after {
				all = append(all, cfg)
			}
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(all, func(a, b *a2av1.TaskPushNotificationConfig) int { return strings.Compare(a.GetId(), b.GetId()) })
	if limit > 0 && len(all) > limit {
		return all[:limit], true, nil
	}
	return all, false, nil
}

// DeletePushConfig implements Store.
func (m *Memory) DeletePushConfig(_ context.Context, tenant, taskID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.tenants[tenant]; t != nil {
		delete(t.configs[taskID], id)
	}
	return nil
}
