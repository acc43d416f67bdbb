//go:build unix

package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storeurl"
)

// Replicas of the echo agent in separate processes on one PostgreSQL
// database, as behind a load balancer: every request may land on any of
// them.

// replicaLease is the run lease of the replicas (--run-lease): a dead
// replica's tasks are settled within it plus a sweep (half of it).
const replicaLease = 2 * time.Second

// cluster is the replicas of one test and what starts more.
type cluster struct {
	bin   string
	store string // the store URL of every replica
	args  []string
}

// newCluster prepares replicas on a schema of their own on the test server
// of pgtest.URL.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the echo binary and runs replicas of it on PostgreSQL")
	}
	url := pgtest.URL(t)
	return clusterOn(t, pgtest.WithSchema(url, pgtest.Schema(t, url)))
}

// clusterOn prepares replicas on the store of URL store.
func clusterOn(t *testing.T, store string) *cluster {
	t.Helper()
	return &cluster{
		bin:   proctest.Build(t, ".", "."),
		store: store,
		args: []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--store", store,
			"--allow-private-webhooks", "--chunk-interval", "100ms", "--run-lease", replicaLease.String()},
	}
}

// start starts one more replica, with env added to its environment.
func (c *cluster) start(t *testing.T, env ...string) *proctest.Process {
	t.Helper()
	p := proctest.Start(t, c.bin, proctest.Options{Args: c.args, Env: env})
	if !strings.HasPrefix(p.Endpoints["store"], "postgres://") {
		t.Fatalf("store line %q, want the PostgreSQL URL", p.Endpoints["store"])
	}
	return p
}

// followed is a stream being read in the background, with the arrival time
// of every event.
type followed struct {
	events []*a2av1.StreamResponse
	at     []time.Time
	err    error

	mu    sync.Mutex
	first chan struct{} // closed at the first event (or the end)
	done  chan struct{}
}

func follow(seq func(func(*a2av1.StreamResponse, error) bool)) *followed {
	f := &followed{first: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		var once sync.Once
		defer once.Do(func() { close(f.first) })
		for ev, err := range seq {
			f.mu.Lock()
			if err != nil {
				f.err = err
				f.mu.Unlock()
				return
			}
			f.events = append(f.events, ev)
			f.at = append(f.at, time.Now())
			f.mu.Unlock()
			once.Do(func() { close(f.first) })
		}
	}()
	return f
}

// started waits for the first event and returns it.
func (f *followed) started(t *testing.T, what string) *a2av1.StreamResponse {
	t.Helper()
	select {
	case <-f.first:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no first event within 10s", what)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.events) == 0 {
		t.Fatalf("%s: ended before its first event: %v", what, f.err)
	}
	return f.events[0]
}

// wait waits for the stream's end.
func (f *followed) wait(t *testing.T, what string, d time.Duration) ([]*a2av1.StreamResponse, []time.Time) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(d):
		f.mu.Lock()
		n := len(f.events)
		f.mu.Unlock()
		t.Fatalf("%s: the stream did not end within %v (%d events)", what, d, n)
	}
	if f.err != nil {
		t.Fatalf("%s: the stream failed after %d events: %v", what, len(f.events), f.err)
	}
	return f.events, f.at
}

func describeAll(evs []*a2av1.StreamResponse) string {
	var s []string
	for _, ev := range evs {
		s = append(s, proctest.Describe(ev))
	}
	return strings.Join(s, ", ")
}

