package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// TestSubscriberByteBudget: a stream whose client stops reading while its
// task writes large artifacts is dropped once the events queued for it
// exceed MaxSubscriberBytes, long before the event count (128) would drop
// it, with an error naming the limit; the reading subscriber gets
// everything. The executor moves in lockstep with the reading subscriber,
// so only the stalled one falls behind. Without the byte budget the stalled
// subscriber would hold all the chunks (about 6 MiB) and end normally.
func TestSubscriberByteBudget(t *testing.T) {
	const chunks, chunkBytes, budget = 100, 64 << 10, 1 << 20
	big := strings.Repeat("x", chunkBytes)
	start := make(chan struct{})
	fast := &recordingStream{one: make(chan struct{}), ack: make(chan struct{}, 1)}
	exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		<-start
		for i := 1; i <= chunks; i++ {
			if err := ev.ArtifactChunk(server.TextArtifact("a", big), i > 1, i == chunks); err != nil {
				return err
			}
			<-fast.ack
		}
		return ev.Complete(nil)
	})
	srv, err := server.New(echoCard(), exec, server.WithStore(store.NewMemory()), server.WithMaxSubscriberBytes(budget))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	ctx := context.Background()
	resp, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMsg("go"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	id := resp.GetTask().GetId()
	waitDirect(t, srv, id, a2av1.TaskState_TASK_STATE_WORKING)

	slow := &blockedStream{first: make(chan struct{}), release: make(chan struct{})}
	slowErr := make(chan error, 1)
	go func() { slowErr <- srv.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}, slow) }()
	fastErr := make(chan error, 1)
	go func() { fastErr <- srv.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}, fast) }()
	<-fast.one
	<-slow.first // both are subscribed
	close(start)
	if err := <-fastErr; err != nil {
		t.Fatalf("the reading subscriber failed: %v", err)
	}
	if len(fast.evs) != chunks+2 { // snapshot, chunks, COMPLETED
		t.Fatalf("the reading subscriber got %d events, want %d", len(fast.evs), chunks+2)
	}
	waitDirect(t, srv, id, a2av1.TaskState_TASK_STATE_COMPLETED)
	close(slow.release)
	err = <-slowErr
	var e *runtime.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message(), "MaxSubscriberBytes") || !strings.Contains(e.Message(), "SubscribeToTask") {
		t.Fatalf("the stalled subscriber ended with %v, want an error naming MaxSubscriberBytes telling it to resubscribe", err)
	}
	// The snapshot, the one event taken while Send blocks, and what fits
	// in the budget.
	if max := 2 + budget/chunkBytes; slow.n > max {
		t.Fatalf("the stalled subscriber was sent %d events, more than its byte budget allows (%d)", slow.n, max)
	}
}
