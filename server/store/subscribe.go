package store

import (
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// SubscribeCreated completes CreateTask for a store that cannot subscribe
// in the creating call: given the outcome of the creation (created, err),
// it subscribes c.Subscriber, if any, to the new task. The record returned
// is the subscription's snapshot, so the pair stays consistent even when
// another writer changed the task in between; a subscription that cannot
// be made is returned already ended with its error.
func SubscribeCreated(s Subscriptions, c Creation, created Record, err error) (Record, Subscription, error) {
	if err != nil {
		return Record{}, nil, err
	}
	if c.Subscriber == nil {
		return created, nil, nil
	}
	rec, sub, err := s.Subscribe(c.Subscriber.Ctx, c.Tenant, c.Task.GetId(), c.Subscriber.Follow)
	if err != nil {
		return created, endedSubscription(err), nil
	}
	return rec, sub, nil
}

// endedSubscription returns a subscription that ended with err before
// receiving anything.
func endedSubscription(err error) Subscription {
	ch := make(chan Event)
	close(ch)
	return &ended{ch: ch, err: err}
}

type ended struct {
	ch  chan Event
	err error
}

func (e *ended) Events() <-chan Event      { return e.ch }
func (e *ended) Err() error                { return e.err }
func (e *ended) Close()                    {}
func (e *ended) Written(int64) *a2av1.Task { return nil }
