package server_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// gatedExecutor goes WORKING and then completes when release is closed; when
// its context is canceled first it sends the cause on causes and returns it.
func gatedExecutor(release <-chan struct{}, causes chan<- error) server.Executor {
	return server.ExecutorFunc(func(ctx context.Context, _ *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		select {
		case <-release:
			return ev.Complete(server.AgentMessage("done"))
		case <-ctx.Done():
			causes <- context.Cause(ctx)
			return context.Cause(ctx)
		}
	})
}

// streamInBackground starts a streaming message and returns the task's id
// (from the first event) and a channel with every event and the stream's
// error once it ends.
func streamInBackground(t *testing.T, seq iter.Seq2[*a2av1.StreamResponse, error]) (string, <-chan streamResult) {
	t.Helper()
	first := make(chan string, 1)
	out := make(chan streamResult, 1)
	go func() {
		var r streamResult
		for ev, err := range seq {
			if err != nil {
				r.err = err
				break
			}
			if len(r.events) == 0 {
				first <- ev.GetTask().GetId()
			}
			r.events = append(r.events, ev)
		}
		if len(r.events) == 0 {
			first <- ""
		}
		out <- r
	}()
	select {
	case id := <-first:
		if id == "" {
			t.Fatalf("the stream sent no task: %v", <-out)
		}
		return id, out
	case <-time.After(20 * time.Second):
		t.Fatal("no first event within 20s")
		return "", nil
	}
}

type streamResult struct {
	events []*a2av1.StreamResponse
	err    error
}

func waitStream(t *testing.T, ch <-chan streamResult) streamResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the stream did not end within 20s")
		return streamResult{}
	}
}

func lastState(r streamResult) a2av1.TaskState {
	if len(r.events) == 0 {
		return a2av1.TaskState_TASK_STATE_UNSPECIFIED
	}
	ev := r.events[len(r.events)-1]
	if ev.GetTask() != nil {
		return ev.GetTask().GetStatus().GetState()
	}
	return ev.GetStatusUpdate().GetStatus().GetState()
}

// TestDrainLetsExecutionsFinish: Drain refuses new tasks but waits for the
// running execution, whose stream ends with its own COMPLETED; Shutdown
// after it has nothing to cancel.
func TestDrainLetsExecutionsFinish(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		release := make(chan struct{})
		causes := make(chan error, 1)
		e := newEnv(t, b, gatedExecutor(release, causes), nil)
		id, stream := streamInBackground(t, e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("work")}))
		waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_WORKING)

		drained := make(chan error, 1)
		go func() { drained <- e.srv.Drain(ctxT(t)) }()
		time.Sleep(50 * time.Millisecond)
		select {
		case err := <-drained:
			t.Fatalf("Drain returned %v while an execution runs", err)
		default:
		}
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("new")})
		if err == nil || !strings.Contains(err.Error(), "shutting down") {
			t.Errorf("a new message while draining: %v, want a refusal saying the agent is shutting down", err)
		}
		close(release)
		if err := <-drained; err != nil {
			t.Fatalf("Drain: %v", err)
		}
		r := waitStream(t, stream)
		if r.err != nil || lastState(r) != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Errorf("stream ended with %v after %v, want COMPLETED", r.err, describeAll(r.events))
		}
		if err := e.srv.Shutdown(ctxT(t)); err != nil {
			t.Errorf("Shutdown after a complete drain: %v", err)
		}
		select {
		case c := <-causes:
			t.Errorf("the execution was canceled (%v)", c)
		default:
		}
	})
}

// TestShutdownAfterDrainDeadline: an execution still running when Drain's
// context ends is canceled by Shutdown with the cause ErrShutdown; the
// stream ends with the FAILED status saying why, not with a cut.
func TestShutdownAfterDrainDeadline(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		causes := make(chan error, 1)
		e := newEnv(t, b, gatedExecutor(nil, causes), nil, server.WithLogger(discardLogger()))
		id, stream := streamInBackground(t, e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("work")}))
		waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_WORKING)

		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := e.srv.Drain(ctx)
		if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 execution still running") {
			t.Fatalf("Drain = %v, want the deadline with 1 execution still running", err)
		}
		if err := e.srv.Shutdown(ctxT(t)); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if c := <-causes; !errors.Is(c, server.ErrShutdown) {
			t.Errorf("the executor saw the cause %v, want server.ErrShutdown", c)
		}
		r := waitStream(t, stream)
		if r.err != nil || lastState(r) != a2av1.TaskState_TASK_STATE_FAILED {
			t.Fatalf("stream ended with %v after %v, want FAILED", r.err, describeAll(r.events))
		}
		last := r.events[len(r.events)-1].GetStatusUpdate()
		if got := server.MessageText(last.GetStatus().GetMessage()); !strings.Contains(got, "shut down") {
			t.Errorf("the final status says %q, want that the agent shut down", got)
		}
	})
}

