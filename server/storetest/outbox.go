package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// RunOutbox runs the conformance tests of store.Outbox.
func RunOutbox(t *testing.T, newStore func(t *testing.T) OutboxStore) {
	suite[OutboxStore]{
		{"QueuedWithWrites", testOutboxQueuedWithWrites},
		{"QueuedWithCreate", testOutboxQueuedWithCreate},
		{"NothingWithoutConfigs", testOutboxNothingWithoutConfigs},
		{"NothingFromFailedWrites", testOutboxNothingFromFailedWrites},
		{"Leases", testOutboxLeases},
		{"RetryKeepsOrder", testOutboxRetryKeepsOrder},
		{"ConfigReplaced", testOutboxConfigReplaced},
		{"ConfigDeleted", testOutboxConfigDeleted},
		{"ConcurrentClaims", testOutboxConcurrentClaims},
		{"Wakeup", testOutboxWakeup},
		{"TenantsApart", testOutboxTenantsApart},
		{"TraceContext", testOutboxTraceContext},
		{"TaskPayload", testOutboxTaskPayload},
		{"TaskPayloadAtCreate", testOutboxTaskPayloadAtCreate},
		{"FormKeptWhenReplaced", testOutboxFormKeptWhenReplaced},
	}.run(t, newStore)
}

// now is the clock of the outbox tests: deliveries queued by a write are
// due at the store's current time, which is before now.
var now = time.Now().Add(time.Hour)

func claim(t *testing.T, s OutboxStore, worker string, at time.Time, max int) []store.Delivery {
	t.Helper()
	ds, err := s.ClaimDeliveries(context.Background(), store.Claim{Worker: worker, Now: at, Lease: time.Minute, Max: max})
	must(t, err, "ClaimDeliveries")
	return ds
}

func deliveryIDs(ds []store.Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	slices.Sort(out)
	return out
}

func finish(t *testing.T, s OutboxStore, ds []store.Delivery) {
	t.Helper()
	for _, d := range ds {
		must(t, s.FinishDelivery(context.Background(), d.ID), "FinishDelivery(%s)", d.ID)
	}
}

func saveConfig(t *testing.T, s OutboxStore, tenant, taskID, id string) *a2av1.TaskPushNotificationConfig {
	t.Helper()
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: taskID, Id: id, Url: "https://" + id + ".example/hook", Token: "tok-" + id}
	must(t, s.SavePushConfig(context.Background(), tenant, v10(cfg)), "SavePushConfig(%s)", id)
	return cfg
}

func testOutboxQueuedWithWrites(t *testing.T, s OutboxStore) {
	rec := mustCreate(t, s, "T", "", newTask("t1", "c", submitted, 0))
	saveConfig(t, s, "T", "t1", "p1")
	saveConfig(t, s, "T", "t1", "p2")
	t2 := next(rec.Task, working, time.Second)
	art := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t1"}}}
	v := mustUpdate(t, s, "T", t2, rec.Version, statusEvent(t2), art)
	if _, ok, err := s.NextDelivery(context.Background()); err != nil || !ok {
		t.Fatalf("NextDelivery = %v, %v; want a pending delivery", ok, err)
	}
	// Only the oldest delivery of each config can be claimed.
	first := claim(t, s, "w", now, 10)
	want := []string{store.DeliveryID("T", "t1", v, 0, "p1"), store.DeliveryID("T", "t1", v, 0, "p2")}
	if got := deliveryIDs(first); !slices.Equal(got, want) {
		t.Fatalf("first claim = %v, want the first event for each config %v", got, want)
	}
	for _, d := range first {
		if d.Tenant != "T" || d.Attempts != 0 || d.Event.GetStatusUpdate().GetStatus().GetState() != working || d.Config.GetTaskId() != "t1" {
			t.Fatalf("delivery %+v: want tenant T, no attempts, the WORKING update, a config of t1", d)
		}
	}
	if more := claim(t, s, "w", now, 10); len(more) != 0 {
		t.Fatalf("claim while the heads are leased = %v, want none", deliveryIDs(more))
	}
	finish(t, s, first)
	second := claim(t, s, "w", now, 10)
	want = []string{store.DeliveryID("T", "t1", v, 1, "p1"), store.DeliveryID("T", "t1", v, 1, "p2")}
	if got := deliveryIDs(second); !slices.Equal(got, want) {
		t.Fatalf("second claim = %v, want the artifact event for each config %v", got, want)
	}
	if second[0].Event.GetArtifactUpdate() == nil {
		t.Fatalf("second delivery carries %v, want the artifact update", second[0].Event)
	}
	finish(t, s, second)
	if _, ok, err := s.NextDelivery(context.Background()); err != nil || ok {
		t.Fatalf("NextDelivery after all were finished = %v, %v; want none", ok, err)
	}
	if err := s.FinishDelivery(context.Background(), second[0].ID); err != nil {
		t.Fatalf("FinishDelivery of a finished delivery = %v, want nil", err)
	}
}

