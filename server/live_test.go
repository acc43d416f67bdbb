package server_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// Live calls (SendLiveMessage, the A2A 1.1 draft's bidirectional rpc, PR
// #2153) of the default server over loopback gRPC: several client messages
// into one task, its events back.

// grpcBinding is the one binding live calls are served on.
var grpcBinding = binding{runtime.BindingGRPC, serveGRPC}

// liveMsg is a live request carrying a user message with text.
func liveMsg(text string) *a2av1.StreamRequest {
	return &a2av1.StreamRequest{Payload: &a2av1.StreamRequest_Message{Message: userMsg(text)}}
}

// chatExecutor answers each client message of its task, the first and
// every follow-up it takes while it runs, with an artifact "got: <text>",
// and completes the task after "bye".
func chatExecutor() server.Executor {
	return server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		text := req.Text()
		for {
			if err := ev.Artifact(server.TextArtifact("", "got: "+text)); err != nil {
				return err
			}
			if text == "bye" {
				return ev.Complete(nil)
			}
			select {
			case m := <-req.FollowUps():
				text = server.MessageText(m)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
}

// liveCall is one live call in progress: requests are sent on in, events
// arrive on out, the call's outcome on done.
type liveCall struct {
	in   chan *a2av1.StreamRequest
	out  chan *a2av1.StreamResponse
	done chan error
}

func startLive(ctx context.Context, c a2av1.A2AServiceClient) *liveCall {
	lc := &liveCall{in: make(chan *a2av1.StreamRequest), out: make(chan *a2av1.StreamResponse, 64), done: make(chan error, 1)}
	go func() {
		defer close(lc.out)
		for ev, err := range c.SendLiveMessage(ctx, runtime.Requests(lc.in)) {
			if err != nil {
				lc.done <- err
				return
			}
			lc.out <- ev
		}
		lc.done <- nil
	}()
	return lc
}

// next is the call's next event; it fails the test when the call ended.
func (lc *liveCall) next(t *testing.T) *a2av1.StreamResponse {
	t.Helper()
	ev, ok := <-lc.out
	if !ok {
		t.Fatalf("the live call ended early: %v", <-lc.done)
	}
	return ev
}

// until takes events up to and including the first for which stop holds.
func (lc *liveCall) until(t *testing.T, stop func(*a2av1.StreamResponse) bool) []*a2av1.StreamResponse {
	t.Helper()
	var evs []*a2av1.StreamResponse
	for {
		ev := lc.next(t)
		evs = append(evs, ev)
		if stop(ev) {
			return evs
		}
	}
}

func artifactIs(text string) func(*a2av1.StreamResponse) bool {
	return func(ev *a2av1.StreamResponse) bool {
		parts := ev.GetArtifactUpdate().GetArtifact().GetParts()
		return len(parts) == 1 && parts[0].GetText() == text
	}
}

func stateIs(s a2av1.TaskState) func(*a2av1.StreamResponse) bool {
	return func(ev *a2av1.StreamResponse) bool { return ev.GetStatusUpdate().GetStatus().GetState() == s }
}

// checkGenerations fails unless evs start with the task and every later
// event is exactly one generation after the one before it.
func checkGenerations(t *testing.T, evs []*a2av1.StreamResponse) {
	t.Helper()
	if len(evs) == 0 || evs[0].GetTask() == nil || generationOf(evs[0]) < 1 {
		t.Fatalf("events %v: want the task first, at a generation", describeAll(evs))
	}
	for i := 1; i < len(evs); i++ {
		if got, want := generationOf(evs[i]), generationOf(evs[i-1])+1; got != want {
			t.Fatalf("event %d (%s) at generation %d, want %d: %v", i, describe(evs[i]), got, want, describeAll(evs))
		}
	}
}

// TestSendLiveMessage: the client's messages go into one task in the order
// sent, the first creating it and each later one reaching the running
// execution; the task's events come back on the same call, one generation
// apart; the call ends once the task is terminal and the client closed its
// side. A task waiting for input (INPUT_REQUIRED) takes the next message
// as a follow-up that starts its next turn, on the same call.
func TestSendLiveMessage(t *testing.T) {
	t.Run("running execution", func(t *testing.T) {
		e := newEnv(t, grpcBinding, chatExecutor(), nil)
		c := e.client11()
		lc := startLive(ctxT(t), c)
		lc.in <- liveMsg("hi")
		evs := lc.until(t, artifactIs("got: hi"))
		taskID := evs[0].GetTask().GetId()
		for _, text := range []string{"a", "b", "bye"} {
			lc.in <- liveMsg(text)
			evs = append(evs, lc.until(t, artifactIs("got: "+text))...)
		}
		evs = append(evs, lc.until(t, stateIs(a2av1.TaskState_TASK_STATE_COMPLETED))...)
		close(lc.in)
		if err := <-lc.done; err != nil {
			t.Fatalf("the call ended with %v after the client closed its side, want nil", err)
		}
		var rest []*a2av1.StreamResponse
		for ev := range lc.out {
			rest = append(rest, ev)
		}
		if len(rest) != 0 {
			t.Fatalf("events after COMPLETED: %v", describeAll(rest))
		}
		checkGenerations(t, evs)
		for _, ev := range evs[1:] {
			if id := taskIDOf(ev); id != taskID {
				t.Fatalf("event %s of task %q, want every event of the call's task %q", describe(ev), id, taskID)
			}
		}
		task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: taskID})
		if err != nil {
			t.Fatal(err)
		}
		if got := historyTexts(task); !slices.Equal(got, []string{"hi", "a", "b", "bye"}) {
			t.Fatalf("history %q, want the four messages of the call in order", got)
		}
		if last := generationOf(evs[len(evs)-1]); task.GetGeneration() != last {
			t.Fatalf("task at generation %d after the call, want the last event's, %d", task.GetGeneration(), last)
		}
	})
	t.Run("input required", func(t *testing.T) {
		e := newEnv(t, grpcBinding, nil, nil) // the echo agent
		c := e.client11()
		lc := startLive(ctxT(t), c)
		lc.in <- liveMsg("input")
		evs := lc.until(t, stateIs(a2av1.TaskState_TASK_STATE_INPUT_REQUIRED))
		// The stream stays open through INPUT_REQUIRED: the client is still there.
		lc.in <- liveMsg("more")
		evs = append(evs, lc.until(t, stateIs(a2av1.TaskState_TASK_STATE_COMPLETED))...)
		close(lc.in)
		if err := <-lc.done; err != nil {
			t.Fatalf("the call ended with %v, want nil", err)
		}
		checkGenerations(t, evs)
		if !slices.ContainsFunc(evs, artifactIs("Echo: more")) {
			t.Fatalf("events %v: want the echo of the follow-up", describeAll(evs))
		}
	})
	t.Run("client closes while input is required", func(t *testing.T) {
		// No one is left to give the input: the call ends there.
		e := newEnv(t, grpcBinding, nil, nil)
		lc := startLive(ctxT(t), e.client11())
		lc.in <- liveMsg("input")
		close(lc.in)
		var evs []*a2av1.StreamResponse
		for ev := range lc.out {
			evs = append(evs, ev)
		}
		if err := <-lc.done; err != nil {
			t.Fatalf("the call ended with %v, want nil", err)
		}
		checkGenerations(t, evs)
		if !stateIs(a2av1.TaskState_TASK_STATE_INPUT_REQUIRED)(evs[len(evs)-1]) {
			t.Fatalf("events %v: want the call to end at INPUT_REQUIRED", describeAll(evs))
		}
	})
	t.Run("client closes first", func(t *testing.T) {
		// The client sends one message and closes its side at once: the
		// call still relays the task to its end.
		e := newEnv(t, grpcBinding, nil, nil)
		lc := startLive(ctxT(t), e.client11())
		lc.in <- liveMsg("stream 3")
		close(lc.in)
		var evs []*a2av1.StreamResponse
		for ev := range lc.out {
			evs = append(evs, ev)
		}
		if err := <-lc.done; err != nil {
			t.Fatalf("the call ended with %v, want nil", err)
		}
		checkGenerations(t, evs)
		if !stateIs(a2av1.TaskState_TASK_STATE_COMPLETED)(evs[len(evs)-1]) {
			t.Fatalf("events %v: want the task's events up to COMPLETED", describeAll(evs))
		}
	})
}

