package store

import (
	"context"
	"sync"
	"time"
)

// memSendKeys holds the memory store's send key claims (SendKeys). Claims
// past their end are removed by a sweep of the whole map once as many
// claims were made since the last sweep as the map then held (at least
// minSweepClaims): amortized a constant cost per claim, and at most about
// twice the live claims kept, without a list of keys in claiming order
// beside the map.
type memSendKeys struct {
	mu          sync.Mutex
	claims      map[sendKeyID]memClaim
	sinceSweep  int // claims made since the last sweep
	sweepPeriod int // claims between sweeps
}

// minSweepClaims is the fewest claims between two sweeps.
const minSweepClaims = 1024

type sendKeyID struct{ tenant, owner, key string }

// memClaim is what a claim holds beyond its key, its times in Unix
// nanoseconds: a claim is kept for the whole window (a day by default),
// one per send, so its entry is kept small — 48 bytes instead of
// SendKey's 128.
type memClaim struct {
	taskID, fingerprint string
	claimed, until      int64
}

func memClaimOf(k SendKey) memClaim {
	return memClaim{taskID: k.TaskID, fingerprint: k.Fingerprint, claimed: k.Claimed.UnixNano(), until: k.Until.UnixNano()}
}

func (c memClaim) sendKey(id sendKeyID) SendKey {
	return SendKey{Tenant: id.tenant, Owner: id.owner, Key: id.key, TaskID: c.taskID, Fingerprint: c.fingerprint,
		Claimed: time.Unix(0, c.claimed).UTC(), Until: time.Unix(0, c.until).UTC()}
}

// ClaimSendKey implements SendKeys.
func (m *Memory) ClaimSendKey(_ context.Context, k SendKey, replace string) (SendKey, bool, error) {
	if err := m.checkOpen(); err != nil {
		return SendKey{}, false, err
	}
	if err := CheckSendKey(k); err != nil {
		return SendKey{}, false, err
	}
	ks := &m.sendKeys
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := k.Claimed.UnixNano()
	ks.sweepLocked(now)
	id := sendKeyID{k.Tenant, k.Owner, k.Key}
	if cur, ok := ks.claims[id]; ok && cur.until > now && (replace == "" || cur.taskID != replace) {
		return cur.sendKey(id), false, nil
	}
	if ks.claims == nil {
		ks.claims = make(map[sendKeyID]memClaim)
	}
	ks.claims[id] = memClaimOf(k)
	ks.sinceSweep++
	return k, true, nil
}

// ReleaseSendKey implements SendKeys.
func (m *Memory) ReleaseSendKey(_ context.Context, tenant, owner, key, taskID string) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	ks := &m.sendKeys
	ks.mu.Lock()
	defer ks.mu.Unlock()
	id := sendKeyID{tenant, owner, key}
	if cur, ok := ks.claims[id]; ok && cur.taskID == taskID {
		delete(ks.claims, id)
	}
	return nil
}

// sweepLocked removes the claims that ended by now when a sweep is due.
func (ks *memSendKeys) sweepLocked(now int64) {
	if ks.sinceSweep < max(ks.sweepPeriod, minSweepClaims) {
		return
	}
	for id, c := range ks.claims {
		if c.until <= now {
			delete(ks.claims, id)
		}
	}
	ks.sinceSweep, ks.sweepPeriod = 0, len(ks.claims)
}
