package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// ---- Push configs ----

type saveConfigOp struct {
	opBase
	tenant string
	cfg    store.PushConfig
	blob   []byte
	pushes int64 // the task's number of configs after the write
}

func (o *saveConfigOp) what() string {
	return fmt.Sprintf("saving push config %q of task %q", o.cfg.GetId(), o.cfg.GetTaskId())
}

// SavePushConfig implements store.PushConfigs.
func (s *Store) SavePushConfig(ctx context.Context, tenant string, cfg store.PushConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if cfg.GetTaskId() == "" || cfg.GetId() == "" {
		return fmt.Errorf("store: push config needs a task id and an id (got task %q, id %q)", cfg.GetTaskId(), cfg.GetId())
	}
	if err := store.CheckPushConfig(tenant, cfg.TaskPushNotificationConfig); err != nil {
		return err
	}
	b, err := proto.Marshal(cfg.TaskPushNotificationConfig)
	if err != nil {
		return fmt.Errorf("sqlite store %s: encoding push config %q: %w", s.path, cfg.GetId(), err)
	}
	return s.submit(ctx, &saveConfigOp{tenant: tenant, cfg: cfg, blob: b})
}

func (o *saveConfigOp) apply(w *writer, now int64) (error, error) {
	st := &w.st
	taskID, id := o.cfg.GetTaskId(), o.cfg.GetId()
	var version, state, statusTime int64
	var endedAt sql.NullInt64
	err := st.taskState.QueryRow(o.tenant, taskID).Scan(&version, &state, &endedAt, &statusTime)
	switch {
	case errors.Is(err, sql.ErrNoRows), err == nil && (w.s.expired(endedAt, now) || w.s.waitedOut(state, statusTime, now)):
		return fmt.Errorf("%w: task %q", store.ErrNotFound, taskID), nil
	case err != nil:
		return nil, dbErr("reading the task", err)
	}
	if _, err := st.upsertConfig.Exec(o.tenant, taskID, id, o.blob, o.cfg.ProtocolVersion); err != nil {
		return nil, dbErr("storing the config", err)
	}
	// Deliveries still pending go to the new config.
	if _, err := st.updateOutboxConfig.Exec(o.tenant, taskID, id, o.blob); err != nil {
		return nil, dbErr("updating pending deliveries", err)
	}
	if err := st.countConfigs.QueryRow(o.tenant, taskID).Scan(&o.pushes); err != nil {
		return nil, dbErr("counting configs", err)
	}
	return nil, nil
}

func (o *saveConfigOp) committed(c *recordCache) {
	c.change(o.tenant, o.cfg.GetTaskId(), func(v *cached) { v.pushes = o.pushes })
}

// PushConfig implements store.PushConfigs.
func (s *Store) PushConfig(ctx context.Context, tenant, taskID, id string) (store.PushConfig, error) {
	if err := s.checkOpen(); err != nil {
		return store.PushConfig{}, err
	}
	row := s.read.config.QueryRowContext(ctx, tenant, taskID, s.liveSince(), id, s.waitingSince())
	return s.names.ReadConfig(row, sql.ErrNoRows, taskID, id, s.readErr)
}

// ListPushConfigs implements store.PushConfigs.
func (s *Store) ListPushConfigs(ctx context.Context, tenant, taskID, after string, limit int) ([]store.PushConfig, bool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, false, err
	}
	n := int64(-1)
	if limit > 0 {
		n = int64(limit) + 1
	}
	rows, err := s.read.configs.QueryContext(ctx, tenant, taskID, s.liveSince(), after, n, s.waitingSince())
	if err != nil {
		return nil, false, s.readErr(fmt.Sprintf("listing push configs of task %q", taskID), err)
	}
	defer rows.Close()
	return s.names.ReadConfigs(rows, limit, func(err error) error {
		return s.readErr(fmt.Sprintf("listing push configs of task %q", taskID), err)
	})
}

type deleteConfigOp struct {
	opBase
	tenant, taskID, id string
	counted            bool  // a config was deleted and counted again:
	pushes             int64 // the task's number of configs after the write
}

func (o *deleteConfigOp) what() string {
	return fmt.Sprintf("deleting push config %q of task %q", o.id, o.taskID)
}

// DeletePushConfig implements store.PushConfigs.
func (s *Store) DeletePushConfig(ctx context.Context, tenant, taskID, id string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.submit(ctx, &deleteConfigOp{tenant: tenant, taskID: taskID, id: id})
}

