package server_test

import (
	"context"
	"fmt"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

func TestExtendedAgentCard(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		card := echoCard()
		bearer := runtime.WithHeader("Authorization", "Bearer alice")
		get := func(c a2av1.A2AServiceClient) (*a2av1.AgentCard, error) {
			return c.GetExtendedAgentCard(ctxT(t), &a2av1.GetExtendedAgentCardRequest{})
		}

		full := newEnv(t, b, nil, card, server.WithExtendedCard(echo.ExtendedCard(card)))
		got, err := get(full.client(bearer))
		if err != nil || len(got.GetSkills()) != len(card.GetSkills())+1 {
			t.Fatalf("authenticated caller: %v, %v; want the extended card with one more skill", got, err)
		}
		_, err = get(full.c)
		wantCode(t, "anonymous caller", err, runtime.ErrUnauthenticated)
		_, err = get(full.client(runtime.WithHeader("Authorization", "Basic eDp5")))
		wantCode(t, "wrong scheme", err, runtime.ErrUnauthenticated)

		none := newEnv(t, b, nil, card)
		_, err = get(none.client(bearer))
		wantCode(t, "flag on, no card", err, runtime.ErrExtendedAgentCardNotConfigured)

		for _, flag := range []*bool{nil, ptr(false)} {
			off := newEnv(t, b, nil, cardWith(ptr(true), ptr(true), flag), server.WithExtendedCard(card))
			_, err = get(off.client(bearer))
			wantCode(t, "flag off", err, runtime.ErrUnsupportedOperation)
		}
	})
}

// TestTenantIsolation: a task of tenant A does not exist for tenant B, for
// any operation.
func TestTenantIsolation(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := pushEnv(t, b)
		a, other := e.client(runtime.WithClientTenant("tenant-a")), e.client(runtime.WithClientTenant("tenant-b"))
		task := sendTask(t, a, "input")
		checkInvisible(t, other, task.GetId())
		if list, err := other.ListTasks(ctxT(t), &a2av1.ListTasksRequest{}); err != nil || list.GetTotalSize() != 0 {
			t.Fatalf("tenant B lists %v, %v", list.GetTotalSize(), err)
		}
		if list, err := a.ListTasks(ctxT(t), &a2av1.ListTasksRequest{}); err != nil || list.GetTotalSize() != 1 {
			t.Fatalf("tenant A lists %v, %v", list.GetTotalSize(), err)
		}
		if _, err := a.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()}); err != nil {
			t.Fatalf("tenant A cannot read its own task: %v", err)
		}
	})
}

// TestOwnerScoping: with WithTaskOwner, a task is visible only to the
// caller who created it.
func TestOwnerScoping(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil, server.WithTaskOwner(server.OwnerByCallerID))
		alice := e.client(runtime.WithHeader("Authorization", "Bearer alice"))
		bob := e.client(runtime.WithHeader("Authorization", "Bearer bob"))
		task := sendTask(t, alice, "input")
		checkInvisible(t, bob, task.GetId())
		checkInvisible(t, e.c, task.GetId()) // anonymous
		if list, err := bob.ListTasks(ctxT(t), &a2av1.ListTasksRequest{}); err != nil || list.GetTotalSize() != 0 {
			t.Fatalf("bob lists %v, %v", list.GetTotalSize(), err)
		}
		if got := send(t, alice, &a2av1.SendMessageRequest{Message: followUp("done", task.GetId())}).GetTask(); got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("alice's follow-up: %v", got.GetStatus())
		}
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")})
		if err != nil {
			t.Fatalf("anonymous callers may still create tasks: %v", err)
		}
		_, err = e.client(runtime.WithHeader("Authorization", "Bearer ")).SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")})
		wantCode(t, "empty bearer token", err, runtime.ErrUnauthenticated)
	})
}

// checkInvisible asserts that every operation on the task answers
// TaskNotFound for client c.
func checkInvisible(t *testing.T, c a2av1.A2AServiceClient, id string) {
	t.Helper()
	calls := map[string]func() error{
		"GetTask": func() error { _, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: id}); return err },
		"CancelTask": func() error {
			_, err := c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: id})
			return err
		},
		"SubscribeToTask": func() error {
			_, err := collect(c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}))
			return err
		},
		"SendMessage": func() error {
			_, err := c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("x", id)})
			return err
		},
		"CreateTaskPushNotificationConfig": func() error {
			_, err := c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: id, Url: "https://x.example"})
			return err
		},
		"ListTaskPushNotificationConfigs": func() error {
			_, err := c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: id})
			return err
		},
	}
	for name, call := range calls {
		wantCode(t, name+" from outside", call(), runtime.ErrTaskNotFound)
	}
}

// TestCallerReachesExecutor: the authenticated caller is in the Request and
// in the execution's context.
func TestCallerReachesExecutor(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			fromCtx, ok := runtime.IdentityFromContext(ctx)
			return ev.Reply(server.AgentMessage(fmt.Sprintf("%s/%s/%v/%s", req.Caller.Subject, fromCtx.Subject, ok, req.Tenant)))
		})
		e := newEnv(t, b, exec, nil)
		c := e.client(runtime.WithHeader("Authorization", "Bearer carol"), runtime.WithClientTenant("t7"))
		resp := send(t, c, &a2av1.SendMessageRequest{Message: userMsg("who")})
		if got := server.MessageText(resp.GetMessage()); got != "carol/carol/true/t7" {
			t.Fatalf("executor saw %q", got)
		}
	})
}
