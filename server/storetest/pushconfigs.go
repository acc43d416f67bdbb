package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// RunPushConfigs runs the conformance tests of store.PushConfigs.
func RunPushConfigs(t *testing.T, newStore func(t *testing.T) PushConfigStore) {
	suite[PushConfigStore]{
		{"SaveGetDelete", testPushConfigs},
		{"Paging", testPushConfigPaging},
		{"TenantIsolation", testPushConfigTenants},
		{"CreatedWithTask", testPushConfigsCreatedWithTask},
		{"ProtocolVersion", testPushConfigVersion},
	}.run(t, newStore)
}

func testPushConfigs(t *testing.T, s PushConfigStore) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	err := s.SavePushConfig(ctx, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: "nope", Id: "p", Url: "https://x.example"}))
	wantErr(t, "SavePushConfig for an unknown task", err, store.ErrNotFound)
	p1 := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "https://one.example", Token: "tok"}
	must(t, s.SavePushConfig(ctx, "", v10(p1)), "SavePushConfig")
	got, err := s.PushConfig(ctx, "", "t1", "p1")
	if err != nil || !proto.Equal(got.TaskPushNotificationConfig, p1) {
		t.Fatalf("PushConfig = %v, %v; want %v", got, err, p1)
	}
	p1b := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "https://two.example"}
	must(t, s.SavePushConfig(ctx, "", v10(p1b)), "SavePushConfig (overwrite)")
	if got, _ := s.PushConfig(ctx, "", "t1", "p1"); !proto.Equal(got.TaskPushNotificationConfig, p1b) {
		t.Fatalf("after overwriting, PushConfig = %v, want %v", got, p1b)
	}
	_, err = s.PushConfig(ctx, "", "t1", "p2")
	wantErr(t, "PushConfig(missing)", err, store.ErrNotFound)
	must(t, s.DeletePushConfig(ctx, "", "t1", "p1"), "DeletePushConfig")
	must(t, s.DeletePushConfig(ctx, "", "t1", "p1"), "DeletePushConfig again (must be idempotent)")
	_, err = s.PushConfig(ctx, "", "t1", "p1")
	wantErr(t, "PushConfig after delete", err, store.ErrNotFound)
}

func testPushConfigPaging(t *testing.T, s PushConfigStore) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	for _, id := range []string{"c", "a", "e", "b", "d"} {
		must(t, s.SavePushConfig(ctx, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: id, Url: "https://x.example/" + id})), "SavePushConfig")
	}
	var got []string
	after := ""
	for range 10 {
		cfgs, more, err := s.ListPushConfigs(ctx, "", "t1", after, 2)
		must(t, err, "ListPushConfigs")
		for _, c := range cfgs {
			got = append(got, c.GetId())
		}
		if !more {
			break
		}
		after = cfgs[len(cfgs)-1].GetId()
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("paging by 2 gave %v, want a b c d e", got)
	}
	all, more, err := s.ListPushConfigs(ctx, "", "t1", "", 0)
	if err != nil || len(all) != 5 || more {
		t.Fatalf("ListPushConfigs(limit 0) = %d configs, more %v, %v; want all 5", len(all), more, err)
	}
}

func testPushConfigTenants(t *testing.T, s PushConfigStore) {
	ctx := context.Background()
	mustCreate(t, s, "A", "", newTask("t1", "ca", submitted, 0))
	mustCreate(t, s, "B", "", newTask("t1", "cb", submitted, 0))
	must(t, s.SavePushConfig(ctx, "A", v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://a.example"})), "SavePushConfig(A)")
	_, err := s.PushConfig(ctx, "B", "t1", "p")
	wantErr(t, "PushConfig of tenant A read as tenant B", err, store.ErrNotFound)
	cfgs, _, err := s.ListPushConfigs(ctx, "B", "t1", "", 0)
	if err != nil || len(cfgs) != 0 {
		t.Fatalf("ListPushConfigs(B) = %v, %v; want none", cfgs, err)
	}
	err = s.SavePushConfig(ctx, "C", v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://a.example"}))
	wantErr(t, "SavePushConfig for a task of another tenant", err, store.ErrNotFound)
	must(t, s.DeletePushConfig(ctx, "B", "t1", "p"), "DeletePushConfig(B)")
	must(t, errOf(s.PushConfig(ctx, "A", "t1", "p")), "tenant B's delete removed tenant A's config")
}

func testPushConfigsCreatedWithTask(t *testing.T, s PushConfigStore) {
	ctx := context.Background()
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "inline", Url: "https://hook.example", Token: "tok"}
	mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t1", "c", submitted, 0)},
		PushConfigs: []store.PushConfig{v10(cfg)}})
	got, err := s.PushConfig(ctx, "T", "t1", "inline")
	if err != nil || !proto.Equal(got.TaskPushNotificationConfig, cfg) {
		t.Fatalf("PushConfig after CreateTask = %v, %v; want %v", got, err, cfg)
	}
	_, _, err = s.CreateTask(ctx, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t1", "c", submitted, 0)},
		PushConfigs: []store.PushConfig{v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "other", Url: "https://x.example"})}})
	wantErr(t, "CreateTask of an existing id with a push config", err, store.ErrExists)
	if _, err := s.PushConfig(ctx, "T", "t1", "other"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused CreateTask stored its push config: %v", err)
	}
}
