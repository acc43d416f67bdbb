package store

import (
	"context"
	"time"
)

// Op names a Store method, as Wrap's Interceptor sees it.
type Op string

// The operations an Interceptor sees: the Store methods that take a
// context.
const (
	OpCreateTask       Op = "CreateTask"
	OpTask             Op = "Task"
	OpUpdateTask       Op = "UpdateTask"
	OpListTasks        Op = "ListTasks"
	OpRenewRuns        Op = "RenewRuns"
	OpStaleRuns        Op = "StaleRuns"
	OpSubscribe        Op = "Subscribe"
	OpTaskEvents       Op = "TaskEvents"
	OpSavePushConfig   Op = "SavePushConfig"
	OpPushConfig       Op = "PushConfig"
	OpListPushConfigs  Op = "ListPushConfigs"
	OpDeletePushConfig Op = "DeletePushConfig"
	OpClaimDeliveries  Op = "ClaimDeliveries"
	OpFinishDelivery   Op = "FinishDelivery"
	OpRetryDelivery    Op = "RetryDelivery"
	OpNextDelivery     Op = "NextDelivery"
	OpSendSignal       Op = "SendSignal"
	OpPing             Op = "Ping"
	OpClaimSendKey     Op = "ClaimSendKey"
	OpReleaseSendKey   Op = "ReleaseSendKey"
)

// Interceptor runs around one store call: it calls call (normally once,
// with ctx or a context derived from it) to make the call, and returns the
// call's error or its own. Returning without calling call fails the
// operation with the error returned, which must then not be nil. Metrics,
// logs, retries and injected faults fit this shape.
type Interceptor func(ctx context.Context, op Op, call func(context.Context) error) error

// Wrap returns a Store that forwards every method to inner, running each
// method that takes a context through ic (nil: none). The methods without
// one — Shared, ReceiveSignals, DeliveriesQueued, Close — are forwarded as
// they are, so the wrapped store keeps all of inner's capabilities: a
// wrapper cannot lose signals between replicas, health checks or the feed
// by forgetting a method.
//
// To change what a method does rather than observe it, embed a Store in a
// struct and define that method; since every capability is a method of
// Store, the embedded value forwards the rest.
func Wrap(inner Store, ic Interceptor) Store {
	if ic == nil {
		ic = func(ctx context.Context, _ Op, call func(context.Context) error) error { return call(ctx) }
	}
	return &wrapped{inner: inner, ic: ic}
}

type wrapped struct {
	inner Store
	ic    Interceptor
}

func (w *wrapped) CreateTask(ctx context.Context, c Creation) (rec Record, sub Subscription, err error) {
	err = w.ic(ctx, OpCreateTask, func(ctx context.Context) (err error) {
		rec, sub, err = w.inner.CreateTask(ctx, c)
		return err
	})
	return rec, sub, err
}

func (w *wrapped) Task(ctx context.Context, tenant, id string) (rec Record, err error) {
	err = w.ic(ctx, OpTask, func(ctx context.Context) (err error) {
		rec, err = w.inner.Task(ctx, tenant, id)
		return err
	})
	return rec, err
}

func (w *wrapped) UpdateTask(ctx context.Context, u Update) (version int64, err error) {
	err = w.ic(ctx, OpUpdateTask, func(ctx context.Context) (err error) {
		version, err = w.inner.UpdateTask(ctx, u)
		return err
	})
	return version, err
}

func (w *wrapped) ListTasks(ctx context.Context, tenant string, q Query) (page Page, err error) {
	err = w.ic(ctx, OpListTasks, func(ctx context.Context) (err error) {
		page, err = w.inner.ListTasks(ctx, tenant, q)
		return err
	})
	return page, err
}

func (w *wrapped) RenewRuns(ctx context.Context, runner string, until time.Time) error {
	return w.ic(ctx, OpRenewRuns, func(ctx context.Context) error {
		return w.inner.RenewRuns(ctx, runner, until)
	})
}

func (w *wrapped) StaleRuns(ctx context.Context, self string, now time.Time, limit int) (recs []Record, err error) {
	err = w.ic(ctx, OpStaleRuns, func(ctx context.Context) (err error) {
		recs, err = w.inner.StaleRuns(ctx, self, now, limit)
		return err
	})
	return recs, err
}