// TestSendLiveMessageRefusals: a call that negotiated A2A 1.0 is refused
// (the rpc is 1.1's), the HTTP bindings answer UnsupportedOperation, and a
// live call ends with the error of a message the server does not take: a
// message for another task, a client-written artifact, a message after the
// task is terminal, no message at all.
func TestSendLiveMessageRefusals(t *testing.T) {
	e := newEnv(t, grpcBinding, nil, nil)
	if _, err := collect(e.c.SendLiveMessage(ctxT(t), slices.Values([]*a2av1.StreamRequest{liveMsg("hello")}))); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Errorf("a 1.0 live call: %v, want UnsupportedOperation (SendLiveMessage is A2A 1.1's)", err)
	}
	for _, b := range bindings[:2] {
		h := newEnv(t, b, nil, nil)
		if _, err := collect(h.client11().SendLiveMessage(ctxT(t), slices.Values([]*a2av1.StreamRequest{liveMsg("hello")}))); !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Errorf("%s: a live call: %v, want UnsupportedOperation (gRPC only)", b.name, err)
		}
	}

	c := e.client11()
	other := sendTask(t, c, "input")
	refused := []struct {
		name string
		reqs []*a2av1.StreamRequest
		want error
	}{
		{"another task", []*a2av1.StreamRequest{liveMsg("input"), {Payload: &a2av1.StreamRequest_Message{Message: followUp("more", other.GetId())}}}, runtime.ErrInvalidParams},
		{"client artifact", []*a2av1.StreamRequest{{Payload: &a2av1.StreamRequest_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
			TaskId: other.GetId(), ContextId: other.GetContextId(),
			Artifact: &a2av1.Artifact{ArtifactId: "a", Parts: []*a2av1.Part{server.TextPart("x")}, Role: a2av1.Role_ROLE_USER}}}}}, runtime.ErrUnsupportedOperation},
		{"after the end", []*a2av1.StreamRequest{liveMsg("hello"), liveMsg("again")}, runtime.ErrUnsupportedOperation},
		{"no message", nil, runtime.ErrInvalidParams},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			lc := startLive(ctxT(t), c)
			for _, req := range r.reqs {
				if r.name == "after the end" && len(r.reqs) > 1 && req == r.reqs[1] {
					lc.until(t, stateIs(a2av1.TaskState_TASK_STATE_COMPLETED))
				}
				lc.in <- req
			}
			close(lc.in)
			for range lc.out {
			}
			if err := <-lc.done; !errors.Is(err, r.want) {
				t.Fatalf("%v, want %v", err, r.want)
			}
		})
	}
	// The other task was left alone.
	if got, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: other.GetId()}); err != nil || len(got.GetHistory()) != 1 {
		t.Fatalf("the other task: %v, %v; want its one message only", got, err)
	}
}

