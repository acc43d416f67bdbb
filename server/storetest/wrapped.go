package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/a2agen/a2agen/server/store"
)

// wrappedOps are the operations a wrapper made with store.Wrap must see
// while Run passes through it.
var wrappedOps = []store.Op{
	store.OpCreateTask, store.OpTask, store.OpUpdateTask, store.OpListTasks, store.OpRenewRuns, store.OpStaleRuns,
	store.OpSubscribe, store.OpTaskEvents,
	store.OpSavePushConfig, store.OpPushConfig, store.OpListPushConfigs, store.OpDeletePushConfig,
	store.OpClaimDeliveries, store.OpFinishDelivery, store.OpRetryDelivery, store.OpNextDelivery,
	store.OpSendSignal, store.OpPing, store.OpClaimSendKey, store.OpReleaseSendKey,
}

// RunWrapped runs Run against the stores of newStore each wrapped with
// store.Wrap and an interceptor that counts the calls: the store must pass
// unchanged through the wrapper (it forwards every capability), and every
// operation must have reached the interceptor.
func RunWrapped(t *testing.T, newStore func(t *testing.T) store.Store) {
	var (
		mu   sync.Mutex
		seen = make(map[store.Op]int)
	)
	count := func(ctx context.Context, op store.Op, call func(context.Context) error) error {
		mu.Lock()
		seen[op]++
		mu.Unlock()
		return call(ctx)
	}
	Run(t, func(t *testing.T) store.Store { return store.Wrap(newStore(t), count) })
	if t.Failed() {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	for _, op := range wrappedOps {
		if seen[op] == 0 {
			t.Errorf("the suite ran through store.Wrap but its interceptor never saw %s", op)
		}
	}
}
