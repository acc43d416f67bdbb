package postgres

import (
	"testing"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storetest"
)

// TestConformance runs the suite through store.Wrap: the wrapper forwards
// every call unchanged, so one run proves both the store's contract and
// that through store.Wrap the store keeps all of it, signals between
// replicas included. (A second run of the bare store, about 70 schemas
// more, would prove nothing the wrapped one does not.)
func TestConformance(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	storetest.RunWrapped(t, func(t *testing.T) store.Store { return openSchema(t, url, testSchema(t, url)) })
}

func TestInterruptedRetentionConformance(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	storetest.RunInterruptedRetention(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		return openSchema(t, url, testSchema(t, url), WithRetention(store.Retention{InterruptedTaskTTL: storetest.InterruptedTTL}), WithClock(clock.Now))
	})
}
