package postgres

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
)

// TestServerRoundTrips: the default server on this store answers a
// blocking SendMessage "hello" (a task created, given an artifact and
// completed) with two round trips to the database: the creation, which
// carries the artifact, and the completion. The waiting call reads
// nothing: it subscribes in the creation and answers with the snapshot of
// the completing write.
func TestServerRoundTrips(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	tr := &counter{}
	s := openTemp(t, WithTracer(tr))
	srv, err := server.New(echo.Card(), &echo.Agent{}, server.WithStore(s))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	ctx := context.Background()
	hello := func(i int) *a2av1.Task {
		resp, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{Message: &a2av1.Message{
			MessageId: fmt.Sprintf("m%d", i), Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}})
		if err != nil || resp.GetTask() == nil {
			t.Fatalf("SendMessage = %v, %v", resp, err)
		}
		return resp.GetTask()
	}
	for i := range 5 { // statements are prepared once per connection
		hello(i)
	}
	// The tracer also counts the store's own background statements (the
	// retention sweep, lease renewals), which may fall inside one hello's
	// window on a slow machine (the race detector): the least of three
	// hellos is what a hello costs; a hello that always costs more still
	// fails.
	var task *a2av1.Task
	trips := int64(-1)
	for i := 5; i < 8; i++ {
		before := tr.total()
		task = hello(i)
		if n := tr.total() - before; trips < 0 || n < trips {
			trips = n
		}
	}
	t.Logf("hello: %d round trips at least (%d queries, %d batches in all)", trips, tr.queries.Load(), tr.batches.Load())
	// One for the task's write, one for the claim of the send's
	// idempotency key (its messageId; server/idempotency.go).
	if trips != 2 {
		t.Fatalf("a blocking hello cost %d round trips; want 2", trips)
	}
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(task.GetArtifacts()) != 1 {
		t.Fatalf("answer: %v with %d artifacts, want COMPLETED with one", task.GetStatus().GetState(), len(task.GetArtifacts()))
	}
	rec, err := s.Task(ctx, "", task.GetId())
	if err != nil || rec.Version != 1 || rec.Task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(rec.Task.GetArtifacts()) != 1 {
		t.Fatalf("stored: %+v, %v; want version 1, COMPLETED with the artifact", rec, err)
	}
}

// BenchmarkServerHello: blocking SendMessage "hello" calls on the default
// server over this store, 16 at a time, without a binding (the store's and
// the server's part of a request; -cpuprofile shows where it goes).
func BenchmarkServerHello(b *testing.B) {
	s := openTemp(b)
	srv, err := server.New(echo.Card(), &echo.Agent{}, server.WithStore(s))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	b.SetParallelism(8) // 16 callers with GOMAXPROCS 2
	b.ReportAllocs()
	var ids atomic.Int64 // a new message each time, not a retry
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := srv.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: &a2av1.Message{
				MessageId: "m" + strconv.FormatInt(ids.Add(1), 10), Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}})
			if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
				b.Fatalf("SendMessage = %v, %v", resp, err)
			}
		}
	})
	b.ReportMetric(float64(s.Stats().Batches)/float64(b.N), "batches/op")
}
