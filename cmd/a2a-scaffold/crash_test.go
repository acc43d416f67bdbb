//go:build unix

package main

import (
	"context"
	"net"
	"net/http"
	"os"
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

// crashManifest is a small agent with push notifications (to loopback: the
// SSRF guard is off) on every binding. Its addresses are never listened on:
// the test moves them to free ports with -listen.
const crashManifest = `apiVersion: a2agen/v1
name: Crash Agent
description: Works until it is stopped.
version: "1.0.0"
module: example.com/crashagent
bindings:
  - binding: JSONRPC
    address: "127.0.0.1:18080"
    path: /a2a
  - binding: HTTP+JSON
    address: "127.0.0.1:18080"
    path: /a2a/rest
  - binding: GRPC
    address: "127.0.0.1:19090"
capabilities:
  streaming: true
  pushNotifications: true
skills:
  - id: work
    name: Work
    description: Works on the text it is sent.
    tags: [test]
push:
  allowPrivateNetworks: true
`

// crashSkill replaces the generated stub of skill "work" (the file is the
// user's): "slow" works until its task is canceled or the agent stops,
// anything else completes at once with an artifact.
const crashSkill = `package main

import (
	"context"
	"strings"

	"github.com/a2agen/a2agen/server"
)

func skillWork(ctx context.Context, req *server.Request, events *server.Events) error {
	if strings.TrimSpace(req.Text()) == "slow" {
		if err := events.Working(); err != nil {
			return err
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}
	if err := events.Artifact(server.TextArtifact("", "Done: "+req.Text())); err != nil {
		return err
	}
	return events.Complete(nil)
}
`

// TestScaffoldedAgentSurvivesCrash scaffolds an agent against this
// checkout, builds it and runs it on a SQLite file named by A2A_STORE (no
// -store flag); leaves two completed tasks and a working one with an inline
// webhook on loopback; kills the process with SIGKILL and starts it again
// with -store naming the same file (and A2A_STORE another, which the flag
// overrides). Over every binding the completed tasks must be unchanged, the
// working one FAILED ("agent stopped"), ListTasks the same set and the push
// config still there; the webhook gets the FAILED event and new tasks
// complete. Neither the default store (data/agent.db) nor the overridden
// one is created.
func TestScaffoldedAgentSurvivesCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project and kills it")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	began := time.Now()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "crashagent")
	tmp := filepath.Dir(dir)
	if r := runCLI(t, "", "new", "crashagent", "--manifest", writeFile(t, "agent.yaml", crashManifest), "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	if err := os.WriteFile(filepath.Join(dir, "skill_work.go"), []byte(crashSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildProject(t, dir) // logs how long the build took

	runDir := filepath.Join(tmp, "run") // working directory: where data/agent.db would go
	if err := os.Mkdir(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tmp, "agent.db")
	other := filepath.Join(tmp, "other.db")
	// Free ports for each start: mapping both addresses to 127.0.0.1:0 would
	// put them on one listener (host.Main keys listeners by address), and
	// gRPC would not be served.
	listen := func() []string {
		return []string{"-listen", "127.0.0.1:18080=" + freeAddr(t), "-listen", "127.0.0.1:19090=" + freeAddr(t)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	hook := proctest.NewWebhook(t)
	const hookPath = "/hooks/working"

	// First run: the store comes from A2A_STORE.
	first := proctest.Start(t, bin, proctest.Options{Args: listen(), Env: []string{"A2A_STORE=sqlite:" + db}, Dir: runDir})
	if got := first.Endpoints["store"]; got != "sqlite:"+db {
		t.Fatalf("with A2A_STORE=sqlite:%s the agent uses the store %q", db, got)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the store of A2A_STORE: %v", err)
	}
	c := first.Clients(t)
	completed := []string{
		proctest.WantState(t, proctest.SendTask(ctx, t, c[runtime.BindingGRPC], "hello", nil), a2av1.TaskState_TASK_STATE_COMPLETED).GetId(),
		proctest.WantState(t, proctest.SendTask(ctx, t, c[runtime.BindingHTTPJSON], "bonjour", nil), a2av1.TaskState_TASK_STATE_COMPLETED).GetId(),
	}
	working := proctest.SendTask(ctx, t, c[runtime.BindingJSONRPC], "slow", &a2av1.SendMessageConfiguration{
		ReturnImmediately:          true,
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: hook.URL + hookPath, Token: "tok"},
	}).GetId()
	proctest.WaitTask(ctx, t, c[runtime.BindingJSONRPC], working, 10*time.Second, "WORKING", func(task *a2av1.Task) bool {
		return task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_WORKING
	})

	before := map[string]*a2av1.Task{}
	for _, id := range append(slices.Clone(completed), working) {
		before[id] = proctest.SameOnEveryBinding(ctx, t, c, id)
	}
	if got := proctest.ArtifactText(before[completed[0]]); got != "Done: hello" {
		t.Fatalf("the user's skill answered %q, want %q", got, "Done: hello")
	}
	listBefore := proctest.ListAll(ctx, t, c[runtime.BindingJSONRPC])
	if got, want := proctest.TaskIDs(listBefore), slices.Sorted(slices.Values(append(slices.Clone(completed), working))); !slices.Equal(got, want) {
		t.Fatalf("ListTasks = %v, want %v", got, want)
	}
	configsBefore := proctest.ListConfigs(ctx, t, c[runtime.BindingGRPC], working)
	if len(configsBefore.GetConfigs()) != 1 {
		t.Fatalf("push configs of the working task: %v, want the inline one", configsBefore)
	}

	// Kill once the webhook has the WORKING event and nothing is in flight.
	hook.Wait(t, hookPath, 10*time.Second, "WORKING event", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds, func(d proctest.Delivery) bool { return proctest.StateOf(d.Event) == a2av1.TaskState_TASK_STATE_WORKING })
	})
	if !proctest.Poll(5*time.Second, func() bool { return hook.Idle() >= 250*time.Millisecond }) {
		t.Fatal("the webhook keeps receiving requests")
	}
	seen := len(hook.Deliveries(hookPath))
	first.Kill(t)

	// Second run: -store names the same file and wins over A2A_STORE.
	second := proctest.Start(t, bin, proctest.Options{
		Args: append([]string{"-store", "sqlite:" + db}, listen()...), Env: []string{"A2A_STORE=sqlite:" + other}, Dir: runDir})
	if got := second.Endpoints["store"]; got != "sqlite:"+db {
		t.Fatalf("with -store sqlite:%s and A2A_STORE=sqlite:%s the agent uses the store %q", db, other, got)
	}
	c2 := second.Clients(t)

	for _, b := range proctest.Bindings {
		got := proctest.WaitTask(ctx, t, c2[b], working, 10*time.Second, "settled", func(task *a2av1.Task) bool {
			return proctest.IsFinal(task.GetStatus().GetState())
		})
		if st := got.GetStatus(); st.GetState() != a2av1.TaskState_TASK_STATE_FAILED || !strings.Contains(server.MessageText(st.GetMessage()), "agent stopped") {
			t.Fatalf("%s: the task working at the crash is %v after the restart, want FAILED saying the agent stopped", b, st)
		}
		if rest := proctest.WithStatusOf(got, before[working]); !proto.Equal(rest, before[working]) {
			t.Errorf("%s: the task working at the crash changed beyond its status:\n got %v\nwant %v", b, got, before[working])
		}
		for _, id := range completed {
			got, err := c2[b].GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
			if err != nil || !proto.Equal(got, before[id]) {
				t.Errorf("%s: completed task after the restart: %v, %v\nwant %v", b, got, err, before[id])
			}
		}
		if got := proctest.ListConfigs(ctx, t, c2[b], working); !proto.Equal(got, configsBefore) {
			t.Errorf("%s: push configs after the restart %v, want %v", b, got, configsBefore)
		}
	}
	after := proctest.SameOnEveryBinding(ctx, t, c2, working)
	for _, b := range proctest.Bindings {
		l := proctest.ListAll(ctx, t, c2[b])
		if got, want := proctest.TaskIDs(l), proctest.TaskIDs(listBefore); !slices.Equal(got, want) {
			t.Errorf("%s: ListTasks after the restart lists %v, want %v", b, got, want)
			continue
		}
		for _, task := range l.GetTasks() {
			want := listed(listBefore, task.GetId())
			if task.GetId() == working {
				want = proctest.WithStatusOf(want, after)
			}
			if !proto.Equal(task, want) {
				t.Errorf("%s: ListTasks after the restart has\n %v\nwant %v", b, task, want)
			}
		}
	}

	got := hook.Wait(t, hookPath, 10*time.Second, "FAILED event after the restart", func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds[seen:], func(d proctest.Delivery) bool { return proctest.StateOf(d.Event) == a2av1.TaskState_TASK_STATE_FAILED })
	})
	for _, d := range got {
		if d.Status != http.StatusOK || d.Event == nil || d.ID() == "" || d.Header.Get("X-A2A-Notification-Token") != "tok" {
			t.Errorf("webhook requests:\n%s", proctest.Render(got))
			break
		}
	}
	if ev := got[len(got)-1].Event.GetStatusUpdate(); ev.GetTaskId() != working || !proto.Equal(ev.GetStatus(), after.GetStatus()) {
		t.Errorf("last webhook event %v, want the FAILED status of %s: %v", ev, working, after.GetStatus())
	}

	for _, b := range proctest.Bindings {
		task := proctest.WantState(t, proctest.SendTask(ctx, t, c2[b], "again", nil), a2av1.TaskState_TASK_STATE_COMPLETED)
		if got := proctest.ArtifactText(task); got != "Done: again" {
			t.Errorf("%s: a new task after the restart answered %q", b, got)
		}
	}
	second.Stop(t)
	for _, p := range []string{filepath.Join(runDir, "data"), other} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v): the agent opened a store it was not told to use", p, err)
		}
	}
	t.Logf("took %v", time.Since(began).Round(time.Millisecond))
}

// listed is the task of l with the id.
func listed(l *a2av1.ListTasksResponse, id string) *a2av1.Task {
	for _, task := range l.GetTasks() {
		if task.GetId() == id {
			return task
		}
	}
	return nil
}

// freeAddr is 127.0.0.1 with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