func (w *wrapped) Subscribe(ctx context.Context, tenant, id string, f Follow) (rec Record, sub Subscription, err error) {
	err = w.ic(ctx, OpSubscribe, func(ctx context.Context) (err error) {
		rec, sub, err = w.inner.Subscribe(ctx, tenant, id, f)
		return err
	})
	return rec, sub, err
}

func (w *wrapped) TaskEvents(ctx context.Context, tenant, id string, after, upTo int64) (evs []LoggedEvent, err error) {
	err = w.ic(ctx, OpTaskEvents, func(ctx context.Context) (err error) {
		evs, err = w.inner.TaskEvents(ctx, tenant, id, after, upTo)
		return err
	})
	return evs, err
}

func (w *wrapped) SavePushConfig(ctx context.Context, tenant string, cfg PushConfig) error {
	return w.ic(ctx, OpSavePushConfig, func(ctx context.Context) error {
		return w.inner.SavePushConfig(ctx, tenant, cfg)
	})
}

func (w *wrapped) PushConfig(ctx context.Context, tenant, taskID, id string) (cfg PushConfig, err error) {
	err = w.ic(ctx, OpPushConfig, func(ctx context.Context) (err error) {
		cfg, err = w.inner.PushConfig(ctx, tenant, taskID, id)
		return err
	})
	return cfg, err
}

func (w *wrapped) ListPushConfigs(ctx context.Context, tenant, taskID, after string, limit int) (cfgs []PushConfig, more bool, err error) {
	err = w.ic(ctx, OpListPushConfigs, func(ctx context.Context) (err error) {
		cfgs, more, err = w.inner.ListPushConfigs(ctx, tenant, taskID, after, limit)
		return err
	})
	return cfgs, more, err
}

func (w *wrapped) DeletePushConfig(ctx context.Context, tenant, taskID, id string) error {
	return w.ic(ctx, OpDeletePushConfig, func(ctx context.Context) error {
		return w.inner.DeletePushConfig(ctx, tenant, taskID, id)
	})
}

func (w *wrapped) ClaimDeliveries(ctx context.Context, c Claim) (ds []Delivery, err error) {
	err = w.ic(ctx, OpClaimDeliveries, func(ctx context.Context) (err error) {
		ds, err = w.inner.ClaimDeliveries(ctx, c)
		return err
	})
	return ds, err
}

func (w *wrapped) FinishDelivery(ctx context.Context, id string) error {
	return w.ic(ctx, OpFinishDelivery, func(ctx context.Context) error {
		return w.inner.FinishDelivery(ctx, id)
	})
}

func (w *wrapped) RetryDelivery(ctx context.Context, id string, attempts int, at time.Time) error {
	return w.ic(ctx, OpRetryDelivery, func(ctx context.Context) error {
		return w.inner.RetryDelivery(ctx, id, attempts, at)
	})
}

func (w *wrapped) NextDelivery(ctx context.Context) (at time.Time, ok bool, err error) {
	err = w.ic(ctx, OpNextDelivery, func(ctx context.Context) (err error) {
		at, ok, err = w.inner.NextDelivery(ctx)
		return err
	})
	return at, ok, err
}

func (w *wrapped) DeliveriesQueued() <-chan struct{} { return w.inner.DeliveriesQueued() }

func (w *wrapped) Shared() bool { return w.inner.Shared() }

func (w *wrapped) SendSignal(ctx context.Context, runner string, s Signal) error {
	return w.ic(ctx, OpSendSignal, func(ctx context.Context) error {
		return w.inner.SendSignal(ctx, runner, s)
	})
}

func (w *wrapped) ReceiveSignals(runner string) (<-chan Signal, func()) {
	return w.inner.ReceiveSignals(runner)
}

func (w *wrapped) Ping(ctx context.Context) error {
	return w.ic(ctx, OpPing, func(ctx context.Context) error { return w.inner.Ping(ctx) })
}

func (w *wrapped) ClaimSendKey(ctx context.Context, k SendKey, replace string) (held SendKey, claimed bool, err error) {
	err = w.ic(ctx, OpClaimSendKey, func(ctx context.Context) (err error) {
		held, claimed, err = w.inner.ClaimSendKey(ctx, k, replace)
		return err
	})
	return held, claimed, err
}

func (w *wrapped) ReleaseSendKey(ctx context.Context, tenant, owner, key, taskID string) error {
	return w.ic(ctx, OpReleaseSendKey, func(ctx context.Context) error {
		return w.inner.ReleaseSendKey(ctx, tenant, owner, key, taskID)
	})
}

func (w *wrapped) Close() error { return w.inner.Close() }
