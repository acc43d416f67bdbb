package server_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// webhook is a push receiver on loopback.
type webhook struct {
	*httptest.Server
	mu      sync.Mutex
	events  []*a2av1.StreamResponse
	headers []http.Header
	status  int           // answer; 0 = 200
	hold    chan struct{} // when set, requests wait for it to close
	got     chan struct{} // one value per request
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{got: make(chan struct{}, 10000)}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev := new(a2av1.StreamResponse)
		if err := runtime.UnmarshalJSON(body, ev); err != nil {
			t.Errorf("webhook body %s: %v", body, err)
		}
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.headers = append(w.headers, r.Header.Clone())
		hold, status := w.hold, w.status
		w.mu.Unlock()
		w.got <- struct{}{}
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		}
		if status == 0 {
			status = http.StatusOK
		}
		rw.WriteHeader(status)
	}))
	t.Cleanup(w.Close)
	return w
}

// waitN waits until the webhook received n requests in total.
func (w *webhook) waitN(t *testing.T, n int) []*a2av1.StreamResponse {
	t.Helper()
	for {
		w.mu.Lock()
		have := len(w.events)
		w.mu.Unlock()
		if have >= n {
			break
		}
		select {
		case <-w.got:
		case <-time.After(20 * time.Second):
			t.Fatalf("webhook got %d requests, want %d", have, n)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*a2av1.StreamResponse(nil), w.events...)
}

// pushEnv is an env whose push sender may deliver to loopback.
func pushEnv(t *testing.T, b binding, opts ...push.Option) *env {
	sender := push.NewSender(append([]push.Option{push.AllowPrivateNetworks(), push.WithBackoff(time.Millisecond, 4*time.Millisecond)}, opts...)...)
	t.Cleanup(func() { _ = sender.Close(ctxT(t)) })
	return newEnv(t, b, nil, nil, server.WithPushSender(sender))
}

// TestInlinePushConfig: a config sent with the message is registered before
// the task's first event, so the webhook receives every event, in order,
// with the token and credentials.
func TestInlinePushConfig(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := pushEnv(t, b)
		hook := newWebhook(t)
		cfg := &a2av1.TaskPushNotificationConfig{Url: hook.URL + "/a2a", Token: "tok",
			Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred"}}
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("stream 3"),
			Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: cfg}}).GetTask()
		evs := hook.waitN(t, 6)
		want := []string{"task SUBMITTED", "status WORKING", "artifact chunk 1/3;", "artifact chunk 2/3;+append",
			"artifact chunk 3/3;+append+last", "status COMPLETED"}
		got := describeAll(evs)
		if !slices.Equal(got[:6], want) || len(got) != 6 {
			t.Fatalf("webhook events %q, want %q", got, want)
		}
		if evs[0].GetTask().GetId() != task.GetId() {
			t.Fatalf("webhook got task %s, want %s", evs[0].GetTask().GetId(), task.GetId())
		}
		hook.mu.Lock()
		h := hook.headers[0]
		hook.mu.Unlock()
		if h.Get("Authorization") != "Bearer cred" || h.Get("X-A2A-Notification-Token") != "tok" ||
			h.Get("A2A-Notification-Token") != "tok" || h.Get("Content-Type") != "application/a2a+json" {
			t.Fatalf("webhook headers %v", h)
		}
		list, err := e.c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
		if err != nil || len(list.GetConfigs()) != 1 || list.GetConfigs()[0].GetId() == "" || list.GetConfigs()[0].GetTaskId() != task.GetId() {
			t.Fatalf("the inline config is not registered: %v, %v", list, err)
		}
	})
}