func (o *deleteConfigOp) apply(w *writer, _ int64) (error, error) {
	st := &w.st
	o.counted = false
	res, err := st.deleteConfig.Exec(o.tenant, o.taskID, o.id)
	if err != nil {
		return nil, dbErr("deleting the config", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, dbErr("deleting the config", err)
	} else if n > 0 {
		err := st.countConfigs.QueryRow(o.tenant, o.taskID).Scan(&o.pushes)
		switch {
		case err == nil:
			o.counted = true
		case !errors.Is(err, sql.ErrNoRows): // no task: configs of a removed task
			return nil, dbErr("counting configs", err)
		}
	}
	return nil, nil
}

func (o *deleteConfigOp) committed(c *recordCache) {
	if o.counted {
		c.change(o.tenant, o.taskID, func(v *cached) { v.pushes = o.pushes })
	}
}

// ---- Outbox ----

// claimedRow is a claimed delivery before decoding (decoding happens in
// the caller, not in the writer).
type claimedRow struct {
	seq, next     int64
	id, tenant    string
	config, event []byte
	version       string // the delivery's protocol version
	attempts      int
	trace         store.TraceContext
}

type claimOp struct {
	opBase
	c    store.Claim
	rows []claimedRow
}

func (o *claimOp) what() string { return "claiming deliveries" }

// ClaimDeliveries implements store.Outbox.
func (s *Store) ClaimDeliveries(ctx context.Context, c store.Claim) ([]store.Delivery, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if c.Max < 1 {
		return nil, fmt.Errorf("store: claim of %d deliveries; Max must be at least 1", c.Max)
	}
	// An idle dispatcher's polls need not queue for the writer.
	var due bool
	if err := s.read.anyDue.QueryRowContext(ctx, sqlrecord.Nanos(c.Now)).Scan(&due); err != nil {
		return nil, s.readErr("reading the outbox", err)
	}
	if !due {
		return nil, nil
	}
	o := &claimOp{c: c}
	if err := s.submit(ctx, o); err != nil {
		return nil, err
	}
	// Oldest due first, as the claim chose them.
	slices.SortFunc(o.rows, func(a, b claimedRow) int {
		return cmp.Or(cmp.Compare(a.next, b.next), cmp.Compare(a.seq, b.seq))
	})
	out := make([]store.Delivery, len(o.rows))
	for i, r := range o.rows {
		cfg, err := s.names.DecodeConfig(r.config)
		if err != nil {
			return nil, err
		}
		ev, err := store.UnmarshalDeliveryEvent(r.version, r.event)
		if err != nil {
			return nil, fmt.Errorf("sqlite store %s: decoding the event of delivery %q: %w", s.path, r.id, err)
		}
		out[i] = store.Delivery{ID: r.id, Tenant: r.tenant, Config: cfg, Event: ev, ProtocolVersion: r.version, Attempts: r.attempts, Trace: r.trace}
	}
	return out, nil
}

func (o *claimOp) apply(w *writer, _ int64) (error, error) {
	now := sqlrecord.Nanos(o.c.Now)
	rows, err := w.st.claim.Query(now, int64(o.c.Max), o.c.Worker, sqlrecord.Nanos(o.c.Now.Add(o.c.Lease)))
	if err != nil {
		return nil, dbErr("leasing deliveries", err)
	}
	defer rows.Close()
	o.rows = o.rows[:0]
	for rows.Next() {
		var r claimedRow
		if err := rows.Scan(&r.seq, &r.id, &r.tenant, &r.config, &r.event, &r.attempts, &r.next, &r.trace.Parent, &r.trace.State, &r.version); err != nil {
			return nil, dbErr("leasing deliveries", err)
		}
		o.rows = append(o.rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("leasing deliveries", err)
	}
	return nil, nil
}

type finishOp struct {
	opBase
	id string
}

func (o *finishOp) what() string { return "finishing delivery " + strconv.Quote(o.id) }

// FinishDelivery implements store.Outbox.
func (s *Store) FinishDelivery(ctx context.Context, id string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.submit(ctx, &finishOp{id: id})
}

func (o *finishOp) apply(w *writer, _ int64) (error, error) {
	rows, err := w.st.finish.Query(o.id)
	if err != nil {
		return nil, dbErr("deleting the delivery", err)
	}
	type queue struct{ tenant, taskID, configID string }
	var heads []queue
	for rows.Next() {
		var q queue
		var head bool
		if err := rows.Scan(&q.tenant, &q.taskID, &q.configID, &head); err != nil {
			rows.Close()
			return nil, dbErr("deleting the delivery", err)
		}
		if head {
			heads = append(heads, q)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, dbErr("deleting the delivery", err)
	}
	// The next delivery of the config becomes claimable.
	for _, q := range heads {
		if _, err := w.st.promote.Exec(q.tenant, q.taskID, q.configID); err != nil {
			return nil, dbErr("advancing the queue", err)
		}
	}
	return nil, nil
}

type retryOp struct {
	opBase
	id       string
	attempts int
	at       int64
}

func (o *retryOp) what() string { return "rescheduling delivery " + strconv.Quote(o.id) }

// RetryDelivery implements store.Outbox.
func (s *Store) RetryDelivery(ctx context.Context, id string, attempts int, at time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.submit(ctx, &retryOp{id: id, attempts: attempts, at: sqlrecord.Nanos(at)})
}

func (o *retryOp) apply(w *writer, _ int64) (error, error) {
	res, err := w.st.retry.Exec(o.id, int64(o.attempts), o.at)
	if err != nil {
		return nil, dbErr("rescheduling the delivery", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, dbErr("rescheduling the delivery", err)
	}
	if n == 0 {
		return fmt.Errorf("%w: delivery %q", store.ErrNotFound, o.id), nil
	}
	return nil, nil
}

// NextDelivery implements store.Outbox.
func (s *Store) NextDelivery(ctx context.Context) (time.Time, bool, error) {
	if err := s.checkOpen(); err != nil {
		return time.Time{}, false, err
	}
	var next sql.NullInt64
	if err := s.read.nextDelivery.QueryRowContext(ctx).Scan(&next); err != nil {
		return time.Time{}, false, s.readErr("reading the outbox", err)
	}
	if !next.Valid {
		return time.Time{}, false, nil
	}
	return time.Unix(0, next.Int64), true, nil
}

// DeliveriesQueued implements store.Outbox.
func (s *Store) DeliveriesQueued() <-chan struct{} { return s.wake }