// TestReplicasOnPostgres runs three echo replicas on one PostgreSQL schema
// and, over every binding, checks that a task is one task whichever replica
// a request reaches: a subscriber on one replica sees every event of a task
// executing on another, in order; a cancel sent to a third stops the
// execution and every replica shows CANCELED within a second; a follow-up
// sent to another replica than the one that created the task completes it;
// a webhook receives every event, in order, with stable notification ids,
// whichever replica delivers it; and the tasks of a replica killed with
// SIGKILL end FAILED within the lease plus a few seconds, seen by a
// subscriber elsewhere.
func TestReplicasOnPostgres(t *testing.T) {
	began := time.Now()
	c := newCluster(t)
	reps := []*proctest.Process{c.start(t), c.start(t), c.start(t)}
	t.Logf("three replicas started (%v since the test began)", time.Since(began).Round(time.Millisecond))
	hook := proctest.NewWebhook(t)

	for _, b := range proctest.Bindings {
		t.Run(b.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			r1, r2, r3 := reps[0].Client(t, b), reps[1].Client(t, b), reps[2].Client(t, b)
			t.Run("subscribe elsewhere", func(t *testing.T) { subscribeElsewhere(ctx, t, r1, r2, r3) })
			t.Run("cancel elsewhere", func(t *testing.T) { cancelElsewhere(ctx, t, reps[0], r1, r2, r3) })
			t.Run("follow up elsewhere", func(t *testing.T) { followUpElsewhere(ctx, t, r1, r2, r3) })
			t.Run("webhook", func(t *testing.T) { webhookAcrossReplicas(ctx, t, hook, "/hooks/"+b.String(), r1) })
			t.Run("kill -9", func(t *testing.T) { killReplica(ctx, t, c, b, r2, r3) })
		})
	}

	for i, p := range reps {
		if strings.Contains(p.Stderr(), "panic") {
			t.Errorf("replica %d panicked:\n%s", i+1, p.Stderr())
		}
		p.Stop(t)
	}
	t.Logf("took %v", time.Since(began).Round(time.Millisecond))
}

// subscribeElsewhere: "stream 10" sent to replica 1 and streamed there;
// subscribers on replicas 2 and 3 get the snapshot and then exactly the
// rest of the events replica 1 streams, in order.
func subscribeElsewhere(ctx context.Context, t *testing.T, r1, r2, r3 a2av1.A2AServiceClient) {
	const chunks = 10
	src := follow(r1.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("stream %d", chunks))}))
	id := src.started(t, "the stream on replica 1").GetTask().GetId()
	if id == "" {
		t.Fatal("the stream on replica 1 did not start with the task")
	}
	subs := []*followed{
		follow(r2.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id})),
		follow(r3.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id})),
	}
	all, _ := src.wait(t, "the stream on replica 1", 20*time.Second)
	// task, WORKING, the chunks, COMPLETED
	if len(all) != chunks+3 || proctest.StateOf(all[len(all)-1]) != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("replica 1 streamed %s; want the task, WORKING, %d chunks, COMPLETED", describeAll(all), chunks)
	}
	var want strings.Builder
	for i := 1; i <= chunks; i++ {
		fmt.Fprintf(&want, "chunk %d/%d;", i, chunks)
	}
	for i, sub := range subs {
		who := fmt.Sprintf("the subscriber on replica %d", i+2)
		evs, _ := sub.wait(t, who, 20*time.Second)
		snap := evs[0].GetTask()
		rest := evs[1:]
		if snap.GetId() != id || len(rest) == 0 || len(rest) > len(all)-1 {
			t.Fatalf("%s got %s", who, describeAll(evs))
		}
		// What follows the snapshot is exactly what replica 1 streamed last.
		tail := all[len(all)-len(rest):]
		for j := range rest {
			if !proto.Equal(rest[j], tail[j]) {
				t.Fatalf("%s: event %d is %v, replica 1 streamed %v\n(subscriber: %s)\n(replica 1: %s)",
					who, j+1, rest[j], tail[j], describeAll(evs), describeAll(all))
			}
		}
		// And the snapshot holds everything before: together, every chunk once.
		var got strings.Builder
		got.WriteString(proctest.ArtifactText(snap))
		artifacts := 0
		for _, ev := range rest {
			if a := ev.GetArtifactUpdate(); a != nil {
				artifacts++
				got.WriteString(server.MessageText(&a2av1.Message{Parts: a.GetArtifact().GetParts()}))
			}
		}
		if got.String() != want.String() {
			t.Fatalf("%s: snapshot and events hold %q, want %q", who, got.String(), want.String())
		}
		if artifacts < chunks/2 {
			t.Errorf("%s joined late: %d of %d chunks as events (%s)", who, artifacts, chunks, describeAll(evs))
		}
		t.Logf("%s: snapshot %s, then %d events", who, snap.GetStatus().GetState(), len(rest))
	}
}

