package host_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// TestAnonymousCallersApart: an agent whose card has no security scheme
// (every caller anonymous) lists no task to anyone without a contextId,
// yet a task stays reachable by its id; anonymous callers do not share one
// owner's view of all tasks.
func TestAnonymousCallersApart(t *testing.T) {
	b := host.Binding{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"}
	a := hosttest.Start(t, host.Config{
		CardJSON: plainCard(t), Bindings: []host.Binding{b},
		Skills: []host.Skill{{ID: "a", Run: completeWith}},
	})
	ctx := context.Background()
	first, other := a.ClientWith(t, b), a.ClientWith(t, b)
	resp, err := first.SendMessage(ctx, hosttest.Message("hello", ""))
	if err != nil || resp.GetTask() == nil {
		t.Fatalf("SendMessage: %v, %v; want a task", resp, err)
	}
	task := resp.GetTask()
	list, err := other.ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil || len(list.GetTasks()) != 0 || list.GetTotalSize() != 0 {
		t.Fatalf("anonymous ListTasks: %v, %v; want an empty page", list, err)
	}
	if got, err := first.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId()}); err != nil || got.GetId() != task.GetId() {
		t.Fatalf("GetTask by id: %v, %v", got, err)
	}
	if _, err := other.GetTask(ctx, &a2av1.GetTaskRequest{Id: "not-" + task.GetId()}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("GetTask of an unknown id: %v, want TaskNotFound", err)
	}
}
