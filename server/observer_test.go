package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/server/store"
)

type traceKey struct{}

// TestObserverHooks: the task observer sees every state change the server
// writes, and the trace context of the writing call travels with each
// queued push delivery to the sender's attempt interceptors.
func TestObserverHooks(t *testing.T) {
	var (
		mu          sync.Mutex
		transitions []string
		traces      []string
	)
	observe := func(_ context.Context, tenant string, task *a2av1.Task, from, to a2av1.TaskState) {
		mu.Lock()
		defer mu.Unlock()
		transitions = append(transitions, fmt.Sprintf("%s %s→%s %v", tenant, from, to, task.GetStatus().GetState() == to))
	}
	intercept := func(next push.AttemptFunc) push.AttemptFunc {
		return func(_ context.Context, a *push.Attempt) error {
			mu.Lock()
			defer mu.Unlock()
			traces = append(traces, fmt.Sprintf("%d %s %s", a.Number, a.Trace.Parent, a.Trace.State))
			return nil // delivered, without a request
		}
	}
	srv, err := server.New(echo.Card(), &echo.Agent{},
		server.WithLogger(slog.New(slog.DiscardHandler)),
		server.WithTaskObserver(observe),
		server.WithTraceContext(func(ctx context.Context) store.TraceContext {
			p, _ := ctx.Value(traceKey{}).(string)
			return store.TraceContext{Parent: p, State: "k=v"}
		}),
		server.WithPushOptions(push.WithAttemptInterceptor(intercept)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })

	ctx := context.WithValue(context.Background(), traceKey{}, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	if _, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{Tenant: "acme",
		Message:       &a2av1.Message{MessageId: "m", Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}},
		Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "h", Url: "https://hook.example/a2a"}},
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		// The observer runs on the writer's goroutine after each write, the
		// attempts on the sender's: either may be last.
		n, m := len(traces), len(transitions)
		mu.Unlock()
		if (n >= 3 && m >= 2) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "1 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 k=v"
	if !slices.Equal(traces, []string{want, want, want}) {
		t.Errorf("attempts saw %q, want the call's trace context on each of the task's three events", traces)
	}
	if want := []string{"acme TASK_STATE_UNSPECIFIED→TASK_STATE_SUBMITTED true", "acme TASK_STATE_SUBMITTED→TASK_STATE_COMPLETED true"}; !slices.Equal(transitions, want) {
		t.Errorf("transitions %q, want %q", transitions, want)
	}
}