// cancelElsewhere: a task executing on replica 1, canceled through replica
// 3, is CANCELED on every replica within a second — subscribers on all
// three see it — and its execution on replica 1 stops: "slow 3000" would
// otherwise try to add its artifact after 3 s and log the failure (a write
// to a finished task), and the task would change.
func cancelElsewhere(ctx context.Context, t *testing.T, p1 *proctest.Process, r1, r2, r3 a2av1.A2AServiceClient) {
	task := proctest.SendTask(ctx, t, r1, "slow 3000", &a2av1.SendMessageConfiguration{ReturnImmediately: true})
	id := task.GetId()
	proctest.WaitTask(ctx, t, r1, id, 10*time.Second, "WORKING", func(task *a2av1.Task) bool {
		return task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_WORKING
	})
	working := time.Now() // the 3 s of "slow" began before
	var subs []*followed
	for i, c := range []a2av1.A2AServiceClient{r1, r2, r3} {
		f := follow(c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}))
		f.started(t, fmt.Sprintf("the subscriber on replica %d", i+1))
		subs = append(subs, f)
	}
	stderrBefore := len(p1.Stderr())

	start := time.Now()
	got, err := r3.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: id})
	if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatalf("CancelTask on replica 3: %v, %v", got.GetStatus(), err)
	}
	var last time.Time // the last subscriber's CANCELED
	for i, f := range subs {
		who := fmt.Sprintf("the subscriber on replica %d", i+1)
		evs, at := f.wait(t, who, 5*time.Second)
		if at[len(at)-1].After(last) {
			last = at[len(at)-1]
		}
		if proctest.StateOf(evs[len(evs)-1]) != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("%s got %s, want CANCELED last", who, describeAll(evs))
		}
		if d := at[len(at)-1].Sub(start); d > time.Second {
			t.Errorf("%s saw CANCELED %v after the cancel was sent, want within 1s", who, d)
		}
	}
	for i, c := range []a2av1.A2AServiceClient{r1, r2, r3} {
		proctest.WaitTask(ctx, t, c, id, time.Second, "CANCELED", func(task *a2av1.Task) bool {
			return task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_CANCELED
		})
		if d := time.Since(start); d > time.Second {
			t.Errorf("replica %d shows CANCELED %v after the cancel was sent, want within 1s", i+1, d)
		}
	}
	final, err := r2.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
	if err != nil {
		t.Fatal(err)
	}

	// Past the time the execution would have gone on: nothing changed, and
	// replica 1 did not report a failed write of a still running execution.
	time.Sleep(time.Until(working.Add(3500 * time.Millisecond)))
	for i, c := range []a2av1.A2AServiceClient{r1, r2, r3} {
		now, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
		if err != nil || !proto.Equal(now, final) {
			t.Fatalf("replica %d: the canceled task is now %v (%v), want it unchanged: %v", i+1, now, err, final)
		}
	}
	if log := p1.Stderr()[stderrBefore:]; strings.Contains(log, "executor failed") || strings.Contains(log, id) {
		t.Fatalf("the execution on replica 1 went on after the cancel:\n%s", log)
	}
	t.Logf("canceled through replica 3; CANCELED on all three %v after the call", last.Sub(start).Round(time.Millisecond))
}

// followUpElsewhere: a task created on replica 1 that waits for input is
// completed by a follow-up sent to replica 2 (the signal reaches replica 1,
// which owns the task, and runs the next turn), and every replica shows it.
func followUpElsewhere(ctx context.Context, t *testing.T, r1, r2, r3 a2av1.A2AServiceClient) {
	task := proctest.WantState(t, proctest.SendTask(ctx, t, r1, "input", nil), a2av1.TaskState_TASK_STATE_INPUT_REQUIRED)
	msg := proctest.UserMessage("more")
	msg.TaskId = task.GetId()
	start := time.Now()
	resp, err := r2.SendMessage(ctx, &a2av1.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatalf("follow-up on replica 2: %v", err)
	}
	took := time.Since(start)
	done := resp.GetTask()
	if done.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || proctest.ArtifactText(done) != "Echo: more" {
		t.Fatalf("follow-up on replica 2 answered %v, want COMPLETED with \"Echo: more\"", done)
	}
	if took > 5*time.Second {
		t.Errorf("the follow-up took %v", took)
	}
	for i, c := range []a2av1.A2AServiceClient{r1, r3} {
		got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || !proto.Equal(got, done) {
			t.Fatalf("replica %d shows %v (%v), want %v", 2*i+1, got, err, done)
		}
	}
	t.Logf("follow-up completed through replica 2 in %v", took.Round(time.Millisecond))
}

