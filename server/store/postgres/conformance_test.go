package postgres

import (
	"testing"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openSchema(t, url, testSchema(t, url)) })
}

// TestWrappedConformance: through store.Wrap the store keeps its whole
// contract, signals between replicas included.
func TestWrappedConformance(t *testing.T) {
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
