package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// The protocol versions of the tests: a config registered through v1.0
// receives every event, one registered through v0.3 the task
// (store.TaskPayload).
const (
	v10Version = "1.0"
	v03Version = "0.3"
)

// v10 is cfg as registered through A2A v1.0.
func v10(cfg *a2av1.TaskPushNotificationConfig) store.PushConfig {
	return store.PushConfig{TaskPushNotificationConfig: cfg, ProtocolVersion: v10Version}
}

// v03 is cfg as registered through A2A v0.3.
func v03(cfg *a2av1.TaskPushNotificationConfig) store.PushConfig {
	return store.PushConfig{TaskPushNotificationConfig: cfg, ProtocolVersion: v03Version}
}

func saveVersioned(t *testing.T, s store.PushConfigs, tenant string, cfg store.PushConfig) {
	t.Helper()
	must(t, s.SavePushConfig(context.Background(), tenant, cfg), "SavePushConfig(%s, version %q)", cfg.GetId(), cfg.ProtocolVersion)
}

// testPushConfigVersion: the protocol version is kept with the config,
// read back by PushConfig and ListPushConfigs, and replaced with it; the
// message itself is stored as given.
func testPushConfigVersion(t *testing.T, s PushConfigStore) {
	ctx := context.Background()
	mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	old := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "old", Url: "https://old.example/hook", Token: "tok"}
	cur := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "cur", Url: "https://cur.example/hook"}
	none := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "none", Url: "https://none.example/hook"}
	saveVersioned(t, s, "", v03(old))
	saveVersioned(t, s, "", v10(cur))
	saveVersioned(t, s, "", store.PushConfig{TaskPushNotificationConfig: none})
	for id, want := range map[string]string{"old": v03Version, "cur": v10Version, "none": ""} {
		got, err := s.PushConfig(ctx, "", "t1", id)
		if err != nil || got.ProtocolVersion != want {
			t.Fatalf("PushConfig(%s) = version %q, %v; want %q", id, got.ProtocolVersion, err, want)
		}
	}
	got, _ := s.PushConfig(ctx, "", "t1", "old")
	if !proto.Equal(got.TaskPushNotificationConfig, old) {
		t.Fatalf("PushConfig(old) = %v, want %v", got.TaskPushNotificationConfig, old)
	}
	list, _, err := s.ListPushConfigs(ctx, "", "t1", "", 0)
	if err != nil || len(list) != 3 {
		t.Fatalf("ListPushConfigs = %d configs, %v; want 3", len(list), err)
	}
	versions := map[string]string{}
	for _, c := range list {
		versions[c.GetId()] = c.ProtocolVersion
	}
	if versions["old"] != v03Version || versions["cur"] != v10Version || versions["none"] != "" {
		t.Fatalf("ListPushConfigs versions = %v, want old 0.3, cur 1.0, none empty", versions)
	}
	// Registering again through another version replaces the version.
	saveVersioned(t, s, "", v10(old))
	if got, _ := s.PushConfig(ctx, "", "t1", "old"); got.ProtocolVersion != v10Version {
		t.Fatalf("after registering old again through 1.0, its version is %q", got.ProtocolVersion)
	}
	// An inline config of a new task keeps its version too.
	mustCreateWith(t, ctx, s, store.Creation{Record: store.Record{Task: newTask("t2", "c", submitted, 0)},
		PushConfigs: []store.PushConfig{v03(&a2av1.TaskPushNotificationConfig{TaskId: "t2", Id: "inline", Url: "https://inline.example"})}})
	if got, err := s.PushConfig(ctx, "", "t2", "inline"); err != nil || got.ProtocolVersion != v03Version {
		t.Fatalf("inline config of CreateTask = version %q, %v; want 0.3", got.ProtocolVersion, err)
	}
}

// drain claims and finishes every delivery, oldest first per config, and
// returns them by config id in the order each config received them.
func drain(t *testing.T, s OutboxStore) map[string][]store.Delivery {
	t.Helper()
	out := map[string][]store.Delivery{}
	for range 100 {
		ds := claim(t, s, "w", now, 10)
		if len(ds) == 0 {
			return out
		}
		for _, d := range ds {
			out[d.Config.GetId()] = append(out[d.Config.GetId()], d)
		}
		finish(t, s, ds)
	}
	t.Fatal("the outbox did not empty after 100 claims")
	return nil
}

