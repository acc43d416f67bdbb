package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// The in-memory outbox: one queue per webhook config, in write order. Only
// the head of a queue can be claimed, which gives per-config order. Guarded
// by Memory.pmu.

type outboxKey struct{ tenant, taskID, configID string }

type memDelivery struct {
	Delivery
	key        outboxKey
	due        time.Time // next attempt
	leaseOwner string
	leaseUntil time.Time
}

type memOutbox struct {
	queues  map[outboxKey][]*memDelivery
	byID    map[string]*memDelivery
	wake    chan struct{}
	dropped int64
}

func (o *memOutbox) init() {
	o.queues = make(map[outboxKey][]*memDelivery)
	o.byID = make(map[string]*memDelivery)
	o.wake = make(chan struct{}, 1)
}

// MemoryStats are counters of the in-memory store.
type MemoryStats struct {
	// PendingDeliveries is the number of deliveries in the outbox.
	PendingDeliveries int
	// DroppedDeliveries counts deliveries not queued because their config
	// already had WithMaxPendingDeliveries waiting.
	DroppedDeliveries int64
}

// Stats returns the store's counters.
func (m *Memory) Stats() MemoryStats {
	m.pmu.Lock()
	defer m.pmu.Unlock()
	return MemoryStats{PendingDeliveries: len(m.outbox.byID), DroppedDeliveries: m.outbox.dropped}
}

// enqueueLocked queues every event of a write for every config (a config
// that wants the task, TaskPayload, gets one delivery of task instead);
// called with m.pmu held.
func (m *Memory) enqueueLocked(tenant, taskID string, version int64, events []*a2av1.StreamResponse, task *a2av1.Task, trace TraceContext, configs map[string]PushConfig) {
	if len(events) == 0 || len(configs) == 0 {
		return
	}
	ids := make([]string, 0, len(configs))
	for id := range configs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	now := m.now()
	queued := false
	last := len(events) - 1
	var snapshot *a2av1.StreamResponse // the task as a payload, made once
	for i, ev := range events {
		for _, cid := range ids {
			cfg := configs[cid]
			payload := ev
			if TaskPayload(cfg.ProtocolVersion) {
				if i != last {
					continue
				}
				if snapshot == nil {
					snapshot = taskEvent(task)
				}
				payload = snapshot
			}
			k := outboxKey{tenant, taskID, cid}
			q := m.outbox.queues[k]
			if len(q) >= m.maxPending {
				m.outbox.dropped++
				continue
			}
			d := &memDelivery{
				Delivery: Delivery{ID: DeliveryID(tenant, taskID, version, i, cid), Tenant: tenant, Config: cfg.TaskPushNotificationConfig,
					Event: payload, ProtocolVersion: cfg.ProtocolVersion, Trace: trace},
				key: k,
				due: now,
			}
			m.outbox.queues[k] = append(q, d)
			m.outbox.byID[d.ID] = d
			queued = true
		}
	}
	if queued {
		select {
		case m.outbox.wake <- struct{}{}:
		default:
		}
	}
}

// replaceConfig points the pending deliveries of cfg at its new version.
func (o *memOutbox) replaceConfig(tenant string, cfg *a2av1.TaskPushNotificationConfig) {
	for _, d := range o.queues[outboxKey{tenant, cfg.GetTaskId(), cfg.GetId()}] {
		d.Config = cfg
	}
}

// ClaimDeliveries implements Outbox.
func (m *Memory) ClaimDeliveries(_ context.Context, c Claim) ([]Delivery, error) {
	if err := m.checkOpen(); err != nil {
		return nil, err
	}
	if c.Max < 1 {
		return nil, fmt.Errorf("store: claim of %d deliveries; Max must be at least 1", c.Max)
	}
	m.pmu.Lock()
	defer m.pmu.Unlock()
	var heads []*memDelivery
	for _, q := range m.outbox.queues {
		h := q[0]
		if h.due.After(c.Now) || h.leaseUntil.After(c.Now) {
			continue
		}
		heads = append(heads, h)
	}
	// Oldest due first, so that no config waits behind others for long.
	slices.SortFunc(heads, func(a, b *memDelivery) int {
		if cmp := a.due.Compare(b.due); cmp != 0 {
			return cmp
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(heads) > c.Max {
		heads = heads[:c.Max]
	}
	out := make([]Delivery, len(heads))
	for i, h := range heads {
		h.leaseOwner, h.leaseUntil = c.Worker, c.Now.Add(c.Lease)
		out[i] = h.Delivery
	}
	return out, nil
}

// FinishDelivery implements Outbox.
func (m *Memory) FinishDelivery(_ context.Context, id string) error {
	return m.withDelivery(id, func(d *memDelivery) error {
		if d == nil {
			return nil
		}
		delete(m.outbox.byID, id)
		q := m.outbox.queues[d.key]
		if i := slices.Index(q, d); i >= 0 {
			q = slices.Delete(q, i, i+1)
		}
		if len(q) == 0 {
			delete(m.outbox.queues, d.key)
		} else {
			m.outbox.queues[d.key] = q
		}
		return nil
	})
}

// RetryDelivery implements Outbox.
func (m *Memory) RetryDelivery(_ context.Context, id string, attempts int, at time.Time) error {
	return m.withDelivery(id, func(d *memDelivery) error {
		if d == nil {
			return fmt.Errorf("%w: delivery %q", ErrNotFound, id)
		}
		d.Attempts, d.due = attempts, at
		d.leaseOwner, d.leaseUntil = "", time.Time{}
		return nil
	})
}

// withDelivery runs f under the outbox's lock on delivery id, nil when
// none is queued, unless the store is closed.
func (m *Memory) withDelivery(id string, f func(*memDelivery) error) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	m.pmu.Lock()
	defer m.pmu.Unlock()
	return f(m.outbox.byID[id])
}

// NextDelivery implements Outbox.
func (m *Memory) NextDelivery(context.Context) (time.Time, bool, error) {
	if err := m.checkOpen(); err != nil {
		return time.Time{}, false, err
	}
	m.pmu.Lock()
	defer m.pmu.Unlock()
	var next time.Time
	found := false
	for _, q := range m.outbox.queues {
		at := q[0].due
		if q[0].leaseUntil.After(at) {
			at = q[0].leaseUntil
		}
		if !found || at.Before(next) {
			next, found = at, true
		}
	}
	return next, found, nil
}

// DeliveriesQueued implements Outbox.
func (m *Memory) DeliveriesQueued() <-chan struct{} { return m.outbox.wake }
