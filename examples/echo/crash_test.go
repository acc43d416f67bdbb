//go:build unix

package main

import (
	"context"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestCrashKeepsTasksAndDeliveries runs the echo binary on a SQLite file,
// leaves tasks in every state the echo agent produces (spread over the three
// bindings) and three webhooks — one inline on a running task, two created
// with CreateTaskPushNotificationConfig on a task then canceled, whose
// receiver refuses them with 503 so that their deliveries are pending — and
// kills the process with SIGKILL between two retries. A new process on the
// same file must serve every task unchanged over every binding, except the
// running one, which it settles FAILED ("agent stopped") and whose webhook
// gets that event once; ListTasks lists the same tasks; the push configs
// are still there; the delivery that was pending arrives once its receiver
// accepts it, with the notification id of the refused attempts; the one
// still refused is given up after 5 attempts counted over both processes;
// and the agent keeps working: a waiting task continues, new tasks
// complete.
func TestCrashKeepsTasksAndDeliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the echo binary and kills it")
	}
	t.Parallel() // its own processes, ports and store; the replica tests, which hold cross-process latencies to wall-clock limits, run alone before
	began := time.Now()
	bin := proctest.Build(t, ".", ".")
	db := filepath.Join(t.TempDir(), "echo.db")
	args := []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--store", "sqlite:" + db,
		"--allow-private-webhooks", "--chunk-interval", "1ms"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	hook := proctest.NewWebhook(t)
	// flakyPath refuses until the crash, refusingPath always.
	const workingPath, flakyPath, refusingPath = "/hooks/working", "/hooks/flaky", "/hooks/refusing"
	hook.Fail(flakyPath, http.StatusServiceUnavailable)
	hook.Fail(refusingPath, http.StatusServiceUnavailable)

	first := proctest.Start(t, bin, proctest.Options{Args: args})
	if got := first.Endpoints["store"]; got != "sqlite:"+db {
		t.Fatalf("store line %q, want sqlite:%s", got, db)
	}
	c := first.Clients(t)
	jsonrpc, rest, grpc := c[runtime.BindingJSONRPC], c[runtime.BindingHTTPJSON], c[runtime.BindingGRPC]

	// One task in every state, spread over the bindings.
	ids := map[string]string{} // role → task id
	ids["completed"] = proctest.WantState(t, proctest.SendTask(ctx, t, jsonrpc, "hello", nil), a2av1.TaskState_TASK_STATE_COMPLETED).GetId()
	ids["streamed"] = streamTask(ctx, t, rest, "stream 5")
	ids["failed"] = proctest.WantState(t, proctest.SendTask(ctx, t, grpc, "fail", nil), a2av1.TaskState_TASK_STATE_FAILED).GetId()
	ids["rejected"] = proctest.WantState(t, proctest.SendTask(ctx, t, jsonrpc, "reject", nil), a2av1.TaskState_TASK_STATE_REJECTED).GetId()
	ids["input"] = proctest.WantState(t, proctest.SendTask(ctx, t, grpc, "input", nil), a2av1.TaskState_TASK_STATE_INPUT_REQUIRED).GetId()

	// WORKING, with a webhook given inline (JSON-RPC).
	ids["working"] = proctest.SendTask(ctx, t, jsonrpc, "slow 600000", &a2av1.SendMessageConfiguration{
		ReturnImmediately: true,
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{
			Url: hook.URL + workingPath, Token: "tok-working",
			Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred-working"}},
	}).GetId()
	proctest.WaitTask(ctx, t, jsonrpc, ids["working"], 10*time.Second, "WORKING", inState(a2av1.TaskState_TASK_STATE_WORKING))

	// CANCELED (HTTP+JSON), with webhooks created over gRPC and JSON-RPC
	// while it worked: the receiver refuses its CANCELED event on both.
	ids["canceled"] = proctest.SendTask(ctx, t, rest, "slow 600000", &a2av1.SendMessageConfiguration{ReturnImmediately: true}).GetId()
	proctest.WaitTask(ctx, t, rest, ids["canceled"], 10*time.Second, "WORKING", inState(a2av1.TaskState_TASK_STATE_WORKING))
	created, err := grpc.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{
		TaskId: ids["canceled"], Url: hook.URL + flakyPath, Token: "tok-flaky"})
	if err != nil || created.GetId() == "" {
		t.Fatalf("CreateTaskPushNotificationConfig: %v, %v", created, err)
	}
	if c, err := jsonrpc.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{
		TaskId: ids["canceled"], Url: hook.URL + refusingPath}); err != nil || c.GetId() == "" || c.GetId() == created.GetId() {
		t.Fatalf("CreateTaskPushNotificationConfig (second): %v, %v", c, err)
	}
	canceled, err := rest.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: ids["canceled"]})
	if err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	if canceled.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatalf("CancelTask answered %v, want CANCELED", canceled.GetStatus())
	}

	// Everything as the first process serves it, the same over every binding.
	roles := slices.Sorted(maps.Keys(ids))
	before := map[string]*a2av1.Task{} // by role
	for _, role := range roles {
		before[role] = proctest.SameOnEveryBinding(ctx, t, c, ids[role])
		t.Logf("%-9s %s %s", role, ids[role], before[role].GetStatus().GetState())
	}
	listBefore := proctest.ListAll(ctx, t, jsonrpc)
	if got, want := proctest.TaskIDs(listBefore), slices.Sorted(maps.Values(ids)); !slices.Equal(got, want) {
		t.Fatalf("ListTasks = %v, want the tasks %v", got, want)
	}
	for _, b := range proctest.Bindings[1:] {
		if l := proctest.ListAll(ctx, t, c[b]); !proto.Equal(l, listBefore) {
			t.Fatalf("ListTasks over %s = %v\nover JSONRPC %v", b, l, listBefore)
		}
	}
	configsBefore := map[string]*a2av1.ListTaskPushNotificationConfigsResponse{}
	for _, role := range []string{"working", "canceled"} {
		configsBefore[role] = proctest.ListConfigs(ctx, t, grpc, ids[role])
	}
	if n, m := len(configsBefore["working"].GetConfigs()), len(configsBefore["canceled"].GetConfigs()); n != 1 || m != 2 {
		t.Fatalf("the working and the canceled task have %d and %d push configs, want 1 and 2", n, m)
	}

	// Before the crash: the running task's webhook got its events up to
	// WORKING, and the refused deliveries have been tried at least twice
	// and are waiting for their next attempt. Killing then leaves no
	// attempt in flight, so nothing waits for a lease to end after the
	// restart, and every attempt made has been counted.
	hook.Wait(t, workingPath, 10*time.Second, "WORKING event", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds, func(d proctest.Delivery) bool { return proctest.StateOf(d.Event) == a2av1.TaskState_TASK_STATE_WORKING })
	})
	var refused []proctest.Delivery
	if !proctest.Poll(10*time.Second, func() bool {
		return betweenRetries(hook, flakyPath) && betweenRetries(hook, refusingPath) && hook.Idle() >= 200*time.Millisecond
	}) {
		t.Fatalf("the refused webhooks were never both waiting for a retry; received:\n%s", proctest.Render(hook.All()))
	}
	workingSeen := len(hook.Deliveries(workingPath))
	first.Kill(t)
	killedAt := time.Now()
	refused = hook.Deliveries(flakyPath) // an attempt racing the kill counts too
	refusedBefore := len(hook.Deliveries(refusingPath))
	if refusedBefore < 2 {
		t.Fatalf("the refusing webhook got %d attempts before the crash, want at least 2", refusedBefore)
	}
	pendingID := refused[0].ID()
	for _, d := range refused {
		if d.ID() == "" || d.ID() != pendingID || d.Status != http.StatusServiceUnavailable ||
			d.Event.GetStatusUpdate().GetTaskId() != ids["canceled"] || proctest.StateOf(d.Event) != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("refused deliveries, want the CANCELED event of %s with one notification id:\n%s", ids["canceled"], proctest.Render(refused))
		}
		if d.Header.Get("X-A2A-Notification-Token") != "tok-flaky" {
			t.Fatalf("refused delivery has token %q, want tok-flaky", d.Header.Get("X-A2A-Notification-Token"))
		}
	}
	if strings.Contains(first.Stderr(), "panic") {
		t.Errorf("the first process panicked:\n%s", first.Stderr())
	}
	t.Logf("killed after %d refused attempts of %s; %d deliveries to the running task's webhook", len(refused), pendingID, workingSeen)

	// Restart on the same file; the receiver accepts everything now.
	hook.Fail(flakyPath, 0)
	second := proctest.Start(t, bin, proctest.Options{Args: args})
	restarted := time.Now()
	if got := second.Endpoints["store"]; got != "sqlite:"+db {
		t.Fatalf("store line after the restart %q, want sqlite:%s", got, db)
	}
	c2 := second.Clients(t)

	// The running task is settled FAILED, on every binding.
	for _, b := range proctest.Bindings {
		got := proctest.WaitTask(ctx, t, c2[b], ids["working"], 10*time.Second, "settled", func(task *a2av1.Task) bool { return proctest.IsFinal(task.GetStatus().GetState()) })
		if st := got.GetStatus(); st.GetState() != a2av1.TaskState_TASK_STATE_FAILED ||
			!strings.Contains(server.MessageText(st.GetMessage()), "agent stopped") {
			t.Fatalf("%s: the task running at the crash is %v, want FAILED with a message saying the agent stopped", b, st)
		}
		// Nothing else of it changed.
		if rest := proctest.WithStatusOf(got, before["working"]); !proto.Equal(rest, before["working"]) {
			t.Errorf("%s: the task running at the crash changed beyond its status:\n got %v\nwant %v", b, got, before["working"])
		}
	}
	after := proctest.SameOnEveryBinding(ctx, t, c2, ids["working"])

	// Every other task is exactly as it was, on every binding.
	for _, role := range roles {
		if role == "working" {
			continue
		}
		for _, b := range proctest.Bindings {
			got, err := c2[b].GetTask(ctx, &a2av1.GetTaskRequest{Id: ids[role]})
			if err != nil {
				t.Fatalf("%s: GetTask(%s task) after the restart: %v", b, role, err)
			}
			if !proto.Equal(got, before[role]) {
				t.Errorf("%s: the %s task after the restart:\n got %v\nwant %v", b, role, got, before[role])
			}
		}
	}

	// ListTasks lists the same set, the same tasks (the settled one as
	// GetTask shows it).
	wantList := map[string]*a2av1.Task{}
	for _, task := range listBefore.GetTasks() {
		wantList[task.GetId()] = task
	}
	wantList[ids["working"]] = proctest.WithStatusOf(wantList[ids["working"]], after)
	for _, b := range proctest.Bindings {
		l := proctest.ListAll(ctx, t, c2[b])
		if got, want := proctest.TaskIDs(l), proctest.TaskIDs(listBefore); !slices.Equal(got, want) || l.GetTotalSize() != listBefore.GetTotalSize() {
			t.Errorf("%s: ListTasks after the restart lists %v (total %d), want %v (total %d)", b, got, l.GetTotalSize(), want, listBefore.GetTotalSize())
			continue
		}
		for _, task := range l.GetTasks() {
			if !proto.Equal(task, wantList[task.GetId()]) {
				t.Errorf("%s: ListTasks after the restart has\n %v\nwant %v", b, task, wantList[task.GetId()])
			}
		}
	}

	// The push configs are still there.
	for _, role := range []string{"working", "canceled"} {
		for _, b := range proctest.Bindings {
			if got := proctest.ListConfigs(ctx, t, c2[b], ids[role]); !proto.Equal(got, configsBefore[role]) {
				t.Errorf("%s: push configs of the %s task after the restart %v, want %v", b, role, got, configsBefore[role])
			}
		}
	}
	for _, b := range proctest.Bindings {
		got, err := c2[b].GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: ids["canceled"], Id: created.GetId()})
		if err != nil || !proto.Equal(got, created) {
			t.Errorf("%s: GetTaskPushNotificationConfig after the restart: %v, %v; want %v", b, got, err, created)
		}
	}

	// The running task's webhook receives its FAILED event.
	got := hook.Wait(t, workingPath, 10*time.Second, "FAILED event after the restart", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds[workingSeen:], func(d proctest.Delivery) bool { return proctest.StateOf(d.Event) == a2av1.TaskState_TASK_STATE_FAILED })
	})
	for _, d := range got[workingSeen:] {
		if proctest.StateOf(d.Event) != a2av1.TaskState_TASK_STATE_FAILED {
			continue
		}
		if d.Status != http.StatusOK || d.Event.GetStatusUpdate().GetTaskId() != ids["working"] ||
			!strings.Contains(server.MessageText(d.Event.GetStatusUpdate().GetStatus().GetMessage()), "agent stopped") ||
			d.Header.Get("X-A2A-Notification-Token") != "tok-working" || d.Header.Get("Authorization") != "Bearer cred-working" || d.ID() == "" {
			t.Errorf("FAILED notification of the running task: %s headers %v", proctest.Render([]proctest.Delivery{d}), d.Header)
		}
		if !proto.Equal(d.Event.GetStatusUpdate().GetStatus(), after.GetStatus()) {
			t.Errorf("FAILED notification has status %v, GetTask %v", d.Event.GetStatusUpdate().GetStatus(), after.GetStatus())
		}
		break
	}
	for _, d := range got {
		if d.Status != http.StatusOK || d.Event == nil {
			t.Errorf("the running task's webhook got a request it did not accept:\n%s", proctest.Render(got))
			break
		}
	}

	// The delivery pending at the crash arrives, with the same id.
	all := hook.Wait(t, flakyPath, 30*time.Second, "accepted delivery after the restart", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds, func(d proctest.Delivery) bool { return d.Status == http.StatusOK })
	})
	i := slices.IndexFunc(all, func(d proctest.Delivery) bool { return d.Status == http.StatusOK })
	ok := all[i]
	if ok.ID() != pendingID || proctest.StateOf(ok.Event) != a2av1.TaskState_TASK_STATE_CANCELED || ok.Event.GetStatusUpdate().GetTaskId() != ids["canceled"] ||
		ok.Header.Get("X-A2A-Notification-Token") != "tok-flaky" {
		t.Errorf("after the restart the refused webhook got\n%s want the CANCELED event of %s with id %s", proctest.Render(all), ids["canceled"], pendingID)
	}
	if !proto.Equal(ok.Event, refused[0].Event) {
		t.Errorf("the delivery after the restart carries %v, the refused attempts %v", ok.Event, refused[0].Event)
	}
	if i+1 > 5 {
		t.Errorf("%d attempts for one notification, more than the 5 allowed:\n%s", i+1, proctest.Render(all))
	}
	if ok.At.Before(killedAt) {
		t.Errorf("accepted before the crash:\n%s", proctest.Render(all))
	}
	t.Logf("pending delivery made %v after the restart (attempt %d)", ok.At.Sub(restarted).Round(time.Millisecond), i+1)

	// The agent keeps working: the waiting task takes its follow-up, new
	// tasks complete, on every binding.
	follow, err := c2[runtime.BindingHTTPJSON].SendMessage(ctx, a2av1.NewSendMessageRequest(
		a2av1.NewFollowUp(&a2av1.Task{Id: ids["input"]}, a2av1.NewTextPart("more"))))
	if err != nil {
		t.Fatalf("follow-up on the waiting task: %v", err)
	}
	if task := follow.GetTask(); task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || proctest.ArtifactText(task) != "Echo: more" {
		t.Errorf("follow-up on the waiting task after the restart answered %v", follow)
	}
	for _, b := range proctest.Bindings {
		task := proctest.WantState(t, proctest.SendTask(ctx, t, c2[b], "hello", nil), a2av1.TaskState_TASK_STATE_COMPLETED)
		if proctest.ArtifactText(task) != "Echo: hello" {
			t.Errorf("%s: hello after the restart answered %v", b, task)
		}
	}

	// Attempts are counted across the restart: the receiver that refuses
	// everything gets 5 attempts in all, then none (were the count restarted,
	// a sixth would follow within 2 s).
	hook.Wait(t, refusingPath, 20*time.Second, "fifth attempt", func(ds []proctest.Delivery) bool { return len(ds) >= 5 })
	time.Sleep(2500 * time.Millisecond)
	gaveUp := hook.Deliveries(refusingPath)
	if len(gaveUp) != 5 {
		t.Errorf("the refusing webhook got %d attempts (%d before the crash), want 5 in all:\n%s", len(gaveUp), refusedBefore, proctest.Render(gaveUp))
	}
	for _, d := range gaveUp {
		if d.ID() != gaveUp[0].ID() || proctest.StateOf(d.Event) != a2av1.TaskState_TASK_STATE_CANCELED || !strings.HasPrefix(d.ID(), strings.TrimSuffix(pendingID, created.GetId())) {
			t.Errorf("the refusing webhook got\n%s want one notification: the CANCELED event (as %s)", proctest.Render(gaveUp), pendingID)
			break
		}
	}
	// The settled task was notified once.
	if n := countState(hook.Deliveries(workingPath)[workingSeen:], a2av1.TaskState_TASK_STATE_FAILED); n != 1 {
		t.Errorf("the running task's webhook got its FAILED event %d times, want once:\n%s", n, proctest.Render(hook.Deliveries(workingPath)))
	}

	second.Stop(t)
	t.Logf("took %v", time.Since(began).Round(time.Millisecond))
}

