package server_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// chanStream is a runtime.Stream that records what a streaming call sends.
// onFirst, when set, is called once with the first event: the snapshot a
// subscription starts with, so the caller knows the subscription is in place.
type chanStream struct {
	mu      sync.Mutex
	events  []*a2av1.StreamResponse
	onFirst func()
}

func (s *chanStream) Send(ev *a2av1.StreamResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev)
	if len(s.events) == 1 && s.onFirst != nil {
		s.onFirst()
	}
	return nil
}

// TestThousandsOfConcurrentTasksAndStreams runs 2,000 tasks at once, each
// followed by its own SubscribeToTask stream, directly against the server
// (the bindings have their own concurrency tests). The tasks work until every
// subscription has received its snapshot (a gate, not a duration, so a loaded
// machine cannot let a task finish before its subscriber arrives). Every stream
// must see its task's snapshot first and COMPLETED last, and nothing may be
// left running.
func TestThousandsOfConcurrentTasksAndStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const tasks = 2000
	release := make(chan struct{})
	var subscribed sync.WaitGroup
	subscribed.Add(tasks)
	go func() { subscribed.Wait(); close(release) }()
	gated := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		if err := ev.Artifact(server.TextArtifact("", "done: "+req.Text())); err != nil {
			return err
		}
		return ev.Complete(nil)
	})
	srv, err := server.New(echoCard(), gated, server.WithLogger(discardLogger()), server.WithMaxStreams(-1), server.WithMaxAnonymousStreams(-1)) // 2,000 anonymous streams: beyond the default caps
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var wg sync.WaitGroup
	errs := make(chan error, tasks)
	for i := range tasks {
		wg.Go(func() {
			resp, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{
				Message:       userMsg("work"),
				Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true},
			})
			if err != nil {
				errs <- fmt.Errorf("task %d: SendMessage: %w", i, err)
				subscribed.Done()
				return
			}
			id := resp.GetTask().GetId()
			s := chanStream{onFirst: subscribed.Done}
			if err := srv.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}, &s); err != nil {
				errs <- fmt.Errorf("task %s: SubscribeToTask: %w", id, err)
				if len(s.events) == 0 {
					subscribed.Done()
				}
				return
			}
			first, last := s.events[0], s.events[len(s.events)-1]
			if first.GetTask().GetId() != id {
				errs <- fmt.Errorf("task %s: first event %v, want the task snapshot", id, first)
			}
			if got := last.GetStatusUpdate().GetStatus().GetState(); got != a2av1.TaskState_TASK_STATE_COMPLETED {
				errs <- fmt.Errorf("task %s: last event %v, want COMPLETED", id, last)
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	if n > 10 {
		t.Errorf("… and %d more failures", n-10)
	}
	list, err := srv.ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil || list.GetTotalSize() != tasks {
		t.Fatalf("ListTasks: total %d, %v; want %d", list.GetTotalSize(), err, tasks)
	}
}