func TestPushConfigCRUD(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := pushEnv(t, b)
		task := sendTask(t, e.c, "input")
		create := func(id, url string) (*a2av1.TaskPushNotificationConfig, error) {
			return e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Id: id, Url: url})
		}
		mine, err := create("my-id", "https://hooks.example.com/1")
		if err != nil || mine.GetId() != "my-id" || mine.GetTaskId() != task.GetId() {
			t.Fatalf("create with id = %v, %v", mine, err)
		}
		gen, err := create("", "https://hooks.example.com/2")
		if err != nil || gen.GetId() == "" {
			t.Fatalf("create without id = %v, %v", gen, err)
		}
		for _, id := range []string{"c", "d", "e"} {
			if _, err := create(id, "https://hooks.example.com/"+id); err != nil {
				t.Fatal(err)
			}
		}
		replaced, err := create("my-id", "https://hooks.example.com/replaced")
		if err != nil || replaced.GetUrl() != "https://hooks.example.com/replaced" {
			t.Fatalf("re-create = %v, %v", replaced, err)
		}
		got, err := e.c.GetTaskPushNotificationConfig(ctxT(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "my-id"})
		if err != nil || got.GetUrl() != "https://hooks.example.com/replaced" {
			t.Fatalf("get = %v, %v", got, err)
		}
		var ids []string
		token := ""
		for range 10 {
			page, err := e.c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId(), PageSize: 2, PageToken: token})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.GetConfigs()) > 2 {
				t.Fatalf("page of %d configs, want at most 2", len(page.GetConfigs()))
			}
			for _, c := range page.GetConfigs() {
				ids = append(ids, c.GetId())
			}
			if token = page.GetNextPageToken(); token == "" {
				break
			}
		}
		if len(ids) != 5 {
			t.Fatalf("paging listed %v, want 5 configs", ids)
		}
		for range 2 { // idempotent
			if _, err := e.c.DeleteTaskPushNotificationConfig(ctxT(t), &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "my-id"}); err != nil {
				t.Fatalf("delete: %v", err)
			}
		}
		_, err = e.c.GetTaskPushNotificationConfig(ctxT(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "my-id"})
		wantCode(t, "get a deleted config", err, runtime.ErrTaskNotFound)

		for _, tc := range []struct {
			name string
			call func() error
			want *runtime.Error
		}{
			{"create for unknown task", func() error {
				_, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: "nope", Url: "https://x.example"})
				return err
			}, runtime.ErrTaskNotFound},
			{"get for unknown task", func() error {
				_, err := e.c.GetTaskPushNotificationConfig(ctxT(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: "nope", Id: "c"})
				return err
			}, runtime.ErrTaskNotFound},
			{"list for unknown task", func() error {
				_, err := e.c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: "nope"})
				return err
			}, runtime.ErrTaskNotFound},
			{"delete for unknown task", func() error {
				_, err := e.c.DeleteTaskPushNotificationConfig(ctxT(t), &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: "nope", Id: "c"})
				return err
			}, runtime.ErrTaskNotFound},
			{"relative url", func() error { _, err := create("", "/hook"); return err }, runtime.ErrInvalidParams},
			{"ftp url", func() error { _, err := create("", "ftp://x.example/"); return err }, runtime.ErrInvalidParams},
			{"bad page token", func() error {
				_, err := e.c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId(), PageToken: "!!"})
				return err
			}, runtime.ErrInvalidParams},
		} {
			wantCode(t, tc.name, tc.call(), tc.want)
		}
	})
}

// TestPushSSRFGuardByDefault: the default sender refuses webhooks on
// loopback when they are registered.
func TestPushSSRFGuardByDefault(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		task := sendTask(t, e.c, "input")
		for _, url := range []string{"http://127.0.0.1:9/hook", "http://localhost:9/hook", "http://169.254.169.254/latest", "http://10.0.0.1/"} {
			_, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Url: url})
			wantCode(t, "register "+url, err, runtime.ErrInvalidParams)
		}
	})
}

func TestPushCapabilityGate(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		for _, p := range []*bool{nil, ptr(false)} {
			e := newEnv(t, b, nil, cardWith(ptr(true), p, ptr(true)))
			task := sendTask(t, e.c, "input")
			calls := map[string]func() error{
				"create": func() error {
					_, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Url: "https://x.example"})
					return err
				},
				"get": func() error {
					_, err := e.c.GetTaskPushNotificationConfig(ctxT(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "x"})
					return err
				},
				"list": func() error {
					_, err := e.c.ListTaskPushNotificationConfigs(ctxT(t), &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
					return err
				},
				"delete": func() error {
					_, err := e.c.DeleteTaskPushNotificationConfig(ctxT(t), &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "x"})
					return err
				},
				"inline": func() error {
					_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello"), Configuration: &a2av1.SendMessageConfiguration{
						TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: "https://x.example"}}})
					return err
				},
			}
			for name, call := range calls {
				wantCode(t, name+" without push", call(), runtime.ErrPushNotificationNotSupported)
			}
		}
	})
}

