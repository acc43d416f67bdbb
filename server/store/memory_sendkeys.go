package store

import (
	"context"
	"sync"
	"time"
)

// memSendKeys holds the memory store's send key claims (SendKeys), with
// their keys in claiming order, so that claims past their end are removed
// from the front as new ones come (claims of one server share a window,
// so the order is nearly that of their ends).
type memSendKeys struct {
	mu     sync.Mutex
	claims map[sendKeyID]SendKey
	order  []sendKeyID
	head   int
}

type sendKeyID struct{ tenant, owner, key string }

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
	ks.dropEndedLocked(k.Claimed)
	id := sendKeyID{k.Tenant, k.Owner, k.Key}
	if cur, ok := ks.claims[id]; ok && cur.Until.After(k.Claimed) && (replace == "" || cur.TaskID != replace) {
		return cur, false, nil
	}
	if ks.claims == nil {
		ks.claims = make(map[sendKeyID]SendKey)
	}
	ks.claims[id] = k
	ks.order = append(ks.order, id)
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
	if cur, ok := ks.claims[id]; ok && cur.TaskID == taskID {
		delete(ks.claims, id)
	}
	return nil
}

// dropEndedLocked removes, from the front of the claiming order, the
// claims that ended by now, and the keys there whose claim was released
// or replaced (their current claim, if any, is further back too).
func (ks *memSendKeys) dropEndedLocked(now time.Time) {
	for ks.head < len(ks.order) {
		id := ks.order[ks.head]
		if cur, ok := ks.claims[id]; ok {
			if cur.Until.After(now) {
				break
			}
			delete(ks.claims, id)
		}
		ks.order[ks.head] = sendKeyID{}
		ks.head++
	}
	if ks.head > 64 && ks.head*2 > len(ks.order) {
		ks.order = append(ks.order[:0], ks.order[ks.head:]...)
		ks.head = 0
	}
}
