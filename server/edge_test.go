package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// keyGuardStore is a memory store that fails the test when a key no store
// can hold reaches it: the server must refuse such keys at its edge.
type keyGuardStore struct {
	*store.Memory
	t testing.TB
}

func (g keyGuardStore) check(op string, keys ...string) {
	for _, k := range keys {
		if !store.ValidID(k) {
			g.t.Errorf("%s reached the store with the key %q", op, k)
		}
	}
}

func (g keyGuardStore) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	g.check("CreateTask", c.Tenant, c.Task.GetId(), c.Task.GetContextId())
	return g.Memory.CreateTask(ctx, c)
}

func (g keyGuardStore) Task(ctx context.Context, tenant, id string) (store.Record, error) {
	g.check("Task", tenant, id)
	return g.Memory.Task(ctx, tenant, id)
}

func (g keyGuardStore) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	g.check("UpdateTask", u.Tenant, u.Task.GetId())
	return g.Memory.UpdateTask(ctx, u)
}

func (g keyGuardStore) ListTasks(ctx context.Context, tenant string, q store.Query) (store.Page, error) {
	g.check("ListTasks", tenant, q.ContextID)
	return g.Memory.ListTasks(ctx, tenant, q)
}

func (g keyGuardStore) Subscribe(ctx context.Context, tenant, id string, f store.Follow) (store.Record, store.Subscription, error) {
	g.check("Subscribe", tenant, id)
	return g.Memory.Subscribe(ctx, tenant, id, f)
}

func (g keyGuardStore) SavePushConfig(ctx context.Context, tenant string, cfg store.PushConfig) error {
	g.check("SavePushConfig", tenant, cfg.GetTaskId(), cfg.GetId())
	return g.Memory.SavePushConfig(ctx, tenant, cfg)
}

func (g keyGuardStore) PushConfig(ctx context.Context, tenant, taskID, id string) (store.PushConfig, error) {
	g.check("PushConfig", tenant, taskID, id)
	return g.Memory.PushConfig(ctx, tenant, taskID, id)
}

func (g keyGuardStore) DeletePushConfig(ctx context.Context, tenant, taskID, id string) error {
	g.check("DeletePushConfig", tenant, taskID, id)
	return g.Memory.DeletePushConfig(ctx, tenant, taskID, id)
}