// betweenRetries reports whether the deliveries to path have been refused 2
// to 4 times and the sender is well inside its wait before the next attempt:
// at least 200 ms after the last answer (the sender has recorded it) and at
// least 150 ms before the next attempt can come. After attempt n the sender
// waits at least 0.25 s·2^(n-1): its backoff starts at 0.5 s, doubles, and
// each wait is drawn from the upper half of its step.
func betweenRetries(hook *proctest.Webhook, path string) bool {
	ds := hook.Deliveries(path)
	n := len(ds)
	if n < 2 || n > 4 {
		return false
	}
	since, earliest := time.Since(ds[n-1].At), 250*time.Millisecond<<(n-1)
	return since >= 200*time.Millisecond && since <= earliest-150*time.Millisecond
}

// countState counts the deliveries whose event reports state.
func countState(ds []proctest.Delivery, state a2av1.TaskState) int {
	n := 0
	for _, d := range ds {
		if proctest.StateOf(d.Event) == state {
			n++
		}
	}
	return n
}

// streamTask streams text as a new message and returns the id of the task,
// which must have completed.
func streamTask(ctx context.Context, t *testing.T, c a2av1.A2AServiceClient, text string) string {
	t.Helper()
	var id string
	var last *a2av1.StreamResponse
	n := 0
	for ev, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(text)}) {
		if err != nil {
			t.Fatalf("SendStreamingMessage(%q) after %d events: %v", text, n, err)
		}
		if n == 0 {
			id = ev.GetTask().GetId()
		}
		n++
		last = ev
	}
	if id == "" || proctest.StateOf(last) != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("SendStreamingMessage(%q): %d events, first task %q, last %v; want a task that completes", text, n, id, last)
	}
	return id
}

// inState is a condition of proctest.WaitTask.
func inState(want a2av1.TaskState) func(*a2av1.Task) bool {
	return func(task *a2av1.Task) bool { return task.GetStatus().GetState() == want }
}
