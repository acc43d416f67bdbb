package server_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// Task generations (A2A 1.1 §3.2.7) over every binding: counted per event,
// guarding follow-ups (ifGenerationMatch) and long-polled (GetTask with
// currentGeneration).

// generationOf is the generation an event carries.
func generationOf(ev *a2av1.StreamResponse) int64 {
	switch {
	case ev.GetTask() != nil:
		return ev.GetTask().GetGeneration()
	case ev.GetStatusUpdate() != nil:
		return ev.GetStatusUpdate().GetGeneration()
	case ev.GetArtifactUpdate() != nil:
		return ev.GetArtifactUpdate().GetGeneration()
	}
	return -1
}

// TestGenerationCountsEveryEvent: a streaming client sees the task at
// generation 1 and then every event one generation further; the task read
// afterwards is at the last event's generation. A blocking call's task,
// created settled in one write, counts its changes alike.
func TestGenerationCountsEveryEvent(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		c := e.client11()
		evs, err := collect(c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("stream 5")}))
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if len(evs) != 8 || generationOf(evs[0]) != 1 {
			t.Fatalf("stream 5: %v, first at generation %d; want the task at generation 1 and 7 updates", describeAll(evs), generationOf(evs[0]))
		}
		for i := 1; i < len(evs); i++ {
			if got, want := generationOf(evs[i]), generationOf(evs[i-1])+1; got != want {
				t.Fatalf("event %d (%s) at generation %d after %d; want %d", i, describe(evs[i]), got, want-1, want)
			}
		}
		last := generationOf(evs[len(evs)-1])
		task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: evs[0].GetTask().GetId()})
		if err != nil || task.GetGeneration() != last {
			t.Fatalf("GetTask after the stream: generation %d, %v; want the last event's, %d", task.GetGeneration(), err, last)
		}

		// SUBMITTED, the artifact, COMPLETED: three, though written at once.
		hello := sendTask(t, c, "hello")
		if hello.GetGeneration() != 3 {
			t.Fatalf("blocking hello answered at generation %d, want 3", hello.GetGeneration())
		}
		// A follow-up of a task waiting for input: SUBMITTED again, the
		// artifact, COMPLETED.
		in := sendTask(t, c, "input")
		done := send(t, c, &a2av1.SendMessageRequest{Message: followUp("more", in.GetId())}).GetTask()
		if in.GetGeneration() != 2 || done.GetGeneration() != 5 {
			t.Fatalf("input then a follow-up: generations %d then %d, want 2 then 5", in.GetGeneration(), done.GetGeneration())
		}
	})
}

// TestIfGenerationMatch: a follow-up whose ifGenerationMatch is not the
// task's generation is TaskGenerationMismatch (naming both generations)
// and changes nothing; one that matches is taken.
func TestIfGenerationMatch(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		c := e.client11()
		in := sendTask(t, c, "input")
		g := in.GetGeneration()
		_, err := c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("more", in.GetId()),
			Configuration: &a2av1.SendMessageConfiguration{IfGenerationMatch: ptr(g - 1)}})
		wantCode(t, "a follow-up at a stale generation", err, runtime.ErrTaskGenerationMismatch)
		var re *runtime.Error
		if !errors.As(err, &re) || re.Metadata()["currentGeneration"] != strconv.FormatInt(g, 10) ||
			re.Metadata()["expectedGeneration"] != strconv.FormatInt(g-1, 10) || re.Metadata()["taskId"] != in.GetId() {
			t.Fatalf("mismatch error %v: metadata %v; want taskId, expectedGeneration %d, currentGeneration %d", err, re.Metadata(), g-1, g)
		}
		task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: in.GetId()})
		if err != nil || task.GetGeneration() != g || len(task.GetHistory()) != len(in.GetHistory()) ||
			task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
			t.Fatalf("after the refused follow-up: %v, %v; want the task unchanged", task, err)
		}
		resp, err := c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("more", in.GetId()),
			Configuration: &a2av1.SendMessageConfiguration{IfGenerationMatch: ptr(g)}})
		if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("a follow-up at the task's generation: %v, %v; want it taken and the task COMPLETED", resp, err)
		}
		// A new task has no generation to match: the field is ignored.
		resp, err = c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello"),
			Configuration: &a2av1.SendMessageConfiguration{IfGenerationMatch: ptr[int64](42)}})
		if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("a new task with ifGenerationMatch: %v, %v; want it run", resp, err)
		}
	})
}

// subscribeSignal is a store that says on the channel when a Subscribe
// call has returned (the long-poll of TestLongPoll is then waiting).
func subscribeSignal() (store.Store, <-chan struct{}) {
	subscribed := make(chan struct{}, 16)
	return store.Wrap(store.NewMemory(), func(ctx context.Context, op store.Op, call func(context.Context) error) error {
		err := call(ctx)
		if op == store.OpSubscribe {
			subscribed <- struct{}{}
		}
		return err
	}), subscribed
}