// TestUnstorableKeysRefusedAtTheEdge: on every binding, a tenant, task id,
// context id, message id, push config id, metadata key or caller subject
// that no store can hold (a NUL byte, invalid UTF-8, over its limit) is
// InvalidParams naming the field, and never reaches the store.
func TestUnstorableKeysRefusedAtTheEdge(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil, server.WithStore(keyGuardStore{store.NewMemory(), t}),
			server.WithTaskOwner(server.OwnerByCallerID), server.WithPushOptions())
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		long := strings.Repeat("k", store.MaxIDBytes+1)
		// Invalid UTF-8 cannot be sent in a request message (the clients'
		// encoders refuse it); it arrives in HTTP+JSON paths (below) and in
		// direct calls.
		bads := map[string]string{"NUL": "a\x00b", "too long": long}
		msg := func(edit func(*a2av1.SendMessageRequest)) *a2av1.SendMessageRequest {
			r := &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m", Role: a2av1.Role_ROLE_USER,
				Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}}
			edit(r)
			return r
		}
		hook := &a2av1.TaskPushNotificationConfig{Url: "http://127.0.0.1:1/hook"}
		for name, bad := range bads {
			calls := map[string]func() error{
				"GetTask.id":      func() error { _, err := e.c.GetTask(ctx, &a2av1.GetTaskRequest{Id: bad}); return err },
				"GetTask.tenant":  func() error { _, err := e.c.GetTask(ctx, &a2av1.GetTaskRequest{Tenant: bad, Id: "x"}); return err },
				"CancelTask.id":   func() error { _, err := e.c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: bad}); return err },
				"ListTasks.ctxId": func() error { _, err := e.c.ListTasks(ctx, &a2av1.ListTasksRequest{ContextId: bad}); return err },
				"SubscribeToTask.id": func() error {
					for _, err := range e.c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: bad}) {
						return err
					}
					return nil
				},
				"SendMessage.contextId": func() error {
					_, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) { r.Message.ContextId = bad }))
					return err
				},
				"SendMessage.contextId+push": func() error {
					_, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) {
						r.Message.ContextId = bad
						r.Configuration = &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: hook}
					}))
					return err
				},
				"SendMessage.messageId": func() error {
					_, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) { r.Message.MessageId = bad }))
					return err
				},
				"SendMessage.taskId": func() error {
					_, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) { r.Message.TaskId = bad }))
					return err
				},
				"SendMessage.referenceTaskIds": func() error {
					_, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) { r.Message.ReferenceTaskIds = []string{"ok", bad} }))
					return err
				},
				"SendMessage.metadata": func() error {
					_, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) {
						r.Message.Metadata = &structpb.Struct{Fields: map[string]*structpb.Value{bad + strings.Repeat("x", store.MaxOwnerBytes): structpb.NewBoolValue(true)}}
					}))
					return err
				},
				"SendStreamingMessage.tenant": func() error {
					for _, err := range e.c.SendStreamingMessage(ctx, msg(func(r *a2av1.SendMessageRequest) { r.Tenant = bad })) {
						return err
					}
					return nil
				},
				"GetTaskPushNotificationConfig.id": func() error {
					_, err := e.c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: "x", Id: bad})
					return err
				},
				"CreateTaskPushNotificationConfig.taskId": func() error {
					_, err := e.c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: bad, Url: "http://127.0.0.1:1/hook"})
					return err
				},
				"DeleteTaskPushNotificationConfig.id": func() error {
					_, err := e.c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: "x", Id: bad})
					return err
				},
			}
			for call, f := range calls {
				err := f()
				if !errors.Is(err, runtime.ErrInvalidParams) {
					t.Errorf("%s with a %s value: %v; want InvalidParams", call, name, err)
					continue
				}
				var re *runtime.Error
				if errors.As(err, &re) && len(re.FieldViolations()) == 0 && !strings.Contains(re.Message(), "tenant") {
					t.Errorf("%s with a %s value: %v; want the field named", call, name, err)
				}
			}
		}
		// A caller whose subject is too long to own a task.
		subject := runtime.WithHeader("Authorization", "Bearer "+strings.Repeat("s", store.MaxOwnerBytes+1))
		if _, err := e.client(subject).GetTask(ctx, &a2av1.GetTaskRequest{Id: "x"}); !errors.Is(err, runtime.ErrInvalidParams) {
			t.Errorf("GetTask by a caller with a %d-byte subject: %v; want InvalidParams", store.MaxOwnerBytes+1, err)
		}
		// Called directly, without a binding.
		if _, err := e.srv.GetTask(ctx, &a2av1.GetTaskRequest{Id: "a\xffb"}); !errors.Is(err, runtime.ErrInvalidParams) {
			t.Errorf("GetTask called directly with an id of invalid UTF-8: %v; want InvalidParams", err)
		}
		// At the limits, everything works.
		ok := strings.Repeat("k", store.MaxIDBytes)
		resp, err := e.c.SendMessage(ctx, msg(func(r *a2av1.SendMessageRequest) { r.Message.ContextId = ok; r.Message.MessageId = ok }))
		if err != nil || resp.GetTask().GetContextId() != ok {
			t.Fatalf("SendMessage with a contextId of %d bytes: %v, %v", len(ok), resp, err)
		}
	})
}

// TestUnstorableTenantInRESTPath: a tenant with a NUL byte in an HTTP+JSON
// path is a 400, never a 500, before any store sees it.
func TestUnstorableTenantInRESTPath(t *testing.T) {
	srv, err := server.New(echoCard(), &echo.Agent{}, server.WithStore(keyGuardStore{store.NewMemory(), t}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	ts := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(srv))
	defer ts.Close()
	for _, path := range []string{"/a%00b/tasks/x", "/tasks/a%00b", "/a%ffb/tasks/x", "/" + strings.Repeat("t", store.MaxIDBytes+1) + "/tasks/x"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s = %d %s; want 400", path, resp.StatusCode, body)
		}
		if !strings.Contains(string(body), "INVALID_ARGUMENT") {
			t.Errorf("GET %s: body %s; want INVALID_ARGUMENT", path, body)
		}
	}
}
