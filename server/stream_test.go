package server_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// burstExecutor goes WORKING, waits for go, then sends n chunks of one
// artifact as fast as it can and completes.
func burstExecutor(n int, start <-chan struct{}) server.Executor {
	return server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		select {
		case <-start:
		case <-ctx.Done():
			return ctx.Err()
		}
		for i := 1; i <= n; i++ {
			if err := ev.ArtifactChunk(server.TextArtifact("burst", fmt.Sprintf("%d;", i)), i > 1, i == n); err != nil {
				return err
			}
		}
		return ev.Complete(nil)
	})
}

// TestConcurrentSubscribersSeeIdenticalSequences: the initiating stream and
// many SubscribeToTask streams receive the same events in the same order.
func TestConcurrentSubscribersSeeIdenticalSequences(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		start := make(chan struct{})
		const chunks, subscribers = 60, 12
		e := newEnv(t, b, burstExecutor(chunks, start), nil)

		initiator := make(chan []*a2av1.StreamResponse, 1)
		taskID := make(chan string, 1)
		go func() {
			var evs []*a2av1.StreamResponse
			for ev, err := range e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("go")}) {
				if err != nil {
					t.Errorf("initiator stream: %v", err)
					break
				}
				if len(evs) == 0 {
					taskID <- ev.GetTask().GetId()
				}
				evs = append(evs, ev)
			}
			initiator <- evs
		}()
		id := <-taskID
		waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_WORKING)

		var wg, subscribed sync.WaitGroup
		results := make([][]*a2av1.StreamResponse, subscribers)
		for i := range subscribers {
			wg.Add(1)
			subscribed.Add(1)
			go func() {
				defer wg.Done()
				first := true
				for ev, err := range e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}) {
					if err != nil {
						t.Errorf("subscriber %d: %v", i, err)
						break
					}
					results[i] = append(results[i], ev)
					if first {
						first = false
						subscribed.Done()
					}
				}
			}()
		}
		subscribed.Wait() // every subscriber has its snapshot, so it is registered
		close(start)
		wg.Wait()
		ini := <-initiator
		// The initiator saw task, WORKING, then the same tail as everyone.
		if len(ini) != chunks+3 {
			t.Fatalf("initiator got %d events: %q", len(ini), describeAll(ini))
		}
		tail := ini[2:]
		for i, got := range results {
			if got[0].GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_WORKING {
				t.Fatalf("subscriber %d: first event %q, want the WORKING snapshot", i, describe(got[0]))
			}
			if len(got)-1 != len(tail) {
				t.Fatalf("subscriber %d got %d events after the snapshot, want %d", i, len(got)-1, len(tail))
			}
			for j, ev := range got[1:] {
				if !proto.Equal(ev, tail[j]) {
					t.Fatalf("subscriber %d event %d = %q, initiator had %q", i, j, describe(ev), describe(tail[j]))
				}
			}
		}
	})
}

// TestAuthRequiredKeepsStreaming: INPUT_REQUIRED ends a stream, AUTH_REQUIRED
// does not; blocking SendMessage returns at both.
func TestAuthRequiredKeepsStreaming(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		resume := make(chan struct{})
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			if err := ev.AuthRequired(server.AgentMessage("sign in at https://idp.example")); err != nil {
				return err
			}
			select {
			case <-resume:
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := ev.Working(); err != nil {
				return err
			}
			return ev.Complete(nil)
		})
		e := newEnv(t, b, exec, nil)
		task := sendTask(t, e.c, "x")
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_AUTH_REQUIRED {
			t.Fatalf("blocking SendMessage returned %v, want AUTH_REQUIRED", task.GetStatus().GetState())
		}
		resume <- struct{}{} // finish the first task
		waitState(t, e.c, task.GetId(), a2av1.TaskState_TASK_STATE_COMPLETED)

		var got []string
		for ev, err := range e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("y")}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, describe(ev))
			if strings.HasPrefix(got[len(got)-1], "status AUTH_REQUIRED") {
				// A task waiting for authentication can be subscribed to.
				sub := e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: ev.GetStatusUpdate().GetTaskId()})
				for first, err := range sub {
					if err != nil || first.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_AUTH_REQUIRED {
						t.Fatalf("subscribing during AUTH_REQUIRED: %v, %v", first, err)
					}
					break
				}
				resume <- struct{}{}
			}
		}
		want := []string{"task SUBMITTED", "status AUTH_REQUIRED+msg", "status WORKING", "status COMPLETED"}
		if !slices.Equal(got, want) {
			t.Fatalf("stream %q, want %q", got, want)
		}
	})
}

func TestSubscribeToTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		done := sendTask(t, e.c, "hello")
		_, err := collect(e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: done.GetId()}))
		wantCode(t, "subscribe to a COMPLETED task", err, runtime.ErrUnsupportedOperation)
		_, err = collect(e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: "nope"}))
		wantCode(t, "subscribe to an unknown task", err, runtime.ErrTaskNotFound)

		// A task waiting for input can be subscribed to; the stream follows
		// it through the next turn.
		waiting := sendTask(t, e.c, "input")
		got := make(chan []string, 1)
		ready := make(chan struct{})
		go func() {
			var evs []string
			for ev, err := range e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: waiting.GetId()}) {
				if err != nil {
					t.Errorf("subscribe: %v", err)
					break
				}
				if len(evs) == 0 {
					close(ready)
				}
				evs = append(evs, describe(ev))
			}
			got <- evs
		}()
		<-ready
		send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("answer", waiting.GetId())})
		want := []string{"task INPUT_REQUIRED", "status SUBMITTED", "artifact Echo: answer+last", "status COMPLETED"}
		if evs := <-got; !slices.Equal(evs, want) {
			t.Fatalf("subscription %q, want %q", evs, want)
		}
	})
}

// blockedStream is a runtime.Stream whose Send blocks (after the first event)
// until release is closed: a client that stopped reading.
type blockedStream struct {
	n       int
	first   chan struct{} // closed after the first event
	release chan struct{}
}

func (s *blockedStream) Send(*a2av1.StreamResponse) error {
	s.n++
	if s.n == 1 {
		close(s.first)
		return nil
	}
	<-s.release
	return nil
}

// recordingStream is a runtime.Stream that keeps what it is sent.
type recordingStream struct {
	mu  sync.Mutex
	evs []*a2av1.StreamResponse
	one chan struct{} // closed after the first event
	ack chan struct{} // receives one value per artifact event
}

func (s *recordingStream) Send(ev *a2av1.StreamResponse) error {
	s.mu.Lock()
	s.evs = append(s.evs, ev)
	n := len(s.evs)
	s.mu.Unlock()
	if n == 1 {
		close(s.one)
	}
	if ev.GetArtifactUpdate() != nil {
		s.ack <- struct{}{}
	}
	return nil
}

// TestSlowSubscriberIsDropped checks the overflow policy: a stream whose
// client stops reading is dropped once its buffer is full, with an error as
// its last event, while the task and the other subscribers go on. The
// executor moves in lockstep with the reading subscriber, so only the stalled
// one can fall behind.
func TestSlowSubscriberIsDropped(t *testing.T) {
	const chunks, buffer = 100, 8
	start := make(chan struct{})
	fast := &recordingStream{one: make(chan struct{}), ack: make(chan struct{}, 1)}
	exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		<-start
		for i := 1; i <= chunks; i++ {
			if err := ev.ArtifactChunk(server.TextArtifact("a", fmt.Sprintf("%d;", i)), i > 1, i == chunks); err != nil {
				return err
			}
			<-fast.ack
		}
		return ev.Complete(nil)
	})
	srv, err := server.New(echoCard(), exec, server.WithStore(store.NewMemory(store.WithSubscriberBuffer(buffer))))
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
	if !errors.As(err, &e) || !strings.Contains(e.Message(), "SubscribeToTask") {
		t.Fatalf("the stalled subscriber ended with %v, want an error telling it to resubscribe", err)
	}
	if slow.n > buffer+2 {
		t.Fatalf("the stalled subscriber was sent %d events, more than its buffer allows", slow.n)
	}
}

// waitDirect polls the server (no binding) until the task is in state.
func waitDirect(t *testing.T, srv *server.Server, id string, state a2av1.TaskState) {
	t.Helper()
	for i := 0; ; i++ {
		task, err := srv.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: id})
		if err != nil {
			t.Fatal(err)
		}
		if task.GetStatus().GetState() == state {
			return
		}
		if i > 100000 {
			t.Fatalf("task is %v, never reached %v", task.GetStatus().GetState(), state)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func TestStreamingCapabilityGate(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		for _, streaming := range []*bool{nil, ptr(false)} {
			e := newEnv(t, b, nil, cardWith(streaming, ptr(true), ptr(true)))
			_, err := collect(e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")}))
			wantCode(t, "SendStreamingMessage without streaming", err, runtime.ErrUnsupportedOperation)
			task := sendTask(t, e.c, "input")
			_, err = collect(e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: task.GetId()}))
			wantCode(t, "SubscribeToTask without streaming", err, runtime.ErrUnsupportedOperation)
		}
	})
}