// TestPushFailingReceiver: deliveries to a receiver that always fails are
// retried, given up and reported, and the task is not affected.
func TestPushFailingReceiver(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		var mu sync.Mutex
		var failures []push.Failure
		e := pushEnv(t, b, push.WithMaxAttempts(3), push.OnFailure(func(f push.Failure) {
			mu.Lock()
			failures = append(failures, f)
			mu.Unlock()
		}), push.WithLogger(discardLogger()))
		hook := newWebhook(t)
		hook.status = http.StatusServiceUnavailable
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("hello"), Configuration: &a2av1.SendMessageConfiguration{
			TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: hook.URL}}}).GetTask()
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("task %v, want COMPLETED regardless of the webhook", task.GetStatus().GetState())
		}
		hook.waitN(t, 9) // 3 events × 3 attempts
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(failures)
			mu.Unlock()
			if n == 3 || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(failures) != 3 {
			t.Fatalf("%d failures reported, want one per event (3)", len(failures))
		}
		for _, f := range failures {
			var se *push.StatusError
			if f.Attempts != 3 || !errors.As(f.Err, &se) || se.StatusCode != 503 || f.Config.GetTaskId() != task.GetId() {
				t.Fatalf("failure %+v, want 3 attempts ending in 503 for the task", f)
			}
		}
	})
}

// TestPushSlowReceiver: a receiver that holds every request does not slow
// the task down; the events arrive, in order, once it answers.
func TestPushSlowReceiver(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := pushEnv(t, b)
		hook := newWebhook(t)
		hook.hold = make(chan struct{})
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("stream 20"), Configuration: &a2av1.SendMessageConfiguration{
			TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: hook.URL}}}).GetTask()
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("task %v, want COMPLETED while the webhook is stuck", task.GetStatus().GetState())
		}
		hook.mu.Lock()
		stuck := len(hook.events)
		hook.mu.Unlock()
		if stuck > 1 {
			t.Fatalf("the stuck webhook already received %d requests; deliveries are not sequential", stuck)
		}
		close(hook.hold)
		evs := hook.waitN(t, 23) // task, WORKING, 20 chunks, COMPLETED
		got := describeAll(evs)
		if got[0] != "task SUBMITTED" || got[1] != "status WORKING" || got[22] != "status COMPLETED" {
			t.Fatalf("webhook events out of order: %q", got)
		}
	})
}

// TestPushEveryConfig: every event goes to every webhook of the task, and a
// deleted webhook gets no more.
func TestPushEveryConfig(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := pushEnv(t, b)
		one, two, gone := newWebhook(t), newWebhook(t), newWebhook(t)
		task := sendTask(t, e.c, "input")
		for id, hook := range map[string]*webhook{"one": one, "two": two, "gone": gone} {
			if _, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Id: id, Url: hook.URL}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.c.DeleteTaskPushNotificationConfig(ctxT(t), &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: "gone"}); err != nil {
			t.Fatal(err)
		}
		send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("answer", task.GetId())})
		want := []string{"status SUBMITTED", "artifact Echo: answer+last", "status COMPLETED"}
		for name, hook := range map[string]*webhook{"one": one, "two": two} {
			if got := describeAll(hook.waitN(t, 3)); !slices.Equal(got, want) {
				t.Fatalf("webhook %s got %q, want %q", name, got, want)
			}
		}
		gone.mu.Lock()
		defer gone.mu.Unlock()
		if len(gone.events) != 0 {
			t.Fatalf("the deleted webhook got %d events", len(gone.events))
		}
	})
}