// testOutboxTaskPayload: on one task, a config registered through v1.0 is
// queued every event of a write, one registered through v0.3 the task as
// written, once per write (with the id of the write's last event); each
// delivery carries the version of its config.
func testOutboxTaskPayload(t *testing.T, s OutboxStore) {
	rec := mustCreate(t, s, "T", "", newTask("t1", "c", submitted, 0))
	saveVersioned(t, s, "T", v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "new", Url: "https://new.example/hook"}))
	saveVersioned(t, s, "T", v03(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "old", Url: "https://old.example/hook"}))
	t2 := next(rec.Task, working, time.Second)
	t2.Artifacts = []*a2av1.Artifact{{ArtifactId: "a1", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hi"}}}}}
	art := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t1", Artifact: t2.Artifacts[0]}}}
	v2 := mustUpdate(t, s, "T", t2, rec.Version, art, statusEvent(t2))
	t3 := next(t2, completed, 2*time.Second)
	v3 := mustUpdate(t, s, "T", t3, v2, statusEvent(t3))
	got := drain(t, s)

	var newIDs []string
	for _, d := range got["new"] {
		newIDs = append(newIDs, d.ID)
		if d.ProtocolVersion != v10Version || d.Event.GetTask() != nil {
			t.Fatalf("delivery %s to the 1.0 config: version %q, event %v; want 1.0 and an event", d.ID, d.ProtocolVersion, d.Event)
		}
	}
	wantNew := []string{store.DeliveryID("T", "t1", v2, 0, "new"), store.DeliveryID("T", "t1", v2, 1, "new"), store.DeliveryID("T", "t1", v3, 0, "new")}
	if !slices.Equal(newIDs, wantNew) {
		t.Fatalf("deliveries to the 1.0 config = %v, want every event in order %v", newIDs, wantNew)
	}
	old := got["old"]
	var oldIDs []string
	for _, d := range old {
		oldIDs = append(oldIDs, d.ID)
	}
	wantOld := []string{store.DeliveryID("T", "t1", v2, 1, "old"), store.DeliveryID("T", "t1", v3, 0, "old")}
	if !slices.Equal(oldIDs, wantOld) {
		t.Fatalf("deliveries to the 0.3 config = %v, want one per write %v", oldIDs, wantOld)
	}
	for i, want := range []*a2av1.Task{t2, t3} {
		d := old[i]
		if d.ProtocolVersion != v03Version || !proto.Equal(d.Event.GetTask(), want) {
			t.Fatalf("delivery %s to the 0.3 config: version %q, event %v; want 0.3 and the task as written %v", d.ID, d.ProtocolVersion, d.Event, want)
		}
	}
}

// testOutboxTaskPayloadAtCreate: an inline v0.3 config of a new task is
// queued the task as created, once, whatever the creation's events.
func testOutboxTaskPayloadAtCreate(t *testing.T, s OutboxStore) {
	submittedTask := newTask("t1", "c", submitted, 0)
	started := next(submittedTask, working, time.Second)
	mustCreateWith(t, context.Background(), s, store.Creation{
		Record: store.Record{Tenant: "T", Task: started},
		PushConfigs: []store.PushConfig{
			v03(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "old", Url: "https://old.example"}),
			v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "new", Url: "https://new.example"}),
		},
		Events: []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_Task{Task: submittedTask}}, statusEvent(started)},
	})
	got := drain(t, s)
	if n := len(got["new"]); n != 2 {
		t.Fatalf("the 1.0 config got %d deliveries, want the 2 events", n)
	}
	old := got["old"]
	if len(old) != 1 || old[0].ID != store.DeliveryID("T", "t1", 1, 1, "old") || old[0].ProtocolVersion != v03Version || !proto.Equal(old[0].Event.GetTask(), started) {
		t.Fatalf("the 0.3 config got %+v, want one delivery of the task as created (WORKING)", old)
	}
}

// testOutboxFormKeptWhenReplaced: a delivery keeps the form it was queued
// in when its config is registered again through another version; later
// writes are queued in the new form.
func testOutboxFormKeptWhenReplaced(t *testing.T, s OutboxStore) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	saveVersioned(t, s, "", v10(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://one.example/hook"}))
	t2 := next(rec.Task, working, time.Second)
	v2 := mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	saveVersioned(t, s, "", v03(&a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://two.example/hook"}))
	t3 := next(t2, completed, 2*time.Second)
	v3 := mustUpdate(t, s, "", t3, v2, statusEvent(t3))
	ds := drain(t, s)["p"]
	if len(ds) != 2 {
		t.Fatalf("deliveries to p = %d, want 2", len(ds))
	}
	first, second := ds[0], ds[1]
	if first.ID != store.DeliveryID("", "t1", v2, 0, "p") || first.ProtocolVersion != v10Version || first.Event.GetStatusUpdate() == nil ||
		first.Config.GetUrl() != "https://two.example/hook" {
		t.Fatalf("pending delivery after re-registering through 0.3 = %+v; want the 1.0 status event, to the new URL", first)
	}
	if second.ID != store.DeliveryID("", "t1", v3, 0, "p") || second.ProtocolVersion != v03Version || !proto.Equal(second.Event.GetTask(), t3) {
		t.Fatalf("delivery of the next write = %+v; want the task in the 0.3 form", second)
	}
}
