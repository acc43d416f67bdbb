package postgres

import (
	"context"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// TestLongPollAcrossReplicas: a GetTask long-poll (A2A 1.1 currentGeneration)
// held by one replica is woken by a follow-up sent to another replica of
// the same database — through the feed (LISTEN/NOTIFY), as a stream would
// be — and answers with the task at the generation that write reached.
func TestLongPollAcrossReplicas(t *testing.T) {
	url := testURL(t)
	schema := testSchema(t, url)
	subscribed := make(chan struct{}, 16)
	storeA := store.Wrap(openSchema(t, url, schema), func(ctx context.Context, op store.Op, call func(context.Context) error) error {
		err := call(ctx)
		if op == store.OpSubscribe {
			subscribed <- struct{}{}
		}
		return err
	})
	replica := func(st store.Store) *server.Server {
		srv, err := server.New(echo.Card(), &echo.Agent{}, server.WithStore(st), server.WithLongPollHold(server.MaxLongPollHold))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
		return srv
	}
	a, b := replica(storeA), replica(openSchema(t, url, schema))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msg := func(text, taskID string) *a2av1.Message {
		return &a2av1.Message{MessageId: text + taskID, TaskId: taskID, Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}
	}
	resp, err := a.SendMessage(ctx, &a2av1.SendMessageRequest{Message: msg("input", "")})
	if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
		t.Fatalf("SendMessage(input) = %v, %v", resp, err)
	}
	in := resp.GetTask()
	type answer struct {
		task *a2av1.Task
		err  error
	}
	got := make(chan answer, 1)
	// No deadline: a long-poll that were not woken would be held for
	// MaxLongPollHold, past the wait below.
	pollCtx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		task, err := a.GetTask(pollCtx, &a2av1.GetTaskRequest{Id: in.GetId(), CurrentGeneration: &in.Generation})
		got <- answer{task, err}
	}()
	select {
	case <-subscribed:
	case ans := <-got:
		t.Fatalf("the long-poll answered before any change: %v, %v", ans.task, ans.err)
	case <-ctx.Done():
		t.Fatal("the long-poll never subscribed to the task")
	}
	done, err := b.SendMessage(ctx, &a2av1.SendMessageRequest{Message: msg("more", in.GetId())})
	if err != nil || done.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("the follow-up on the other replica = %v, %v", done, err)
	}
	var ans answer
	select {
	case ans = <-got:
	case <-ctx.Done():
		t.Fatal("replica B's write did not wake the long-poll on replica A")
	}
	if ans.err != nil || ans.task.GetGeneration() <= in.GetGeneration() || ans.task.GetGeneration() > done.GetTask().GetGeneration() {
		t.Fatalf("long-poll at generation %d on replica A: %v, %v; want the task moved on by replica B's write (at most generation %d)",
			in.GetGeneration(), ans.task, ans.err, done.GetTask().GetGeneration())
	}
}