// webhookAcrossReplicas: a task streamed on replica 1 with an inline
// webhook; every replica's sender works the shared outbox. The receiver
// gets every event at least once (here: exactly once), in the order of the
// stream, each with a stable notification id <task>/<version>.<index>/<config>.
func webhookAcrossReplicas(ctx context.Context, t *testing.T, hook *proctest.Webhook, path string, r1 a2av1.A2AServiceClient) {
	src := follow(r1.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{
		Message:       proctest.UserMessage("stream 5"),
		Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: hook.URL + path, Token: "tok"}},
	}))
	stream, _ := src.wait(t, "the stream on replica 1", 20*time.Second)
	id := stream[0].GetTask().GetId()
	got := hook.Wait(t, path, 10*time.Second, "COMPLETED event", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds, func(d proctest.Delivery) bool {
			return proctest.StateOf(d.Event) == a2av1.TaskState_TASK_STATE_COMPLETED
		})
	})
	// Distinct notifications in the order they first arrived.
	var order []proctest.Delivery
	byID := map[string]proctest.Delivery{}
	for _, d := range got {
		if d.Event == nil || d.ID() == "" || d.Header.Get("X-A2A-Notification-Token") != "tok" {
			t.Fatalf("webhook got an unusable request:\n%s", proctest.Render(got))
		}
		if prev, ok := byID[d.ID()]; ok {
			if !proto.Equal(prev.Event, d.Event) {
				t.Fatalf("notification %s carried %v, then %v", d.ID(), prev.Event, d.Event)
			}
			continue
		}
		byID[d.ID()] = d
		order = append(order, d)
	}
	if len(order) != len(got) {
		t.Logf("%d notifications arrived more than once (allowed: at least once)", len(got)-len(order))
	}
	// The same events as the stream, in its order: the task as created,
	// then every update.
	if len(order) != len(stream) || order[0].Event.GetTask().GetId() != id ||
		proctest.StateOf(order[0].Event) != a2av1.TaskState_TASK_STATE_SUBMITTED {
		t.Fatalf("webhook got\n%s want the %d events of the stream: %s", proctest.Render(order), len(stream), describeAll(stream))
	}
	for i := 1; i < len(stream); i++ {
		if !proto.Equal(order[i].Event, stream[i]) {
			t.Fatalf("notification %d is %v, the stream's event %v\n%s", i, order[i].Event, stream[i], proctest.Render(order))
		}
	}
	// Ids: this task, this config, versions and indexes increasing.
	var cfg string
	lastV, lastI := 0, -1
	for _, d := range order {
		parts := strings.Split(d.ID(), "/")
		if len(parts) != 3 || parts[0] != id {
			t.Fatalf("notification id %q, want %s/<version>.<index>/<config>", d.ID(), id)
		}
		vs, is, _ := strings.Cut(parts[1], ".")
		v, err1 := strconv.Atoi(vs)
		i, err2 := strconv.Atoi(is)
		if cfg == "" {
			cfg = parts[2]
		}
		if err1 != nil || err2 != nil || parts[2] != cfg || v < lastV || v == lastV && i <= lastI {
			t.Fatalf("notification ids out of order or malformed:\n%s", proctest.Render(order))
		}
		lastV, lastI = v, i
	}
}

