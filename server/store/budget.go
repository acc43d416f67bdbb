package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// DefaultSubscriberBytes is the byte budget of a subscriber the server
// sets (server.WithMaxSubscriberBytes): the summed proto.Size of the
// events queued for it and not yet taken by its reader.
const DefaultSubscriberBytes = 4 << 20

// ErrSubscriberBytes ends a subscription whose queued events would exceed
// its byte budget. It is an ErrSlowSubscriber (errors.Is).
var ErrSubscriberBytes = fmt.Errorf("%w: its queued events exceed its byte budget (MaxSubscriberBytes)", ErrSlowSubscriber)

// Budget is the byte budget of one subscription: the summed sizes of the
// events queued on its channel that its reader has not taken (Event.Taken).
// A nil *Budget admits everything.
type Budget struct {
	limit  int64
	queued atomic.Int64
}

type budgetKey struct{}

// WithSubscriberBytes returns a context that asks the store to give a
// subscription made with it a byte budget of n (n < 1: none). Stores that
// queue events per subscriber (the broker, the PostgreSQL feed) honour it;
// the reader must call Event.Taken for each event it takes.
func WithSubscriberBytes(ctx context.Context, n int64) context.Context {
	if n < 1 {
		return ctx
	}
	return context.WithValue(ctx, budgetKey{}, n)
}

// NewBudget returns the budget ctx asks for (WithSubscriberBytes), or nil.
func NewBudget(ctx context.Context) *Budget {
	n, _ := ctx.Value(budgetKey{}).(int64)
	if n < 1 {
		return nil
	}
	return &Budget{limit: n}
}

// EventSize is the size an event counts against a budget.
func EventSize(ev *a2av1.StreamResponse) int64 { return int64(proto.Size(ev)) }

// Admit counts an event of size bytes and returns it with the budget
// attached, or false (and counts nothing) when it would exceed the budget.
// An event alone larger than the budget is admitted when nothing is
// queued, so that a subscriber can always make progress.
func (b *Budget) Admit(ev Event, size int64) (Event, bool) {
	if b == nil {
		return ev, true
	}
	if q := b.queued.Add(size); q > b.limit && q != size {
		b.queued.Add(-size)
		return ev, false
	}
	ev.budget, ev.size = b, size
	return ev, true
}

// Taken tells the event's budget that the reader took it off the channel.
// Readers of a Subscription call it for every event they receive; it does
// nothing for an event without a budget.
func (e Event) Taken() {
	if e.budget != nil {
		e.budget.queued.Add(-e.size)
	}
}

// IsBudgetExceeded reports whether err is ErrSubscriberBytes.
func IsBudgetExceeded(err error) bool { return errors.Is(err, ErrSubscriberBytes) }
