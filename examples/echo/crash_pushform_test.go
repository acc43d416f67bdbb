//go:build unix

package main

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// TestCrashKeepsPushFormSQLite: the form of a pending push delivery (a v0.3
// Task for a webhook registered through v0.3, a v1.0 StreamResponse for one
// registered through v1.0) survives SIGKILL of a process on a SQLite file
// (pushFormAcrossCrash).
func TestCrashKeepsPushFormSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the echo binary and kills it")
	}
	t.Parallel() // its own processes, ports and store
	pushFormAcrossCrash(t, "sqlite:"+filepath.Join(t.TempDir(), "echo.db"))
}

// TestCrashKeepsPushFormPostgres is TestCrashKeepsPushFormSQLite on
// PostgreSQL (a schema of its own on the server of A2AGEN_TEST_POSTGRES).
func TestCrashKeepsPushFormPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the echo binary and kills it")
	}
	t.Parallel() // its own processes, ports and store
	url := pgtest.URL(t)
	pushFormAcrossCrash(t, pgtest.WithSchema(url, pgtest.Schema(t, url)))
}

// pushFormAcrossCrash runs echo --v03 on store, registers two webhooks on
// one running task — one with tasks/pushNotificationConfig/set (A2A v0.3
// JSON-RPC), one with CreateTaskPushNotificationConfig (v1.0) — cancels the
// task while the receiver refuses both with 503, and kills the process
// with SIGKILL between two retries. The refused attempts already carry
// each webhook's form. A new process on the same store delivers both
// pending notifications once the receiver accepts them, with the ids of
// the refused attempts and in the same forms: the v0.3 webhook the
// canceled task as a v0.3 Task, the v1.0 one the CANCELED status update.
func pushFormAcrossCrash(t *testing.T, store string) {
	bin := proctest.Build(t, ".", ".")
	args := []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--store", store,
		"--allow-private-webhooks", "--v03"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	hook := proctest.NewWebhook(t)
	const v03Path, v10Path = "/hooks/v03", "/hooks/v10"
	hook.Fail(v03Path, http.StatusServiceUnavailable)
	hook.Fail(v10Path, http.StatusServiceUnavailable)

	first := proctest.Start(t, bin, proctest.Options{Args: args})
	v10 := first.Client(t, runtime.BindingJSONRPC)
	v03 := a2av1.NewA2AServiceClient(a2av03.NewJSONRPCClientTransport(first.Endpoints[runtime.BindingJSONRPC]))
	t.Cleanup(func() { _ = v03.Close() })

	id := proctest.SendTask(ctx, t, v10, "slow 600000", &a2av1.SendMessageConfiguration{ReturnImmediately: true}).GetId()
	proctest.WaitTask(ctx, t, v10, id, 10*time.Second, "WORKING", inState(a2av1.TaskState_TASK_STATE_WORKING))
	if _, err := v03.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{
		TaskId: id, Id: "old", Url: hook.URL + v03Path, Token: "tok-v03"}); err != nil {
		t.Fatalf("tasks/pushNotificationConfig/set (v0.3): %v", err)
	}
	if _, err := v10.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{
		TaskId: id, Id: "new", Url: hook.URL + v10Path, Token: "tok-v10"}); err != nil {
		t.Fatalf("CreateTaskPushNotificationConfig (v1.0): %v", err)
	}
	if _, err := v10.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: id}); err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	if !proctest.Poll(20*time.Second, func() bool {
		return betweenRetries(hook, v03Path) && betweenRetries(hook, v10Path) && hook.Idle() >= 200*time.Millisecond
	}) {
		t.Fatalf("the refused webhooks were never both waiting for a retry; received:\n%s", proctest.Render(hook.All()))
	}
	first.Kill(t)
	refusedV03, refusedV10 := hook.Deliveries(v03Path), hook.Deliveries(v10Path)
	for _, d := range refusedV03 {
		if task, err := proctest.DecodeV03Task(d.Body); err != nil || task.ID != id || task.Status.State != "canceled" || d.ID() != refusedV03[0].ID() {
			t.Fatalf("refused attempt to the v0.3 webhook: %s (%v); want the canceled task as a v0.3 Task, one notification id", d.Body, err)
		}
	}
	for _, d := range refusedV10 {
		if proctest.StateOf(d.Event) != a2av1.TaskState_TASK_STATE_CANCELED || d.Event.GetStatusUpdate() == nil || d.ID() != refusedV10[0].ID() {
			t.Fatalf("refused attempt to the v1.0 webhook: %s; want the CANCELED status update, one notification id", d.Body)
		}
	}

	// Restart on the same store; the receiver accepts everything now.
	hook.Fail(v03Path, 0)
	hook.Fail(v10Path, 0)
	second := proctest.Start(t, bin, proctest.Options{Args: args})
	accepted := func(ds []proctest.Delivery) bool {
		return slices.ContainsFunc(ds, func(d proctest.Delivery) bool { return d.Status == http.StatusOK })
	}
	for path, refused := range map[string][]proctest.Delivery{v03Path: refusedV03, v10Path: refusedV10} {
		all := hook.Wait(t, path, 30*time.Second, "accepted delivery after the restart", accepted)
		ok := all[slices.IndexFunc(all, func(d proctest.Delivery) bool { return d.Status == http.StatusOK })]
		if ok.ID() != refused[0].ID() {
			t.Errorf("%s: the delivery after the restart has id %q, the refused attempts %q", path, ok.ID(), refused[0].ID())
		}
		if path == v03Path {
			task, err := proctest.DecodeV03Task(ok.Body)
			if err != nil || task.ID != id || task.Status.State != "canceled" || ok.Header.Get("Content-Type") != a2av03.PushContentType ||
				ok.Header.Get("X-A2A-Notification-Token") != "tok-v03" {
				t.Errorf("the v0.3 webhook got %s as %q (%v) after the restart; want the canceled task as a v0.3 Task, as %s, with its token",
					ok.Body, ok.Header.Get("Content-Type"), err, a2av03.PushContentType)
			}
			continue
		}
		if ok.Event.GetStatusUpdate().GetTaskId() != id || proctest.StateOf(ok.Event) != a2av1.TaskState_TASK_STATE_CANCELED ||
			ok.Header.Get("X-A2A-Notification-Token") != "tok-v10" {
			t.Errorf("the v1.0 webhook got %s after the restart; want the CANCELED status update with its token", ok.Body)
		}
	}
	second.Stop(t)
}
