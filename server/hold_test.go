package server_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// writeCounter is a memory store that counts its task writes and records
// the state each creation stored; while failCreate is set, creations fail.
type writeCounter struct {
	*store.Memory
	creates, updates atomic.Int32
	failCreate       atomic.Bool
	mu               sync.Mutex
	created          []a2av1.TaskState
	tried            chan struct{} // receives on every creation tried, when not nil
}

func (w *writeCounter) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	if w.tried != nil {
		select {
		case w.tried <- struct{}{}:
		default:
		}
	}
	if w.failCreate.Load() {
		return store.Record{}, nil, errDisk
	}
	w.creates.Add(1)
	w.mu.Lock()
	w.created = append(w.created, c.Task.GetStatus().GetState())
	w.mu.Unlock()
	return w.Memory.CreateTask(ctx, c)
}

func (w *writeCounter) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	w.updates.Add(1)
	return w.Memory.UpdateTask(ctx, u)
}

func (w *writeCounter) createdStates() []a2av1.TaskState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]a2av1.TaskState(nil), w.created...)
}

// TestSimpleTaskIsOneWrite: a blocking SendMessage whose executor settles
// the task at once (echo's "hello": an artifact, then COMPLETED) stores it
// in one write, created COMPLETED with its artifact, and the answer is that
// task; a stream of the same task and a returnImmediately call still store
// each change as it happens (their callers see them).
func TestSimpleTaskIsOneWrite(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		st := &writeCounter{Memory: store.NewMemory()}
		e := newEnv(t, b, nil, nil, server.WithStore(st))

		task := sendTask(t, e.c, "hello")
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || artifactText(t, task) != "Echo: hello" {
			t.Fatalf("answer: %v, artifact %q; want COMPLETED with the echo", task.GetStatus().GetState(), artifactText(t, task))
		}
		if c, u := st.creates.Load(), st.updates.Load(); c != 1 || u != 0 {
			t.Fatalf("a blocking hello made %d creations and %d updates; want 1 and 0", c, u)
		}
		if got := st.createdStates(); len(got) != 1 || got[0] != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("created in %v; want COMPLETED", got)
		}
		rec, err := st.Memory.Task(ctxT(t), "", task.GetId())
		if err != nil || rec.Version != 1 || rec.Task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED ||
			len(rec.Task.GetArtifacts()) != 1 || len(rec.Task.GetHistory()) != 1 {
			t.Fatalf("stored %+v, %v; want version 1, COMPLETED, the artifact and the message", rec, err)
		}

		// The "input" task settles (INPUT_REQUIRED) at its first change.
		task = sendTask(t, e.c, "input")
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || st.creates.Load() != 2 || st.updates.Load() != 0 {
			t.Fatalf("input: %v after %d creations, %d updates; want INPUT_REQUIRED after 2 and 0",
				task.GetStatus().GetState(), st.creates.Load(), st.updates.Load())
		}

		st.creates.Store(0)
		st.updates.Store(0)
		events, err := collect(e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")}))
		if err != nil || len(events) != 3 {
			t.Fatalf("stream: %v, %v; want the task, the artifact, COMPLETED", describeAll(events), err)
		}
		if c, u := st.creates.Load(), st.updates.Load(); c != 1 || u != 2 {
			t.Fatalf("a streamed hello made %d creations and %d updates; want 1 and 2", c, u)
		}
		st.creates.Store(0)
		st.updates.Store(0)
		resp := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("hello"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		waitState(t, e.c, resp.GetTask().GetId(), a2av1.TaskState_TASK_STATE_COMPLETED)
		if c, u := st.creates.Load(), st.updates.Load(); c != 1 || u != 1 {
			t.Fatalf("a returnImmediately hello made %d creations and %d updates; want 1 and 1 (the first change folded in)", c, u)
		}
	})
}

// TestHeldTaskIsCreatedWhileItWorks: a blocking call's task that does not
// settle at once is stored within the hold window, with the changes made
// so far, while its executor still works: listings and GetTask see it, and
// a cancel reaches it.
func TestHeldTaskIsCreatedWhileItWorks(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		st := &writeCounter{Memory: store.NewMemory()}
		e := newEnv(t, b, nil, nil, server.WithStore(st))
		done := make(chan *a2av1.Task, 1)
		go func() {
			resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("slow 60000")})
			if err != nil {
				t.Errorf("SendMessage(slow): %v", err)
			}
			done <- resp.GetTask()
		}()
		var id string
		for id == "" {
			page, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.GetTasks()) == 1 {
				id = page.GetTasks()[0].GetId()
				if s := page.GetTasks()[0].GetStatus().GetState(); s != a2av1.TaskState_TASK_STATE_WORKING {
					t.Fatalf("listed in %v; want WORKING", s)
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
		if _, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: id}); err != nil {
			t.Fatalf("CancelTask: %v", err)
		}
		if task := <-done; task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("the blocking call answered %v; want CANCELED", task.GetStatus().GetState())
		}
	})
}

// TestHeldCreationFailure: when the held creation of a working task fails,
// the initiator gets an Internal error, the executor's next event returns
// the failure, and no task is left behind.
func TestHeldCreationFailure(t *testing.T) {
	st := &writeCounter{Memory: store.NewMemory(), tried: make(chan struct{}, 1)}
	st.failCreate.Store(true)
	next := make(chan error, 1)
	exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			next <- err
			return err
		}
		<-st.tried // the window ended and the creation failed
		time.Sleep(10 * time.Millisecond)
		err := ev.Artifact(server.TextArtifact("", "late"))
		next <- err
		return err
	})
	e := newEnv(t, bindings[0], exec, nil, server.WithStore(st), server.WithLogger(discardLogger()))
	_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("x")})
	wantCode(t, "SendMessage whose held creation fails", err, runtime.ErrInternal)
	if err := <-next; err == nil || !errors.Is(err, errDisk) {
		t.Fatalf("the executor's event after the failed creation returned %v; want the store's error", err)
	}
	page, err := st.Memory.ListTasks(ctxT(t), "", store.Query{Limit: 10})
	if err != nil || len(page.Records) != 0 {
		t.Fatalf("tasks left: %+v, %v; want none", page.Records, err)
	}
}

// TestBatchWindowOption: WithBatchWindow sets how long a blocking call's
// new task may be held: with a minute, a task that works 50 ms before it
// settles is still created settled in one write; with batching off (d <
// 0), a hello is created with its first change folded in and completed by
// a second write, as for a returnImmediately call.
func TestBatchWindowOption(t *testing.T) {
	b := bindings[0]
	st := &writeCounter{Memory: store.NewMemory()}
	e := newEnv(t, b, nil, nil, server.WithStore(st), server.WithBatchWindow(time.Minute))
	if task := sendTask(t, e.c, "slow 50"); task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("slow 50: %v; want COMPLETED", task.GetStatus().GetState())
	}
	if c, u := st.creates.Load(), st.updates.Load(); c != 1 || u != 0 {
		t.Fatalf("with a minute's window, slow 50 made %d creations and %d updates; want 1 and 0", c, u)
	}

	st = &writeCounter{Memory: store.NewMemory()}
	e = newEnv(t, b, nil, nil, server.WithStore(st), server.WithBatchWindow(-1))
	if task := sendTask(t, e.c, "hello"); task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("hello: %v; want COMPLETED", task.GetStatus().GetState())
	}
	if c, u := st.creates.Load(), st.updates.Load(); c != 1 || u != 1 {
		t.Fatalf("without batching, hello made %d creations and %d updates; want 1 and 1", c, u)
	}
}