// killReplica: a fourth replica executing "slow 600000" is killed with
// SIGKILL; a subscriber on replica 2 sees the task end FAILED (the agent
// stopped) within the lease plus a few seconds, and replica 3 shows it.
func killReplica(ctx context.Context, t *testing.T, c *cluster, b runtime.Binding, r2, r3 a2av1.A2AServiceClient) {
	p4 := c.start(t)
	r4 := p4.Client(t, b)
	task := proctest.SendTask(ctx, t, r4, "slow 600000", &a2av1.SendMessageConfiguration{ReturnImmediately: true})
	id := task.GetId()
	proctest.WaitTask(ctx, t, r4, id, 10*time.Second, "WORKING", func(task *a2av1.Task) bool {
		return task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_WORKING
	})
	sub := follow(r2.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}))
	sub.started(t, "the subscriber on replica 2")

	p4.Kill(t)
	killed := time.Now()
	evs, at := sub.wait(t, "the subscriber on replica 2", replicaLease+10*time.Second)
	last := evs[len(evs)-1]
	if proctest.StateOf(last) != a2av1.TaskState_TASK_STATE_FAILED ||
		!strings.Contains(server.MessageText(last.GetStatusUpdate().GetStatus().GetMessage()), "agent stopped") {
		t.Fatalf("the subscriber on replica 2 got %s; want FAILED with a message saying the agent stopped", describeAll(evs))
	}
	took := at[len(at)-1].Sub(killed)
	if limit := replicaLease + 3*time.Second; took > limit {
		t.Errorf("the task of the killed replica ended %v after the kill, want within %v", took, limit)
	}
	got, err := r3.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
	if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED {
		t.Fatalf("replica 3 shows %v (%v), want FAILED", got.GetStatus(), err)
	}
	t.Logf("the killed replica's task ended FAILED %v after the kill", took.Round(time.Millisecond))
}

// TestReplicaLeaseExpiresAcrossHosts runs three replicas with different
// node names (A2A_NODE_NAME), as on three machines: none can tell from a
// pid whether another is alive, so the tasks of a replica killed with
// SIGKILL are settled only once its lease has run out — the path a real
// multi-host deployment depends on (on one host the process being gone
// settles them at once, as killReplica sees). The replica executing "slow"
// is killed right after it renewed its lease (read from the store), so
// nearly a whole lease remains: a subscriber on another replica must see
// the task end FAILED ("the agent stopped") not before the stored lease
// ended, and within it plus a sweep (half a lease) and a few seconds.
func TestReplicaLeaseExpiresAcrossHosts(t *testing.T) {
	began := time.Now()
	c := newCluster(t)
	r1 := c.start(t, "A2A_NODE_NAME=node-a")
	r2 := c.start(t, "A2A_NODE_NAME=node-b")
	victim := c.start(t, "A2A_NODE_NAME=node-c")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The store, opened here too, to read the execution record.
	st, err := storeurl.Open(ctx, c.store, storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var id string
	record := func() store.Record {
		t.Helper()
		rec, err := st.Task(ctx, "", id)
		if err != nil {
			t.Fatalf("reading the execution record: %v", err)
		}
		return rec
	}

	task := proctest.SendTask(ctx, t, victim.Client(t, proctest.Bindings[0]), "slow 600000", &a2av1.SendMessageConfiguration{ReturnImmediately: true})
	id = task.GetId()
	proctest.WaitTask(ctx, t, r2.Client(t, proctest.Bindings[2]), id, 10*time.Second, "WORKING", func(task *a2av1.Task) bool {
		return task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_WORKING
	})
	rec := record()
	if host := store.RunnerHost(rec.Runner); !strings.HasPrefix(host, "node-c") {
		t.Fatalf("the task's runner is %q, want one on node node-c (from A2A_NODE_NAME)", rec.Runner)
	}
	sub := follow(r1.Client(t, proctest.Bindings[1]).SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}))
	sub.started(t, "the subscriber on replica 1")

	// Kill the replica as soon as it has renewed its lease (every third of
	// it).
	before := record().LeaseUntil
	if !proctest.Poll(replicaLease+5*time.Second, func() bool { return record().LeaseUntil.After(before) }) {
		t.Fatalf("the lease (until %v) was not renewed within %v", before, replicaLease+5*time.Second)
	}
	victim.Kill(t)
	killed := time.Now()
	rec = record() // final: nobody renews it any more
	if rec.Task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_WORKING {
		t.Fatalf("the task is %v right after the kill", rec.Task.GetStatus())
	}
	leaseEnd := rec.LeaseUntil
	if left := leaseEnd.Sub(killed); left < replicaLease/4 {
		t.Fatalf("only %v of the lease was left at the kill (renewed until %v); want most of %v, so that the lease path can be told from the same-host one",
			left, leaseEnd, replicaLease)
	}

	evs, at := sub.wait(t, "the subscriber on replica 1", replicaLease+15*time.Second)
	last := evs[len(evs)-1]
	if proctest.StateOf(last) != a2av1.TaskState_TASK_STATE_FAILED ||
		!strings.Contains(server.MessageText(last.GetStatusUpdate().GetStatus().GetMessage()), "agent stopped") {
		t.Fatalf("the subscriber on replica 1 got %s; want FAILED with a message saying the agent stopped", describeAll(evs))
	}
	failed := at[len(at)-1]
	// Not before the lease ended (50 ms for clock adjustments): nothing but
	// its end may settle a replica of another host.
	if failed.Before(leaseEnd.Add(-50 * time.Millisecond)) {
		t.Errorf("the task ended FAILED %v after the kill, %v before its runner's lease ended: a replica took a live-looking runner of another node for gone",
			failed.Sub(killed).Round(time.Millisecond), leaseEnd.Sub(failed).Round(time.Millisecond))
	}
	if limit := replicaLease/2 + 3*time.Second; failed.Sub(leaseEnd) > limit {
		t.Errorf("the task ended FAILED %v after its lease ended, want within %v (a sweep and some slack)", failed.Sub(leaseEnd), limit)
	}
	got, err := r2.Client(t, proctest.Bindings[0]).GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
	if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED {
		t.Fatalf("replica 2 shows %v (%v), want FAILED", got.GetStatus(), err)
	}
	t.Logf("killed %v before the lease's end; FAILED %v after the kill, %v after the lease's end (took %v)",
		leaseEnd.Sub(killed).Round(time.Millisecond), failed.Sub(killed).Round(time.Millisecond),
		failed.Sub(leaseEnd).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	for i, p := range []*proctest.Process{r1, r2} {
		if strings.Contains(p.Stderr(), "panic") {
			t.Errorf("replica %d panicked:\n%s", i+1, p.Stderr())
		}
		p.Stop(t)
	}
}

