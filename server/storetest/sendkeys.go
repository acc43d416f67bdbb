package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// RunSendKeys tests the claims of send keys (store.SendKeys): one claim per
// tenant, owner and key while it holds, atomically under concurrent claims,
// released only by the send that claimed it, free again when it ends.
func RunSendKeys(t *testing.T, newStore func(t *testing.T) store.SendKeys) {
	suite[store.SendKeys]{
		{"FirstClaimHolds", testSendKeyFirstClaimHolds},
		{"ScopedByTenantAndOwner", testSendKeyScoped},
		{"FreeAfterItsEnd", testSendKeyFreeAfterEnd},
		{"Release", testSendKeyRelease},
		{"Replace", testSendKeyReplace},
		{"ConcurrentClaims", testSendKeyConcurrentClaims},
		{"Refused", testSendKeyRefused},
	}.run(t, newStore)
}

func sendKey(key, taskID string, at time.Duration) store.SendKey {
	return store.SendKey{Tenant: "t", Owner: "alice", Key: key, TaskID: taskID, Fingerprint: "fp-" + taskID,
		Claimed: base.Add(at), Until: base.Add(at + time.Hour)}
}

func mustClaim(t *testing.T, s store.SendKeys, k store.SendKey, replace string, wantClaimed bool, wantTask string) {
	t.Helper()
	got, claimed, err := s.ClaimSendKey(context.Background(), k, replace)
	must(t, err, "ClaimSendKey(%q for %q)", k.Key, k.TaskID)
	if claimed != wantClaimed || got.TaskID != wantTask {
		t.Fatalf("ClaimSendKey(%q for %q, replace %q) = task %q, claimed %v; want task %q, claimed %v",
			k.Key, k.TaskID, replace, got.TaskID, claimed, wantTask, wantClaimed)
	}
	want := k
	if !claimed {
		return
	}
	if got.Fingerprint != want.Fingerprint || got.Owner != want.Owner || got.Tenant != want.Tenant || got.Key != want.Key {
		t.Fatalf("ClaimSendKey returned %+v, want %+v", got, want)
	}
}

func testSendKeyFirstClaimHolds(t *testing.T, s store.SendKeys) {
	mustClaim(t, s, sendKey("k", "task-1", 0), "", true, "task-1")
	got, claimed, err := s.ClaimSendKey(context.Background(), sendKey("k", "task-2", time.Minute), "")
	if err != nil || claimed || got.TaskID != "task-1" || got.Fingerprint != "fp-task-1" ||
		!got.Claimed.Equal(base) || !got.Until.Equal(base.Add(time.Hour)) {
		t.Fatalf("second claim = %+v, claimed %v, %v; want the first claim (task-1, fp-task-1, claimed at %v, until an hour later)", got, claimed, err, base)
	}
}

func testSendKeyScoped(t *testing.T, s store.SendKeys) {
	mustClaim(t, s, sendKey("k", "task-1", 0), "", true, "task-1")
	other := sendKey("k", "task-2", 0)
	other.Owner = "bob"
	mustClaim(t, s, other, "", true, "task-2")
	anonymous := sendKey("k", "task-3", 0)
	anonymous.Owner = ""
	mustClaim(t, s, anonymous, "", true, "task-3")
	tenant := sendKey("k", "task-4", 0)
	tenant.Tenant = "t2"
	mustClaim(t, s, tenant, "", true, "task-4")
	mustClaim(t, s, sendKey("k", "task-5", time.Second), "", false, "task-1")
}

func testSendKeyFreeAfterEnd(t *testing.T, s store.SendKeys) {
	mustClaim(t, s, sendKey("k", "task-1", 0), "", true, "task-1")
	mustClaim(t, s, sendKey("k", "task-2", time.Hour-time.Nanosecond), "", false, "task-1")
	mustClaim(t, s, sendKey("k", "task-3", time.Hour), "", true, "task-3")
	mustClaim(t, s, sendKey("k", "task-4", time.Hour+time.Minute), "", false, "task-3")
	// Many ended claims are removed in passing; the live one stays.
	for i := range 200 {
		mustClaim(t, s, sendKey(fmt.Sprintf("old-%d", i), "old", time.Duration(i)*time.Millisecond), "", true, "old")
	}
	mustClaim(t, s, sendKey("k", "task-5", 3*time.Hour), "", true, "task-5")
	for i := range 200 {
		mustClaim(t, s, sendKey(fmt.Sprintf("old-%d", i), "new", 3*time.Hour), "", true, "new")
	}
}

func testSendKeyRelease(t *testing.T, s store.SendKeys) {
	ctx := context.Background()
	mustClaim(t, s, sendKey("k", "task-1", 0), "", true, "task-1")
	must(t, s.ReleaseSendKey(ctx, "t", "alice", "k", "task-2"), "ReleaseSendKey(another task)")
	mustClaim(t, s, sendKey("k", "task-2", time.Second), "", false, "task-1")
	must(t, s.ReleaseSendKey(ctx, "t", "bob", "k", "task-1"), "ReleaseSendKey(another owner)")
	mustClaim(t, s, sendKey("k", "task-2", time.Second), "", false, "task-1")
	must(t, s.ReleaseSendKey(ctx, "t", "alice", "k", "task-1"), "ReleaseSendKey")
	mustClaim(t, s, sendKey("k", "task-2", 2*time.Second), "", true, "task-2")
	must(t, s.ReleaseSendKey(ctx, "t", "alice", "missing", "task-1"), "ReleaseSendKey(missing)")
}

func testSendKeyReplace(t *testing.T, s store.SendKeys) {
	mustClaim(t, s, sendKey("k", "task-1", 0), "", true, "task-1")
	mustClaim(t, s, sendKey("k", "task-2", time.Second), "task-9", false, "task-1")
	mustClaim(t, s, sendKey("k", "task-2", time.Second), "task-1", true, "task-2")
	mustClaim(t, s, sendKey("k", "task-3", 2*time.Second), "task-1", false, "task-2")
}

// testSendKeyConcurrentClaims: of sends racing with one key, exactly one
// claims it, and every other learns that one's task.
func testSendKeyConcurrentClaims(t *testing.T, s store.SendKeys) {
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []string
		seen    = map[string]int{}
	)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got, claimed, err := s.ClaimSendKey(context.Background(), sendKey("race", fmt.Sprintf("task-%d", i), 0), "")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("ClaimSendKey: %v", err)
				return
			}
			if claimed {
				winners = append(winners, got.TaskID)
			}
			seen[got.TaskID]++
		}()
	}
	close(start)
	wg.Wait()
	if len(winners) != 1 || len(seen) != 1 || seen[winners[0]] != n {
		t.Fatalf("%d concurrent claims of one key: winners %v, tasks seen %v; want one winner whose task all %d saw", n, winners, seen, n)
	}
}

func testSendKeyRefused(t *testing.T, s store.SendKeys) {
	for name, k := range map[string]store.SendKey{
		"NUL key":      sendKey("a\x00b", "task-1", 0),
		"empty key":    sendKey("", "task-1", 0),
		"no end":       {Tenant: "t", Key: "k", TaskID: "x", Claimed: base, Until: base},
		"long key":     sendKey(string(make([]byte, store.MaxSendKeyBytes+1)), "task-1", 0),
		"invalid UTF8": sendKey("a\xffb", "task-1", 0),
	} {
		if _, _, err := s.ClaimSendKey(context.Background(), k, ""); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("ClaimSendKey(%s) = %v, want ErrInvalidKey", name, err)
		}
	}
}