func testOutboxQueuedWithCreate(t *testing.T, s OutboxStore) {
	task := newTask("t1", "c", submitted, 0)
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "inline", Url: "https://inline.example"}
	mustCreateWith(t, context.Background(), s, store.Creation{
		Record:      store.Record{Tenant: "T", Task: task},
		PushConfigs: []store.PushConfig{v10(cfg)},
		Events:      []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_Task{Task: task}}},
	})
	ds := claim(t, s, "w", now, 10)
	if len(ds) != 1 || ds[0].ID != store.DeliveryID("T", "t1", 1, 0, "inline") || ds[0].Event.GetTask().GetId() != "t1" {
		t.Fatalf("claim after CreateTask = %+v, want the task event for the inline config", ds)
	}
}

func testOutboxNothingWithoutConfigs(t *testing.T, s OutboxStore) {
	rec := mustCreate(t, s, "", "", newTask("t1", "c", submitted, 0))
	t2 := next(rec.Task, completed, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	claimNone(t, s, now, 10, "deliveries for a task without configs")
}

func testOutboxNothingFromFailedWrites(t *testing.T, s OutboxStore) {
	rec := withConfig(t, s)
	bad := next(rec.Task, working, time.Second)
	_, err := s.UpdateTask(context.Background(), store.Update{Task: bad, Expect: rec.Version + 3, Events: []*a2av1.StreamResponse{statusEvent(bad)}})
	wantErr(t, "stale write", err, store.ErrConflict)
	claimNone(t, s, now, 10, "a refused write queued deliveries")
}

func testOutboxLeases(t *testing.T, s OutboxStore) {
	rec := withConfig(t, s)
	t2 := next(rec.Task, working, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	a := claim(t, s, "a", now, 1)
	if len(a) != 1 {
		t.Fatalf("worker a claimed %d deliveries, want 1", len(a))
	}
	if b := claim(t, s, "b", now.Add(30*time.Second), 1); len(b) != 0 {
		t.Fatalf("worker b claimed %v during a's lease", deliveryIDs(b))
	}
	if at, ok, err := s.NextDelivery(context.Background()); err != nil || !ok || at.Before(now.Add(time.Minute).Add(-time.Millisecond)) {
		t.Fatalf("NextDelivery during the lease = %v, %v, %v; want the lease end %v", at, ok, err, now.Add(time.Minute))
	}
	// a died: after its lease the delivery goes to b, with the same id.
	b := claim(t, s, "b", now.Add(2*time.Minute), 1)
	if len(b) != 1 || b[0].ID != a[0].ID {
		t.Fatalf("after a's lease b claimed %v, want %s", deliveryIDs(b), a[0].ID)
	}
}

func testOutboxRetryKeepsOrder(t *testing.T, s OutboxStore) {
	ctx := context.Background()
	rec := withConfig(t, s)
	cur, v := rec.Task, rec.Version
	for i := range 3 {
		nt := next(cur, working, time.Duration(i+1)*time.Second)
		v = mustUpdate(t, s, "", nt, v, statusEvent(nt))
		cur = nt
	}
	first := claim(t, s, "w", now, 5)
	if len(first) != 1 {
		t.Fatalf("claimed %d, want the oldest only", len(first))
	}
	retryAt := now.Add(10 * time.Minute)
	must(t, s.RetryDelivery(ctx, first[0].ID, 1, retryAt), "RetryDelivery")
	if ds := claim(t, s, "w", now.Add(5*time.Minute), 5); len(ds) != 0 {
		t.Fatalf("claimed %v while the config's oldest delivery waits for its retry: order would break", deliveryIDs(ds))
	}
	if at, ok, err := s.NextDelivery(ctx); err != nil || !ok || !at.Equal(retryAt) {
		t.Fatalf("NextDelivery = %v, %v, %v; want the retry time %v", at, ok, err, retryAt)
	}
	again := claim(t, s, "w", retryAt, 5)
	if len(again) != 1 || again[0].ID != first[0].ID || again[0].Attempts != 1 {
		t.Fatalf("claim at the retry time = %+v, want %s with 1 attempt", again, first[0].ID)
	}
	err := s.RetryDelivery(ctx, "no-such-delivery", 1, retryAt)
	wantErr(t, "RetryDelivery of an unknown delivery", err, store.ErrNotFound)
	var order []string
	for ds := again; len(ds) > 0; ds = claim(t, s, "w", retryAt, 5) {
		order = append(order, ds[0].ID)
		finish(t, s, ds)
	}
	want := []string{store.DeliveryID("", "t1", 2, 0, "p"), store.DeliveryID("", "t1", 3, 0, "p"), store.DeliveryID("", "t1", 4, 0, "p")}
	if !slices.Equal(order, want) || v != 4 {
		t.Fatalf("deliveries in order %v, want %v (the retried one first)", order, want)
	}
}

func testOutboxConfigReplaced(t *testing.T, s OutboxStore) {
	ctx := context.Background()
	rec := withConfig(t, s)
	t2 := next(rec.Task, working, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	moved := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://moved.example/hook", Token: "new"}
	must(t, s.SavePushConfig(ctx, "", v10(moved)), "SavePushConfig")
	ds := claim(t, s, "w", now, 5)
	if len(ds) != 1 || ds[0].Config.GetUrl() != moved.GetUrl() || ds[0].Config.GetToken() != "new" {
		t.Fatalf("pending delivery after the config changed = %+v, want it to go to %s", ds, moved.GetUrl())
	}
}

// testOutboxConfigDeleted: deleting a config stops deliveries of later
// events; the events written while it existed are still delivered.
func testOutboxConfigDeleted(t *testing.T, s OutboxStore) {
	ctx := context.Background()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	saveConfig(t, s, "", "t1", "gone")
	saveConfig(t, s, "", "t1", "kept")
	t2 := next(rec.Task, working, time.Second)
	v := mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2), statusEvent(t2))
	leased := claim(t, s, "w", now, 5)
	must(t, s.DeletePushConfig(ctx, "", "t1", "gone"), "DeletePushConfig")
	t3 := next(t2, working, 2*time.Second)
	v3 := mustUpdate(t, s, "", t3, v, statusEvent(t3))
	var got []string
	for ds := leased; len(ds) > 0; ds = claim(t, s, "w", now, 5) {
		got = append(got, deliveryIDs(ds)...)
		finish(t, s, ds)
	}
	slices.Sort(got)
	want := []string{
		store.DeliveryID("", "t1", v, 0, "gone"), store.DeliveryID("", "t1", v, 0, "kept"),
		store.DeliveryID("", "t1", v, 1, "gone"), store.DeliveryID("", "t1", v, 1, "kept"),
		store.DeliveryID("", "t1", v3, 0, "kept"),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("deliveries %v, want the events written before the delete for both configs and the later one for kept only: %v", got, want)
	}
}

func testOutboxConcurrentClaims(t *testing.T, s OutboxStore) {
	const tasks = 20
	for i := range tasks {
		id := fmt.Sprintf("t%02d", i)
		rec := mustCreate(t, s, "", "", newTask(id, "c", working, 0))
		saveConfig(t, s, "", id, "p")
		cur, v := rec.Task, rec.Version
		for j := range 3 {
			nt := next(cur, working, time.Duration(j+1)*time.Second)
			v = mustUpdate(t, s, "", nt, v, statusEvent(nt))
			cur = nt
		}
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker := fmt.Sprintf("w%d", w)
			for idle := 0; idle < 50; {
				ds, err := s.ClaimDeliveries(context.Background(), store.Claim{Worker: worker, Now: now, Lease: time.Hour, Max: 3})
				if err != nil {
					errs <- err
					return
				}
				if len(ds) == 0 {
					idle++
					time.Sleep(time.Millisecond)
					continue
				}
				for _, d := range ds {
					mu.Lock()
					if other, dup := seen[d.ID]; dup {
						mu.Unlock()
						errs <- fmt.Errorf("delivery %s claimed by %s and %s while leased", d.ID, other, worker)
						return
					}
					seen[d.ID] = worker
					mu.Unlock()
					if err := s.FinishDelivery(context.Background(), d.ID); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != tasks*3 {
		t.Fatalf("%d deliveries handed out, want %d", len(seen), tasks*3)
	}
}

func testOutboxWakeup(t *testing.T, s OutboxStore) {
	rec := withConfig(t, s)
	wake := s.DeliveriesQueued()
	for drained := false; !drained; { // forget earlier signals
		select {
		case <-wake:
		default:
			drained = true
		}
	}
	t2 := next(rec.Task, working, time.Second)
	mustUpdate(t, s, "", t2, rec.Version, statusEvent(t2))
	select {
	case <-wake:
	case <-time.After(5 * time.Second):
		t.Fatal("DeliveriesQueued was not signalled after a write queued a delivery")
	}
}

// testOutboxTenantsApart: the same task and config ids in two tenants are
// two deliveries; settling one leaves the other.
func testOutboxTenantsApart(t *testing.T, s OutboxStore) {
	for _, tenant := range []string{"A", "B"} {
		rec := mustCreate(t, s, tenant, "", newTask("t1", "c", working, 0))
		saveConfig(t, s, tenant, "t1", "p")
		t2 := next(rec.Task, working, time.Second)
		mustUpdate(t, s, tenant, t2, rec.Version, statusEvent(t2))
	}
	ds := claim(t, s, "w", now, 10)
	if len(ds) != 2 || ds[0].ID == ds[1].ID || ds[0].Tenant == ds[1].Tenant {
		t.Fatalf("claimed %+v, want one delivery per tenant with distinct ids", ds)
	}
	finish(t, s, ds[:1])
	must(t, s.RetryDelivery(context.Background(), ds[1].ID, 1, now), "RetryDelivery of the other tenant's delivery after finishing the first")
	again := claim(t, s, "w", now, 10)
	if len(again) != 1 || again[0].ID != ds[1].ID || again[0].Attempts != 1 {
		t.Fatalf("after settling tenant %s's delivery: %+v, want only %s with 1 attempt", ds[0].Tenant, again, ds[1].ID)
	}
}

// testOutboxTraceContext: the trace context of a write travels with the
// deliveries it queued, through a retry, and a write without one queues
// deliveries without one.
func testOutboxTraceContext(t *testing.T, s OutboxStore) {
	ctx := context.Background()
	created := store.TraceContext{Parent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", State: "vendor=a"}
	task := newTask("t1", "c", submitted, 0)
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p", Url: "https://p.example/hook"}
	rec, _, err := s.CreateTask(ctx, store.Creation{
		Record:      store.Record{Tenant: "T", Task: task},
		PushConfigs: []store.PushConfig{v10(cfg)},
		Events:      []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_Task{Task: task}}},
		Trace:       created,
	})
	must(t, err, "CreateTask")
	updated := store.TraceContext{Parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	t2 := next(rec.Task, working, time.Second)
	must(t, errOf(s.UpdateTask(ctx, store.Update{Tenant: "T", Task: t2, Expect: rec.Version, Events: []*a2av1.StreamResponse{statusEvent(t2)}, Trace: updated})), "UpdateTask")
	t3 := next(t2, completed, 2*time.Second)
	mustUpdate(t, s, "T", t3, rec.Version+1, statusEvent(t3))

	ds := claim(t, s, "w", now, 10)
	if len(ds) != 1 || ds[0].Trace != created {
		t.Fatalf("delivery of the created task = %+v, want trace %+v", ds, created)
	}
	// A retry keeps the trace context.
	must(t, s.RetryDelivery(ctx, ds[0].ID, 1, now.Add(-time.Second)), "RetryDelivery")
	ds = claim(t, s, "w", now, 10)
	if len(ds) != 1 || ds[0].Trace != created || ds[0].Attempts != 1 {
		t.Fatalf("retried delivery = %+v, want trace %+v after 1 attempt", ds, created)
	}
	finish(t, s, ds)
	ds = claim(t, s, "w", now, 10)
	if len(ds) != 1 || ds[0].Trace != updated {
		t.Fatalf("delivery of the update = %+v, want trace %+v", ds, updated)
	}
	finish(t, s, ds)
	ds = claim(t, s, "w", now, 10)
	if len(ds) != 1 || ds[0].Trace != (store.TraceContext{}) {
		t.Fatalf("delivery of a write without trace context = %+v, want none", ds)
	}
}

// withConfig creates task t1 (working) with push config p.
func withConfig(t *testing.T, s OutboxStore) store.Record {
	t.Helper()
	rec := mustCreate(t, s, "", "", newTask("t1", "c", working, 0))
	saveConfig(t, s, "", "t1", "p")
	return rec
}

// claimNone claims up to max deliveries at time at and wants none (what
// says why none is due).
func claimNone(t *testing.T, s OutboxStore, at time.Time, max int, what string) {
	t.Helper()
	if ds := claim(t, s, "w", at, max); len(ds) != 0 {
		t.Fatalf("%s: %v", what, deliveryIDs(ds))
	}
}
