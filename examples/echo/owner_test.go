package main

import (
	"context"
	"errors"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestCallersApart: anonymous callers list no task without a contextId and
// cannot read, cancel or see the push configs of an authenticated caller's
// task; bearer subjects see only their own tasks.
func TestCallersApart(t *testing.T) {
	url, stop := startEcho(t)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	anon := a2av1.NewA2AServiceJSONRPCClient(url)
	alice := a2av1.NewA2AServiceJSONRPCClient(url, runtime.WithHeader("Authorization", "Bearer alice"))
	bob := a2av1.NewA2AServiceJSONRPCClient(url, runtime.WithHeader("Authorization", "Bearer bob"))
	start := func(c a2av1.A2AServiceClient) *a2av1.Task {
		t.Helper()
		resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("input")))
		if err != nil || resp.GetTask() == nil {
			t.Fatalf("SendMessage: %v, %v", resp, err)
		}
		return resp.GetTask()
	}
	mine := start(alice)
	if _, err := alice.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: mine.GetId(), Url: "https://hooks.example/a2a",
		Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "alice-secret"}}); err != nil {
		t.Fatalf("push config: %v", err)
	}
	theirs := start(anon)

	for name, c := range map[string]a2av1.A2AServiceClient{"anonymous": anon, "bob": bob} {
		list, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{})
		if err != nil || len(list.GetTasks()) != 0 {
			t.Errorf("%s lists %v, %v; want nothing", name, list, err)
		}
		if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: mine.GetId()}); !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("%s cancels alice's task: %v, want TaskNotFound", name, err)
		}
		if _, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: mine.GetId()}); !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("%s reads alice's push configs: %v, want TaskNotFound", name, err)
		}
	}
	list, err := alice.ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil || len(list.GetTasks()) != 1 || list.GetTasks()[0].GetId() != mine.GetId() {
		t.Errorf("alice lists %v, %v; want only her task", list, err)
	}
	if got, err := anon.GetTask(ctx, &a2av1.GetTaskRequest{Id: theirs.GetId()}); err != nil || got.GetId() != theirs.GetId() {
		t.Errorf("anonymous GetTask by id: %v, %v", got, err)
	}
}
