package storetest

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// RunKeys checks that every store holds the same strings as keys: tenants,
// task ids, context ids, owners and push config ids up to their limits
// (store.MaxIDBytes, store.MaxOwnerBytes), made of text no compression
// shrinks, round trip through every operation; a NUL byte, invalid UTF-8
// or one byte more is refused by a write (store.ErrInvalidKey, or
// ErrNotFound for a task that cannot exist) and found nowhere by a read,
// and the store goes on working.
func RunKeys(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("AtTheLimits", func(t *testing.T) { testKeysAtTheLimits(t, newStore(t)) })
	t.Run("Refused", func(t *testing.T) { testKeysRefused(t, newStore(t)) })
}

// incompressible returns n bytes of random letters, one and two bytes
// long in UTF-8 (so that quoting them, as delivery ids do, triples them).
func incompressible(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if n-b.Len() >= 2 && r.IntN(2) == 0 {
			b.WriteRune(rune(0xC0 + r.IntN(0x180))) // À…ʿ: two bytes
		} else {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()
}

// badKeys are strings no store can hold as a key of at most limit bytes.
func badKeys(r *rand.Rand, limit int) map[string]string {
	return map[string]string{
		"NUL":           "a\x00b",
		"invalid UTF-8": "a\xffb",
		"too long":      incompressible(r, limit+1),
	}
}

func testKeysAtTheLimits(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	tenant, id, contextID := incompressible(r, store.MaxIDBytes), incompressible(r, store.MaxIDBytes), incompressible(r, store.MaxIDBytes)
	owner, cfgID := incompressible(r, store.MaxOwnerBytes), incompressible(r, store.MaxIDBytes)
	task := newTask(id, "ctx", working, 0)
	task.ContextId = contextID
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: id, Id: cfgID, Url: "https://hook.example/a"}
	mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Tenant: tenant, Owner: owner, Task: task},
		PushConfigs: []store.PushConfig{v10(cfg)}, Events: []*a2av1.StreamResponse{statusEvent(task)}})
	rec, err := s.Task(ctx, tenant, id)
	if err != nil || rec.Owner != owner || rec.Task.GetContextId() != contextID {
		t.Fatalf("Task = owner %d bytes, context %q, %v; want the keys written", len(rec.Owner), rec.Task.GetContextId(), err)
	}
	page, err := s.ListTasks(ctx, tenant, store.Query{Owner: owner, ContextID: contextID, Limit: 10})
	if err != nil || len(page.Records) != 1 || page.Total != 1 {
		t.Fatalf("ListTasks by owner and context = %d records (total %d), %v; want the task", len(page.Records), page.Total, err)
	}
	next := newTask(id, "ctx", completed, 0)
	next.ContextId = contextID
	must(t, errOf(s.UpdateTask(ctx, store.Update{Tenant: tenant, Task: next, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(next)}})), "UpdateTask with every key at its limit")
	got, err := s.PushConfig(ctx, tenant, id, cfgID)
	if err != nil || got.GetId() != cfgID {
		t.Fatalf("PushConfig = %v, %v; want the config", got, err)
	}
	if cfgs, _, err := s.ListPushConfigs(ctx, tenant, id, "", 0); err != nil || len(cfgs) != 1 {
		t.Fatalf("ListPushConfigs = %d configs, %v; want 1", len(cfgs), err)
	}
	must(t, s.DeletePushConfig(ctx, tenant, id, cfgID), "DeletePushConfig")
}

