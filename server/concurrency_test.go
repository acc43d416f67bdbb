package server_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
)

// TestManyConcurrentTasks runs many tasks at once (blocking calls, streams,
// cancels) and checks every one of them ended right.
func TestManyConcurrentTasks(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		const blocking, streams, cancels = 200, 50, 20
		var wg sync.WaitGroup
		ids := make(chan string, blocking+streams+cancels)
		errs := make(chan error, blocking+streams+cancels)
		for i := range blocking {
			wg.Add(1)
			go func() {
				defer wg.Done()
				text := fmt.Sprintf("hello %d", i)
				resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(text)})
				switch {
				case err != nil:
					errs <- err
				case resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED ||
					server.MessageText(&a2av1.Message{Parts: resp.GetTask().GetArtifacts()[0].GetParts()}) != "Echo: "+text:
					errs <- fmt.Errorf("task %d: %v", i, resp.GetTask())
				default:
					ids <- resp.GetTask().GetId()
				}
			}()
		}
		for i := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				evs, err := collect(e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("stream 5")}))
				if err != nil || len(evs) != 8 || describe(evs[7]) != "status COMPLETED" {
					errs <- fmt.Errorf("stream %d: %q, %v", i, describeAll(evs), err)
					return
				}
				ids <- evs[0].GetTask().GetId()
			}()
		}
		for i := range cancels {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("slow 60000"),
					Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
				if err != nil {
					errs <- err
					return
				}
				task, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: resp.GetTask().GetId()})
				if err != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
					errs <- fmt.Errorf("cancel %d: %v, %v", i, task.GetStatus(), err)
					return
				}
				ids <- task.GetId()
			}()
		}
		wg.Wait()
		close(errs)
		close(ids)
		for err := range errs {
			t.Error(err)
		}
		seen := map[string]bool{}
		for id := range ids {
			if seen[id] {
				t.Fatalf("task id %s issued twice", id)
			}
			seen[id] = true
		}
		list, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{PageSize: ptr[int32](1)})
		if err != nil || list.GetTotalSize() != blocking+streams+cancels {
			t.Fatalf("ListTasks total %d, %v; want %d", list.GetTotalSize(), err, blocking+streams+cancels)
		}
	})
}

// TestManySubscribers follows one task with many streams at once.
func TestManySubscribers(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		task := sendTask(t, e.c, "input")
		const n = 200
		var wg, ready sync.WaitGroup
		results := make([][]string, n)
		for i := range n {
			wg.Add(1)
			ready.Add(1)
			go func() {
				defer wg.Done()
				first := true
				for ev, err := range e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: task.GetId()}) {
					if err != nil {
						t.Errorf("subscriber %d: %v", i, err)
						break
					}
					results[i] = append(results[i], describe(ev))
					if first {
						first = false
						ready.Done()
					}
				}
			}()
		}
		ready.Wait()
		send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("stream 3 as text", task.GetId())})
		wg.Wait()
		want := []string{"task INPUT_REQUIRED", "status SUBMITTED", "artifact Echo: stream 3 as text+last", "status COMPLETED"}
		for i, got := range results {
			if !slices.Equal(got, want) {
				t.Fatalf("subscriber %d saw %q, want %q", i, got, want)
			}
		}
	})
}

// TestNoGoroutineOutlivesItsWork: after a mix of calls — including clients
// that leave mid-stream or mid-wait — and Shutdown, nothing is left running.
func TestNoGoroutineOutlivesItsWork(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, b := range bindings {
		func() {
			srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: time.Millisecond}, server.WithLogger(discardLogger()))
			if err != nil {
				t.Fatal(err)
			}
			tb := &cleanupT{T: t}
			c := b.serve(tb, srv)()
			defer tb.run()

			sendTask(t, c, "hello")
			sendTask(t, c, "input")
			if _, err := collect(c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("stream 4")})); err != nil {
				t.Fatal(err)
			}
			// A client that leaves a stream after the first event.
			for range c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("slow 60000")}) {
				break
			}
			// A client that stops waiting for a blocking call.
			short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			_, _ = c.SendMessage(short, &a2av1.SendMessageRequest{Message: userMsg("slow 60000")})
			cancel()
			// A task canceled while a subscriber follows it.
			task := send(t, c, &a2av1.SendMessageRequest{Message: userMsg("slow 60000"),
				Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = collect(c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: task.GetId()}))
			}()
			waitState(t, c, task.GetId(), a2av1.TaskState_TASK_STATE_WORKING)
			if _, err := c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()}); err != nil {
				t.Fatal(err)
			}
			<-done

			ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			if err := srv.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
		}()
	}
}

// cleanupT runs the cleanups a binding registers right away instead of at
// the end of the test, so that a leak check can follow them.
type cleanupT struct {
	*testing.T
	fns []func()
}

func (c *cleanupT) Cleanup(f func()) { c.fns = append(c.fns, f) }

func (c *cleanupT) run() {
	for i := len(c.fns) - 1; i >= 0; i-- {
		c.fns[i]()
	}
}
