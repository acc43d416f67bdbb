package server_test

import (
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestPushConfigSecretsRedacted: Create, Get and List answer a push config
// without its token and credentials (scheme, url and ids kept), while
// deliveries still carry them; setting the config again with the same id
// rotates them.
func TestPushConfigSecretsRedacted(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := pushEnv(t, b)
		hook := newWebhook(t)
		task := sendTask(t, e.c, "input")
		cfg := func(token, cred string) *a2av1.TaskPushNotificationConfig {
			return &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Id: "cfg", Url: hook.URL + "/a2a", Token: token,
				Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: cred}}
		}
		check := func(what string, got *a2av1.TaskPushNotificationConfig) {
			t.Helper()
			if got.GetToken() != "" || got.GetAuthentication().GetCredentials() != "" {
				t.Errorf("%s answered token %q, credentials %q; want both redacted", what, got.GetToken(), got.GetAuthentication().GetCredentials())
			}
			if got.GetId() != "cfg" || got.GetTaskId() != task.GetId() || got.GetUrl() != hook.URL+"/a2a" || got.GetAuthentication().GetScheme() != "Bearer" {
				t.Errorf("%s answered %v; want id, taskId, url and scheme kept", what, got)
			}
		}
		created, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), cfg("old-token", "old-secret"))
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		check("Create", created)
		// Rotation: set the same id again.
		created, err = e.c.CreateTaskPushNotificationConfig(ctxT(t), cfg("new-token", "new-secret"))
		if err != nil {
			t.Fatalf("Create again: %v", err)
		}
		check("Create again", created)
		got, err := e.c.GetTaskPushNotificationConfig(ctxT(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "cfg"})
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		check("Get", got)
		list, err := e.c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
		if err != nil || len(list.GetConfigs()) != 1 {
			t.Fatalf("List: %v, %v; want one config", list, err)
		}
		check("List", list.GetConfigs()[0])

		send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("done", task.GetId())})
		hook.waitN(t, 1)
		hook.mu.Lock()
		h := hook.headers[0]
		hook.mu.Unlock()
		if h.Get("Authorization") != "Bearer new-secret" || h.Get("A2A-Notification-Token") != "new-token" {
			t.Errorf("delivery headers %v; want the rotated (stored, unredacted) secrets", h)
		}
	})
}

// TestAnonymousTasksUnlisted: under WithTaskOwner(OwnerByCallerID) an
// anonymous caller lists nothing without a contextId, and only the
// ownerless tasks of the context it names; it still reaches a task by its
// id. Authenticated callers list only their own tasks.
func TestAnonymousTasksUnlisted(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil, server.WithTaskOwner(server.OwnerByCallerID))
		alice := e.client(runtime.WithHeader("Authorization", "Bearer alice"))
		mallory := e.c // anonymous
		anon := sendTask(t, e.c, "input")
		mine := sendTask(t, alice, "input")

		list, err := mallory.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
		if err != nil || len(list.GetTasks()) != 0 || list.GetTotalSize() != 0 {
			t.Fatalf("anonymous ListTasks: %v, %v; want an empty page", list, err)
		}
		list, err = mallory.ListTasks(ctxT(t), &a2av1.ListTasksRequest{ContextId: anon.GetContextId()})
		if err != nil || len(list.GetTasks()) != 1 || list.GetTasks()[0].GetId() != anon.GetId() {
			t.Fatalf("anonymous ListTasks of a named context: %v, %v; want the anonymous task only", list, err)
		}
		list, err = mallory.ListTasks(ctxT(t), &a2av1.ListTasksRequest{ContextId: mine.GetContextId()})
		if err != nil || len(list.GetTasks()) != 0 {
			t.Fatalf("anonymous ListTasks of alice's context: %v, %v; want nothing", list, err)
		}
		if _, err := mallory.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: anon.GetId()}); err != nil {
			t.Fatalf("anonymous GetTask by id: %v", err)
		}
		checkInvisible(t, mallory, mine.GetId())

		list, err = alice.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
		if err != nil || len(list.GetTasks()) != 1 || list.GetTasks()[0].GetId() != mine.GetId() {
			t.Fatalf("alice's ListTasks: %v, %v; want only her task", list, err)
		}
		list, err = alice.ListTasks(ctxT(t), &a2av1.ListTasksRequest{ContextId: anon.GetContextId()})
		if err != nil || len(list.GetTasks()) != 0 {
			t.Fatalf("alice's ListTasks of the anonymous context: %v, %v; want nothing", list, err)
		}
	})
}
