package storetest

import (
	"context"
	"errors"
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
	if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Tenant: tenant, Owner: owner, Task: task},
		PushConfigs: []store.PushConfig{v10(cfg)}, Events: []*a2av1.StreamResponse{statusEvent(task)}}); err != nil {
		t.Fatalf("CreateTask with every key at its limit: %v", err)
	}
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
	if _, err := s.UpdateTask(ctx, store.Update{Tenant: tenant, Task: next, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(next)}}); err != nil {
		t.Fatalf("UpdateTask with every key at its limit: %v", err)
	}
	got, err := s.PushConfig(ctx, tenant, id, cfgID)
	if err != nil || got.GetId() != cfgID {
		t.Fatalf("PushConfig = %v, %v; want the config", got, err)
	}
	if cfgs, _, err := s.ListPushConfigs(ctx, tenant, id, "", 0); err != nil || len(cfgs) != 1 {
		t.Fatalf("ListPushConfigs = %d configs, %v; want 1", len(cfgs), err)
	}
	if err := s.DeletePushConfig(ctx, tenant, id, cfgID); err != nil {
		t.Fatalf("DeletePushConfig: %v", err)
	}
}

func testKeysRefused(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	mustCreate(t, s, "", "", newTask("good", "ctx", working, 0))
	for name, bad := range badKeys(r, store.MaxIDBytes) {
		tasks := map[string]store.Creation{
			"tenant":     {Record: store.Record{Tenant: bad, Task: newTask("t", "ctx", working, 0)}},
			"task id":    {Record: store.Record{Task: newTask(bad, "ctx", working, 0)}},
			"context id": {Record: store.Record{Task: withContext(newTask("t", "ctx", working, 0), bad)}},
			"push config id": {Record: store.Record{Task: newTask("t", "ctx", working, 0)},
				PushConfigs: []store.PushConfig{v10(&a2av1.TaskPushNotificationConfig{TaskId: "t", Id: bad, Url: "https://hook.example/a"})}},
		}
		for field, c := range tasks {
			if _, _, err := s.CreateTask(ctx, c); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("CreateTask with a %s %s: %v; want ErrInvalidKey", name, field, err)
			}
			if _, err := s.Task(ctx, c.Tenant, c.Task.GetId()); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Task after CreateTask with a %s %s: %v; want ErrNotFound (nothing written)", name, field, err)
			}
		}
		for _, k := range [][2]string{{bad, "good"}, {"", bad}} {
			tenant, id := k[0], k[1]
			if _, err := s.Task(ctx, tenant, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Task(%s key): %v; want ErrNotFound", name, err)
			}
			if _, sub, err := s.Subscribe(ctx, tenant, id, store.FollowEvents); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Subscribe(%s key): %v; want ErrNotFound", name, err)
				if sub != nil {
					sub.Close()
				}
			}
			if _, err := s.UpdateTask(ctx, store.Update{Tenant: tenant, Task: newTask(id, "ctx", completed, 0), Expect: 1}); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("UpdateTask(%s key): %v; want ErrNotFound", name, err)
			}
			cfg := &a2av1.TaskPushNotificationConfig{TaskId: id, Id: "c", Url: "https://hook.example/a"}
			if err := s.SavePushConfig(ctx, tenant, v10(cfg)); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("SavePushConfig for a task with a %s key: %v; want ErrNotFound", name, err)
			}
			if _, err := s.PushConfig(ctx, tenant, id, "c"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("PushConfig(%s key): %v; want ErrNotFound", name, err)
			}
			if cfgs, _, err := s.ListPushConfigs(ctx, tenant, id, "", 0); err != nil || len(cfgs) != 0 {
				t.Errorf("ListPushConfigs(%s key) = %d configs, %v; want none", name, len(cfgs), err)
			}
			if err := s.DeletePushConfig(ctx, tenant, id, "c"); err != nil {
				t.Errorf("DeletePushConfig(%s key): %v; want nil (removing a missing config succeeds)", name, err)
			}
		}
		if _, err := s.PushConfig(ctx, "", "good", bad); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("PushConfig with a %s config id: %v; want ErrNotFound", name, err)
		}
		if err := s.SavePushConfig(ctx, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: "good", Id: bad, Url: "https://hook.example/a"})); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("SavePushConfig with a %s config id: %v; want ErrInvalidKey", name, err)
		}
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
		if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Owner: bad, Task: newTask("t", "ctx", working, 0)}}); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("CreateTask with a %s owner: %v; want ErrInvalidKey", name, err)
		}
	}
	// The store goes on working.
	if _, err := s.UpdateTask(ctx, store.Update{Task: newTask("good", "ctx", completed, 0), Expect: 1}); err != nil {
		t.Fatalf("UpdateTask after the refused keys: %v", err)
	}
	mustCreate(t, s, "", "", newTask("t", "ctx", working, 0))
}

func withContext(t *a2av1.Task, contextID string) *a2av1.Task {
	t.ContextId = contextID
	return t
}