// TestReplicasSurvivePostgresRestart restarts the PostgreSQL server under
// three replicas while a task streams and subscribers on the other replicas
// follow it: calls in flight during the restart fail cleanly (an error, no
// hang), subscribers catch up and see every event that was stored, in
// order, and every replica serves again afterwards. The server is the
// test's own (pgtest.StartServer), so the restart disturbs no one; the test
// skips when PostgreSQL's server binaries are not installed (and fails
// then with A2AGEN_TEST_POSTGRES_SERVER=1, as in CI).
func TestReplicasSurvivePostgresRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server and replicas of the echo binary on it")
	}
	began := time.Now()
	srv := pgtest.StartServer(t)
	c := clusterOn(t, srv.URL)
	reps := []*proctest.Process{c.start(t), c.start(t), c.start(t)}
	clients := make([]a2av1.A2AServiceClient, len(reps))
	for i, p := range reps {
		clients[i] = p.Client(t, proctest.Bindings[i%len(proctest.Bindings)])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	hook := proctest.NewWebhook(t)
	const path = "/hooks/restart"

	// A long stream on replica 1 with a webhook, followed on 2 and 3.
	const chunks = 50 // 5 s at 100 ms
	src := follow(clients[0].SendStreamingMessage(ctx, &a2av1.SendMessageRequest{
		Message:       proctest.UserMessage(fmt.Sprintf("stream %d", chunks)),
		Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: hook.URL + path}},
	}))
	id := src.started(t, "the stream on replica 1").GetTask().GetId()
	subs := []*followed{
		follow(clients[1].SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id})),
		follow(clients[2].SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id})),
	}
	for i, s := range subs {
		s.started(t, fmt.Sprintf("the subscriber on replica %d", i+2))
	}
	time.Sleep(time.Second)

	// Calls made while the server restarts.
	type result struct {
		took time.Duration
		err  error
	}
	inFlight := make(chan result, 4096)
	stopCalls := make(chan struct{})
	var calls sync.WaitGroup
	for i, cl := range clients {
		calls.Add(1)
		go func() {
			defer calls.Done()
			for {
				select {
				case <-stopCalls:
					return
				default:
				}
				cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
				start := time.Now()
				_, err := cl.SendMessage(cctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("hello %d", i))})
				ccancel()
				select {
				case inFlight <- result{time.Since(start), err}:
				default:
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	restart := time.Now()
	srv.Restart(t)
	t.Logf("PostgreSQL restarted in %v", time.Since(restart).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	close(stopCalls)
	calls.Wait()
	close(inFlight)
	failedCalls := 0
	for r := range inFlight {
		if r.err != nil {
			failedCalls++
			t.Logf("a call during the restart failed after %v: %v", r.took.Round(time.Millisecond), r.err)
		}
		if r.took > 20*time.Second {
			t.Errorf("a call during the restart took %v", r.took)
		}
	}

	// The stream's task ends (COMPLETED, or FAILED if a write of the
	// execution failed during the restart); every subscriber saw every
	// stored event once, in order: its snapshot and events add up to the
	// stored task.
	final := proctest.WaitTask(ctx, t, clients[1], id, 60*time.Second, "finished", func(task *a2av1.Task) bool {
		return proctest.IsFinal(task.GetStatus().GetState())
	})
	t.Logf("the streamed task ended %s with %q", final.GetStatus().GetState(), proctest.ArtifactText(final))
	for i, s := range subs {
		who := fmt.Sprintf("the subscriber on replica %d", i+2)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not end", who)
		}
		if s.err != nil {
			// A stream cut by the restart ends with an error; the client
			// subscribes again (the task may have finished by then).
			t.Logf("%s ended with an error: %v", who, s.err)
			continue
		}
		var text strings.Builder
		text.WriteString(proctest.ArtifactText(s.events[0].GetTask()))
		for _, ev := range s.events[1:] {
			if a := ev.GetArtifactUpdate(); a != nil {
				text.WriteString(server.MessageText(&a2av1.Message{Parts: a.GetArtifact().GetParts()}))
			}
		}
		last := s.events[len(s.events)-1]
		if text.String() != proctest.ArtifactText(final) || !proto.Equal(last.GetStatusUpdate().GetStatus(), final.GetStatus()) {
			t.Errorf("%s: snapshot and events hold %q ending %s; the stored task %q %s", who, text.String(),
				proctest.Describe(last), proctest.ArtifactText(final), final.GetStatus().GetState())
		}
	}

	// Every replica serves again, streams included; the webhook got every
	// event of the task, in order.
	for i, cl := range clients {
		var task *a2av1.Task
		if !proctest.Poll(15*time.Second, func() bool {
			resp, err := cl.SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage("hello")})
			task = resp.GetTask()
			return err == nil
		}) {
			t.Fatalf("replica %d does not serve after the restart", i+1)
		}
		proctest.WantState(t, task, a2av1.TaskState_TASK_STATE_COMPLETED)
		sub := follow(cl.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage("stream 3")}))
		if evs, _ := sub.wait(t, fmt.Sprintf("a stream on replica %d after the restart", i+1), 20*time.Second); proctest.StateOf(evs[len(evs)-1]) != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("replica %d streamed %s after the restart", i+1, describeAll(evs))
		}
	}
	got := hook.Wait(t, path, 30*time.Second, "final event", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds, func(d proctest.Delivery) bool { return proctest.IsFinal(proctest.StateOf(d.Event)) })
	})
	seen := map[string]bool{}
	var text strings.Builder
	for _, d := range got {
		if seen[d.ID()] {
			continue
		}
		seen[d.ID()] = true
		if a := d.Event.GetArtifactUpdate(); a != nil {
			text.WriteString(server.MessageText(&a2av1.Message{Parts: a.GetArtifact().GetParts()}))
		}
	}
	if text.String() != proctest.ArtifactText(final) {
		t.Errorf("the webhook's chunks add up to %q, the stored task has %q", text.String(), proctest.ArtifactText(final))
	}
	t.Logf("%d calls failed during the restart; took %v", failedCalls, time.Since(began).Round(time.Millisecond))
	for _, p := range reps {
		p.Stop(t)
	}
}
