package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// ---- Push configs ----

// SavePushConfig implements store.PushConfigs.
func (s *Store) SavePushConfig(ctx context.Context, tenant string, cfg store.PushConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	taskID, id := cfg.GetTaskId(), cfg.GetId()
	if taskID == "" || id == "" {
		return fmt.Errorf("store: push config needs a task id and an id (got task %q, id %q)", taskID, id)
	}
	if err := store.CheckPushConfig(tenant, cfg.TaskPushNotificationConfig); err != nil {
		return err
	}
	blob, err := proto.Marshal(cfg.TaskPushNotificationConfig)
	if err != nil {
		return fmt.Errorf("postgres store %s: encoding push config %q: %w", s.name, id, err)
	}
	what := fmt.Sprintf("saving push config %q of task %q", id, taskID)
	n, err := s.configBatch(ctx, tenant, taskID, sqlSaveConfig, tenant, taskID, id, blob, s.liveSince(), s.waitingSince(), cfg.ProtocolVersion)
	if err != nil {
		return s.dbErr(what, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: task %q", store.ErrNotFound, taskID)
	}
	s.configured.Store(topicKey{tenant, taskID}, struct{}{})
	return nil
}

// configBatch runs a change of a task's push configs: the lock of the task's
// row (which makes concurrent task writes retry with the new configs), the
// change and the new count of configs, in one transaction and one round
// trip. It returns the count the change reports.
func (s *Store) configBatch(ctx context.Context, tenant, taskID, sql string, args ...any) (int64, error) {
	b := &pgx.Batch{}
	b.Queue(sqlLockTaskConfigs, tenant, taskID)
	b.Queue(sql, args...)
	b.Queue(sqlCountConfigs, tenant, taskID)
	br := s.pool.SendBatch(ctx, b)
	_, err := br.Exec()
	var n int64
	if err == nil {
		err = br.QueryRow().Scan(&n)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// PushConfig implements store.PushConfigs.
func (s *Store) PushConfig(ctx context.Context, tenant, taskID, id string) (store.PushConfig, error) {
	if err := s.checkOpen(); err != nil {
		return store.PushConfig{}, err
	}
	if !store.ValidIDs(tenant, taskID, id) { // PostgreSQL's text cannot hold it: no such config
		return store.PushConfig{}, fmt.Errorf("%w: push config %q of task %q", store.ErrNotFound, id, taskID)
	}
	row := s.pool.QueryRow(ctx, sqlConfig, tenant, taskID, id, s.liveSince(), s.waitingSince())
	return s.names.ReadConfig(row, pgx.ErrNoRows, taskID, id, s.dbErr)
}

// ListPushConfigs implements store.PushConfigs.
func (s *Store) ListPushConfigs(ctx context.Context, tenant, taskID, after string, limit int) ([]store.PushConfig, bool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, false, err
	}
	if !store.ValidIDs(tenant, taskID, after) { // no task, or no config id after it, can be stored
		return nil, false, nil
	}
	var n *int64
	if limit > 0 {
		l := int64(limit) + 1
		n = &l
	}
	rows, err := s.pool.Query(ctx, sqlConfigs, tenant, taskID, after, n, s.liveSince(), s.waitingSince())
	if err != nil {
		return nil, false, s.dbErr(fmt.Sprintf("listing push configs of task %q", taskID), err)
	}
	defer rows.Close()
	return s.names.ReadConfigs(rows, limit, func(err error) error {
		return s.dbErr(fmt.Sprintf("listing push configs of task %q", taskID), err)
	})
}

// DeletePushConfig implements store.PushConfigs.
func (s *Store) DeletePushConfig(ctx context.Context, tenant, taskID, id string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if !store.ValidIDs(tenant, taskID, id) { // no such config can exist
		return nil
	}
	if _, err := s.configBatch(ctx, tenant, taskID, sqlDeleteConfig, tenant, taskID, id); err != nil {
		return s.dbErr(fmt.Sprintf("deleting push config %q of task %q", id, taskID), err)
	}
	return nil
}

// ---- Outbox ----

// ClaimDeliveries implements store.Outbox.
func (s *Store) ClaimDeliveries(ctx context.Context, c store.Claim) ([]store.Delivery, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if c.Max < 1 {
		return nil, fmt.Errorf("store: claim of %d deliveries; Max must be at least 1", c.Max)
	}
	now := sqlrecord.Nanos(c.Now)
	rows, err := s.pool.Query(ctx, sqlClaim, now, int64(c.Max), c.Worker, sqlrecord.Nanos(c.Now.Add(c.Lease)))
	if err != nil {
		return nil, s.dbErr("claiming deliveries", err)
	}
	type claimed struct {
		d    store.Delivery
		next int64
	}
	type queue struct{ tenant, taskID, configID string }
	var (
		out    []claimed
		missed []queue
	)
	for rows.Next() {
		var (
			q          queue
			id         *string
			config, ev []byte
			attempts   int32
			next       int64
			tp, ts     *string // NULL when the head was not read (id == nil)
			version    *string
		)
		if err := rows.Scan(&q.tenant, &q.taskID, &q.configID, &id, &config, &ev, &attempts, &next, &tp, &ts, &version); err != nil {
			rows.Close()
			return nil, s.dbErr("claiming deliveries", err)
		}
		if id == nil {
			// The head was written after this claim's snapshot was taken.
			missed = append(missed, q)
			continue
		}
		cfg, err := s.names.DecodeConfig(config)
		if err != nil {
			rows.Close()
			return nil, err
		}
		event, err := store.UnmarshalDeliveryEvent(*version, ev)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres store %s: decoding the event of delivery %q: %w", s.name, *id, err)
		}
		d := store.Delivery{ID: *id, Tenant: q.tenant, Config: cfg, Event: event, ProtocolVersion: *version, Attempts: int(attempts)}
		if tp != nil && ts != nil {
			d.Trace = store.TraceContext{Parent: *tp, State: *ts}
		}
		out = append(out, claimed{d, next})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.dbErr("claiming deliveries", err)
	}
	for _, q := range missed {
		if _, err := s.pool.Exec(ctx, sqlUnclaim, q.tenant, q.taskID, q.configID, c.Worker); err != nil {
			return nil, s.dbErr("claiming deliveries", err)
		}
	}
	// Oldest due first, as the claim chose them.
	slices.SortStableFunc(out, func(a, b claimed) int { return cmp.Compare(a.next, b.next) })
	ds := make([]store.Delivery, len(out))
	for i, c := range out {
		ds[i] = c.d
	}
	return ds, nil
}

// FinishDelivery implements store.Outbox.
func (s *Store) FinishDelivery(ctx context.Context, id string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	var tenant, taskID, configID string
	err := s.pool.QueryRow(ctx, sqlFinish, id, s.now()).Scan(&tenant, &taskID, &configID)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return s.dbErr("finishing delivery "+strconv.Quote(id), err)
	}
	// The last delivery of a task that no longer exists: its queue goes
	// too (unless a new task of that id queued more meanwhile).
	if _, err := s.pool.Exec(ctx, sqlDropEmptyQueue, tenant, taskID, configID); err != nil {
		return s.dbErr("finishing delivery "+strconv.Quote(id), err)
	}
	return nil
}

// RetryDelivery implements store.Outbox.
func (s *Store) RetryDelivery(ctx context.Context, id string, attempts int, at time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, sqlRetry, id, int32(min(attempts, 1<<31-1)), sqlrecord.Nanos(at))
	if err != nil {
		return s.dbErr("rescheduling delivery "+strconv.Quote(id), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: delivery %q", store.ErrNotFound, id)
	}
	return nil
}

// NextDelivery implements store.Outbox.
func (s *Store) NextDelivery(ctx context.Context) (time.Time, bool, error) {
	if err := s.checkOpen(); err != nil {
		return time.Time{}, false, err
	}
	var next *int64
	if err := s.pool.QueryRow(ctx, sqlNextDelivery).Scan(&next); err != nil {
		return time.Time{}, false, s.dbErr("reading the outbox", err)
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return time.Unix(0, *next), true, nil
}

// DeliveriesQueued implements store.Outbox. It is signalled after this
// process queued deliveries and when another replica announces that it did.
func (s *Store) DeliveriesQueued() <-chan struct{} { return s.wake }