// TestShutdownEndsStreamsOfWaitingTasks: a stream that would stay open
// (AUTH_REQUIRED does not end streams) ends at Shutdown with an error event
// naming the task and its state, never with a bare cut.
func TestShutdownEndsStreamsOfWaitingTasks(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, server.ExecutorFunc(func(_ context.Context, _ *server.Request, ev *server.Events) error {
			return ev.AuthRequired(server.AgentMessage("sign in elsewhere"))
		}), nil)
		id, stream := streamInBackground(t, e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("x")}))
		waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_AUTH_REQUIRED)
		select {
		case r := <-stream:
			t.Fatalf("the AUTH_REQUIRED stream ended before Shutdown: %v %v", describeAll(r.events), r.err)
		case <-time.After(50 * time.Millisecond):
		}
		if err := e.srv.Shutdown(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		r := waitStream(t, stream)
		var ae *runtime.Error
		if !errors.As(r.err, &ae) || !strings.Contains(ae.Message(), "shutting down") || !strings.Contains(ae.Message(), "AUTH_REQUIRED") ||
			ae.Metadata()["taskId"] != id {
			t.Fatalf("stream ended with %v (events %v), want an error event about the shutdown naming the task and AUTH_REQUIRED", r.err, describeAll(r.events))
		}
		if lastState(r) != a2av1.TaskState_TASK_STATE_AUTH_REQUIRED {
			t.Errorf("events before the error: %v, want the AUTH_REQUIRED state", describeAll(r.events))
		}
	})
}

// TestShutdownWithStuckExecution: an executor that ignores the cancel
// makes Shutdown report it at its deadline, but the stream still ends with
// an error event and a blocking SendMessage returns the task as it is.
func TestShutdownWithStuckExecution(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		stuck := make(chan struct{})
		defer close(stuck)
		e := newEnv(t, b, server.ExecutorFunc(func(_ context.Context, _ *server.Request, ev *server.Events) error {
			if err := ev.Working(); err != nil {
				return err
			}
			<-stuck
			return nil
		}), nil)
		id, stream := streamInBackground(t, e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("a")}))
		waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_WORKING)
		blocked := make(chan *a2av1.SendMessageResponse, 1)
		go func() {
			resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("b")})
			if err != nil {
				t.Errorf("blocking SendMessage during Shutdown: %v", err)
			}
			blocked <- resp
		}()
		// The blocking call's task exists once two tasks are listed.
		deadline := time.Now().Add(10 * time.Second)
		for {
			l, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
			if err == nil && len(l.GetTasks()) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the blocking call's task never appeared: %v %v", l, err)
			}
			time.Sleep(5 * time.Millisecond)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		err := e.srv.Shutdown(ctx)
		if err == nil || !strings.Contains(err.Error(), "2 executions still running at the shutdown deadline") {
			t.Errorf("Shutdown = %v, want 2 executions still running", err)
		}
		r := waitStream(t, stream)
		if e := runtime.ErrorOrInternal(r.err); r.err == nil || !strings.Contains(e.Message(), "WORKING") {
			t.Errorf("stream ended with %v after %v, want an error event naming WORKING", r.err, describeAll(r.events))
		}
		select {
		case resp := <-blocked:
			if resp != nil && resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_WORKING {
				t.Errorf("blocking SendMessage returned %v, want the WORKING task", resp)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the blocking SendMessage did not return after Shutdown")
		}
	})
}

// laggingStore is a store whose subscriptions never deliver an event: a
// feed that lags behind the writes (as a shared store's may).
type laggingStore struct{ store.Store }

func (l laggingStore) Subscribe(ctx context.Context, tenant, id string, f store.Follow) (store.Record, store.Subscription, error) {
	return silenced(l.Store.Subscribe(ctx, tenant, id, f))
}

func (l laggingStore) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	rec, sub, err := l.Store.CreateTask(ctx, c)
	if sub == nil {
		return rec, sub, err
	}
	return silenced(rec, sub, err)
}

// silenced replaces a subscription with one that never delivers an event.
func silenced(rec store.Record, sub store.Subscription, err error) (store.Record, store.Subscription, error) {
	if err != nil {
		return rec, sub, err
	}
	return rec, &silentSub{real: sub, ch: make(chan store.Event)}, nil
}

type silentSub struct {
	real store.Subscription
	ch   chan store.Event
}

func (s *silentSub) Events() <-chan store.Event { return s.ch }
func (s *silentSub) Err() error                 { return nil }
func (s *silentSub) Close()                     { s.real.Close() }
func (s *silentSub) Written(int64) *a2av1.Task  { return nil }

// TestShutdownEndsLaggingStreamWithLatestState: when Shutdown ends a stream
// whose feed has not brought the task's last writes, the stream still ends
// with the latest state from the store.
func TestShutdownEndsLaggingStreamWithLatestState(t *testing.T) {
	release := make(chan struct{})
	b := bindings[0]
	mem := store.NewMemory()
	defer mem.Close()
	e := newEnv(t, b, gatedExecutor(release, make(chan error, 1)), nil, server.WithStore(laggingStore{mem}))
	id, stream := streamInBackground(t, e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("x"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}))
	waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_WORKING)
	close(release)
	waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_COMPLETED)
	start := time.Now()
	if err := e.srv.Shutdown(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	r := waitStream(t, stream)
	if r.err != nil || lastState(r) != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("stream ended with %v after %v, want the COMPLETED state", r.err, describeAll(r.events))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v to end a lagging stream", d)
	}
}

// TestDrainWithNothingRunning: with no execution, Drain and Shutdown
// succeed even with contexts that are already done.
func TestDrainWithNothingRunning(t *testing.T) {
	for range 50 {
		srv, err := server.New(cardWith(ptr(true), nil, nil), gatedExecutor(nil, nil)) // no push: its sender has its own rules
		if err != nil {
			t.Fatal(err)
		}
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if err := srv.Drain(done); err != nil {
			t.Fatalf("Drain with nothing running: %v", err)
		}
		if err := srv.Shutdown(done); err != nil {
			t.Fatalf("Shutdown with nothing running: %v", err)
		}
	}
}
