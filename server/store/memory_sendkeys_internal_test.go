package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestMemorySendKeysForgetEndedClaims: the memory store keeps a claim for
// its window and no longer — a server that sends for days keeps about a
// window's claims, not every claim it ever made — and a claim still in
// its window survives the sweeps.
func TestMemorySendKeysForgetEndedClaims(t *testing.T) {
	m := NewMemory()
	ctx := context.Background()
	base := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	claim := func(key string, at, window time.Duration) {
		t.Helper()
		k := SendKey{Tenant: "t", Owner: "o", Key: key, TaskID: "task-" + key, Fingerprint: "fp",
			Claimed: base.Add(at), Until: base.Add(at + window)}
		if _, claimed, err := m.ClaimSendKey(ctx, k, ""); err != nil || !claimed {
			t.Fatalf("claim %q: claimed %v, %v", key, claimed, err)
		}
	}
	claim("long", 0, 1000*time.Hour)
	const n = 10 * minSweepClaims
	for i := range n {
		claim(fmt.Sprint(i), time.Duration(i)*time.Second, time.Minute)
	}
	if got := len(m.sendKeys.claims); got > 2*minSweepClaims {
		t.Errorf("%d claims kept after %d claims of a minute each, one a second; want at most %d", got, n, 2*minSweepClaims)
	}
	held, claimed, err := m.ClaimSendKey(ctx, SendKey{Tenant: "t", Owner: "o", Key: "long", TaskID: "other", Fingerprint: "fp",
		Claimed: base.Add(n * time.Second), Until: base.Add(n*time.Second + time.Hour)}, "")
	if err != nil || claimed || held.TaskID != "task-long" || !held.Until.Equal(base.Add(1000*time.Hour)) {
		t.Errorf("the claim still in its window: got %+v, claimed %v, %v; want it held by task-long until %v", held, claimed, err, base.Add(1000*time.Hour))
	}
}
