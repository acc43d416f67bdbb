package store

import (
	"context"
	"testing"
)

// TestBudget: events are admitted while their summed size stays within the
// budget, an event alone larger than it is admitted when nothing is queued,
// and Taken gives the bytes back.
func TestBudget(t *testing.T) {
	if NewBudget(context.Background()) != nil || NewBudget(WithSubscriberBytes(context.Background(), -1)) != nil {
		t.Fatal("a context without a positive budget gave a budget")
	}
	b := NewBudget(WithSubscriberBytes(context.Background(), 100))
	a, ok := b.Admit(Event{Version: 1}, 60)
	if !ok {
		t.Fatal("the first event was refused")
	}
	if _, ok := b.Admit(Event{Version: 2}, 50); ok {
		t.Fatal("an event beyond the budget was admitted")
	}
	a.Taken()
	big, ok := b.Admit(Event{Version: 3}, 500)
	if !ok {
		t.Fatal("an event larger than the budget was refused with nothing queued")
	}
	if _, ok := b.Admit(Event{Version: 4}, 1); ok {
		t.Fatal("an event was admitted behind one that fills the budget")
	}
	big.Taken()
	if _, ok := b.Admit(Event{Version: 5}, 100); !ok {
		t.Fatal("Taken did not give the bytes back")
	}
}