// TestSendLiveMessageCancel: a client that cancels its live call ends it on
// the server too (the server's stream and goroutines end: goleak and
// Shutdown check), and the task goes on without it.
func TestSendLiveMessageCancel(t *testing.T) {
	e := newEnv(t, grpcBinding, chatExecutor(), nil)
	c := e.client11()
	ctx, cancel := context.WithCancel(ctxT(t))
	lc := startLive(ctx, c)
	lc.in <- liveMsg("hi")
	evs := lc.until(t, artifactIs("got: hi"))
	cancel()
	close(lc.in) // the client's request iterator waits on it (runtime.Requests)
	for range lc.out {
	}
	if err := <-lc.done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled live call: %v, want context.Canceled", err)
	}
	// The task still takes messages, from another call.
	id := evs[0].GetTask().GetId()
	done := send(t, c, &a2av1.SendMessageRequest{Message: followUp("bye", id)}).GetTask()
	if done.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("the task after the call: %v, want COMPLETED by a follow-up", done.GetStatus())
	}
}

func taskIDOf(ev *a2av1.StreamResponse) string {
	switch {
	case ev.GetStatusUpdate() != nil:
		return ev.GetStatusUpdate().GetTaskId()
	case ev.GetArtifactUpdate() != nil:
		return ev.GetArtifactUpdate().GetTaskId()
	}
	return ev.GetTask().GetId()
}

func historyTexts(task *a2av1.Task) []string {
	var out []string
	for _, m := range task.GetHistory() {
		if m.GetRole() == a2av1.Role_ROLE_USER {
			out = append(out, server.MessageText(m))
		}
	}
	return out
}