func testKeysRefused(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	mustCreate(t, s, "", "", newTask("good", "ctx", working, 0))
	for name, bad := range badKeys(r, store.MaxIDBytes) {
		refuseCreations(t, s, name, bad)
		for _, k := range [][2]string{{bad, "good"}, {"", bad}} {
			findNoTask(t, s, name, k[0], k[1])
		}
		_, err := s.PushConfig(ctx, "", "good", bad)
		expectIs(t, err, store.ErrNotFound, "PushConfig with a %s config id", name)
		err = s.SavePushConfig(ctx, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: "good", Id: bad, Url: "https://hook.example/a"}))
		expectIs(t, err, store.ErrInvalidKey, "SavePushConfig with a %s config id", name)
		for _, q := range []struct {
			tenant string
			q      store.Query
		}{{bad, store.Query{}}, {"", store.Query{ContextID: bad}}, {"", store.Query{Owner: bad + strings.Repeat("x", store.MaxOwnerBytes)}}} {
			q.q.Limit = 10
			if page, err := s.ListTasks(ctx, q.tenant, q.q); err != nil || len(page.Records) != 0 || page.Total != 0 {
				t.Errorf("ListTasks with a %s key = %d records (total %d), %v; want an empty page", name, len(page.Records), page.Total, err)
			}
		}
	}
	for name, bad := range badKeys(r, store.MaxOwnerBytes) {
		_, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Owner: bad, Task: newTask("t", "ctx", working, 0)}})
		expectIs(t, err, store.ErrInvalidKey, "CreateTask with a %s owner", name)
	}
	// The store goes on working.
	mustUpdateWith(t, ctx, s, store.Update{Task: newTask("good", "ctx", completed, 0), Expect: 1})
	mustCreate(t, s, "", "", newTask("t", "ctx", working, 0))
}

// refuseCreations checks that a creation with the bad key in each of its
// key fields is refused and writes nothing.
func refuseCreations(t *testing.T, s store.Store, name, bad string) {
	t.Helper()
	ctx := context.Background()
	tasks := map[string]store.Creation{
		"tenant":     {Record: store.Record{Tenant: bad, Task: newTask("t", "ctx", working, 0)}},
		"task id":    {Record: store.Record{Task: newTask(bad, "ctx", working, 0)}},
		"context id": {Record: store.Record{Task: withContext(newTask("t", "ctx", working, 0), bad)}},
		"push config id": {Record: store.Record{Task: newTask("t", "ctx", working, 0)},
			PushConfigs: []store.PushConfig{v10(&a2av1.TaskPushNotificationConfig{TaskId: "t", Id: bad, Url: "https://hook.example/a"})}},
	}
	for field, c := range tasks {
		_, _, err := s.CreateTask(ctx, c)
		expectIs(t, err, store.ErrInvalidKey, "CreateTask with a %s %s", name, field)
		_, err = s.Task(ctx, c.Tenant, c.Task.GetId())
		expectIs(t, err, store.ErrNotFound, "Task after CreateTask with a %s %s (nothing written)", name, field)
	}
}

// findNoTask checks that every operation on a task finds none under a
// tenant and id of which one holds a bad key (named name).
func findNoTask(t *testing.T, s store.Store, name, tenant, id string) {
	t.Helper()
	ctx := context.Background()
	expectIs(t, errOf(s.Task(ctx, tenant, id)), store.ErrNotFound, "Task(%s key)", name)
	_, sub, err := s.Subscribe(ctx, tenant, id, store.FollowEvents)
	expectIs(t, err, store.ErrNotFound, "Subscribe(%s key)", name)
	if sub != nil {
		sub.Close()
	}
	_, err = s.UpdateTask(ctx, store.Update{Tenant: tenant, Task: newTask(id, "ctx", completed, 0), Expect: 1})
	expectIs(t, err, store.ErrNotFound, "UpdateTask(%s key)", name)
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: id, Id: "c", Url: "https://hook.example/a"}
	expectIs(t, s.SavePushConfig(ctx, tenant, v10(cfg)), store.ErrNotFound, "SavePushConfig for a task with a %s key", name)
	expectIs(t, errOf(s.PushConfig(ctx, tenant, id, "c")), store.ErrNotFound, "PushConfig(%s key)", name)
	if cfgs, _, err := s.ListPushConfigs(ctx, tenant, id, "", 0); err != nil || len(cfgs) != 0 {
		t.Errorf("ListPushConfigs(%s key) = %d configs, %v; want none", name, len(cfgs), err)
	}
	if err := s.DeletePushConfig(ctx, tenant, id, "c"); err != nil {
		t.Errorf("DeletePushConfig(%s key): %v; want nil (removing a missing config succeeds)", name, err)
	}
}

func withContext(t *a2av1.Task, contextID string) *a2av1.Task {
	t.ContextId = contextID
	return t
}