// TestLongPoll: GetTask with currentGeneration at the task's generation is
// held until a write moves the task on, and answers with it; with a short
// hold and no write, it answers with the task as it is. Below the task's
// generation, or for a terminal task, it answers at once.
func TestLongPoll(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		st, subscribed := subscribeSignal()
		e := newEnv(t, b, nil, nil, server.WithStore(st), server.WithLongPollHold(server.MaxLongPollHold))
		c := e.client11()
		in := sendTask(t, c, "input") // created settled: no subscription
		g := in.GetGeneration()
		type answer struct {
			task *a2av1.Task
			err  error
		}
		got := make(chan answer, 1)
		// No deadline: a long-poll that were not woken would be held for
		// MaxLongPollHold, past the wait below.
		pollCtx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			task, err := c.GetTask(pollCtx, &a2av1.GetTaskRequest{Id: in.GetId(), CurrentGeneration: ptr(g)})
			got <- answer{task, err}
		}()
		select {
		case <-subscribed:
		case a := <-got:
			t.Fatalf("long-poll at the task's generation %d answered before any change: %v, %v", g, a.task, a.err)
		case <-time.After(20 * time.Second):
			t.Fatal("the long-poll never subscribed to the task")
		}
		send(t, c, &a2av1.SendMessageRequest{Message: followUp("more", in.GetId()),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		var a answer
		select {
		case a = <-got:
		case <-time.After(20 * time.Second):
			t.Fatal("the write did not wake the long-poll")
		}
		if a.err != nil || a.task.GetGeneration() <= g || a.task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
			t.Fatalf("long-poll at generation %d: %v, %v; want the task moved on by the follow-up", g, a.task, a.err)
		}
		done := waitState(t, c, in.GetId(), a2av1.TaskState_TASK_STATE_COMPLETED)
		if task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: in.GetId(), CurrentGeneration: ptr(done.GetGeneration() - 1)}); err != nil ||
			task.GetGeneration() != done.GetGeneration() {
			t.Fatalf("long-poll below the generation: %v, %v; want the task at once", task, err)
		}
		if task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: in.GetId(), CurrentGeneration: ptr(done.GetGeneration())}); err != nil ||
			task.GetGeneration() != done.GetGeneration() {
			t.Fatalf("long-poll of a terminal task: %v, %v; want the task at once (it never changes)", task, err)
		}

		short := newEnv(t, b, nil, nil, server.WithLongPollHold(20*time.Millisecond)).client11()
		waiting := sendTask(t, short, "input")
		task, err := short.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: waiting.GetId(), CurrentGeneration: ptr(waiting.GetGeneration())})
		if err != nil || task.GetGeneration() != waiting.GetGeneration() || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
			t.Fatalf("long-poll that timed out: %v, %v; want the task as it is", task, err)
		}
	})
}

// TestFollowUpAsTheTurnWaitsAnnouncesOneSubmitted: a follow-up accepted
// after the turn asked for input but before it returned puts the task back
// to SUBMITTED once. The order is forced: the turn asks for input, the
// follow-up is written (SUBMITTED), and only then does the turn return, so
// that the next turn starts from a task that is no longer waiting. Before,
// the turn's last record (still INPUT_REQUIRED) made it announce a second
// SUBMITTED, one generation more than the events a client saw.
func TestFollowUpAsTheTurnWaitsAnnouncesOneSubmitted(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		asked := make(chan struct{}, 1)
		proceed := make(chan struct{})
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			if req.Text() != "start" {
				return ev.Complete(server.AgentMessage("done: " + req.Text()))
			}
			if err := ev.InputRequired(server.AgentMessage("more, please")); err != nil {
				return err
			}
			asked <- struct{}{}
			select {
			case <-proceed:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		e := newEnv(t, b, exec, nil)
		c := e.client11()
		task := send(t, c, &a2av1.SendMessageRequest{Message: userMsg("start"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		<-asked
		waiting, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || waiting.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
			t.Fatalf("GetTask after the turn asked for input: %v, %v", waiting.GetStatus().GetState(), err)
		}
		send(t, c, &a2av1.SendMessageRequest{Message: followUp("more", task.GetId()),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		close(proceed)
		// The follow-up's SUBMITTED, then COMPLETED with the answer.
		final, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId(), CurrentGeneration: ptr(waiting.GetGeneration() + 1)})
		for err == nil && !store.IsTerminal(final.GetStatus().GetState()) {
			final, err = c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId(), CurrentGeneration: ptr(final.GetGeneration())})
		}
		if err != nil || final.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("the task after the follow-up: %v, %v; want COMPLETED", final.GetStatus().GetState(), err)
		}
		if got, want := final.GetGeneration(), waiting.GetGeneration()+2; got != want {
			t.Fatalf("completed at generation %d after waiting at %d; want %d (one SUBMITTED, then COMPLETED)", got, waiting.GetGeneration(), want)
		}
	})
}
