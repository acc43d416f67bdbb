package server_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store/sqlite"
)

// countMessage is how many times a message with id appears in task's
// history.
func countMessage(task *a2av1.Task, id string) int {
	n := 0
	for _, m := range task.GetHistory() {
		if m.GetMessageId() == id {
			n++
		}
	}
	return n
}

// listTotal is how many tasks the caller of c sees.
func listTotal(t *testing.T, c a2av1.A2AServiceClient) int32 {
	t.Helper()
	resp, err := c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
	if err != nil {
		t.Fatalf("ListTasks: %v", err)
	}
	return resp.GetTotalSize()
}

// TestIdempotentSendOneTask: on every binding, a SendMessage retried with
// the same Idempotency-Key — blocking, non-blocking and as a stream —
// answers with the first send's task: one task, the message once in its
// history.
func TestIdempotentSendOneTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		c := e.client(runtime.WithHeader("Idempotency-Key", "key-1"))
		msg := userMsg("hello")
		first := send(t, c, &a2av1.SendMessageRequest{Message: msg}).GetTask()
		if first.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("first send: %v, want a completed task", first)
		}
		again := send(t, c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask()
		immediate := send(t, c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		evs, err := collect(c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}))
		if err != nil {
			t.Fatalf("streamed retry: %v", err)
		}
		if len(evs) == 0 || evs[0].GetTask().GetId() != first.GetId() {
			t.Fatalf("streamed retry: %v, want the first send's task %s first", describeAll(evs), first.GetId())
		}
		for name, got := range map[string]*a2av1.Task{"blocking retry": again, "non-blocking retry": immediate} {
			if got.GetId() != first.GetId() || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
				t.Errorf("%s: task %s in %v, want the first send's task %s, completed", name, got.GetId(), got.GetStatus().GetState(), first.GetId())
			}
		}
		stored, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: first.GetId()})
		if err != nil {
			t.Fatalf("GetTask: %v", err)
		}
		if n := countMessage(stored, msg.GetMessageId()); n != 1 {
			t.Errorf("the message is %d times in the task's history, want once", n)
		}
		if n := listTotal(t, c); n != 1 {
			t.Errorf("the caller has %d tasks after four sends with one key, want 1", n)
		}
	})
}

// TestIdempotentFollowUp: a follow-up retried with its key is added to
// the task's history once, and the retry answers with the task.
func TestIdempotentFollowUp(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		task := sendTask(t, e.c, "input")
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
			t.Fatalf("input: %v, want INPUT_REQUIRED", task.GetStatus().GetState())
		}
		c := e.client(runtime.WithHeader("Idempotency-Key", "answer-1"))
		msg := followUp("the answer", task.GetId())
		first := send(t, c, &a2av1.SendMessageRequest{Message: msg}).GetTask()
		again := send(t, c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask()
		if again.GetId() != task.GetId() || again.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("retried follow-up: task %s %v, want %s COMPLETED", again.GetId(), again.GetStatus().GetState(), task.GetId())
		}
		if n := countMessage(again, msg.GetMessageId()); n != 1 || countMessage(first, msg.GetMessageId()) != 1 {
			t.Errorf("the follow-up is %d times in the task's history, want once", n)
		}
		if len(again.GetArtifacts()) != len(first.GetArtifacts()) {
			t.Errorf("the retry answered %d artifacts, the first send %d: the agent ran again", len(again.GetArtifacts()), len(first.GetArtifacts()))
		}
	})
}

// TestIdempotentByMessageID: without an Idempotency-Key the messageId is
// the key: the same message sent twice makes one task.
func TestIdempotentByMessageID(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		c := e.client(runtime.WithoutIdempotencyKeys()) // as a client that sends no key
		msg := userMsg("hello")
		first := send(t, c, &a2av1.SendMessageRequest{Message: msg}).GetTask()
		again := send(t, c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask()
		if again.GetId() != first.GetId() {
			t.Fatalf("the same message twice made tasks %s and %s, want one", first.GetId(), again.GetId())
		}
		if n := listTotal(t, c); n != 1 {
			t.Errorf("%d tasks, want 1", n)
		}
	})
}

// TestIdempotencyKeyOtherMessage: a key reused for a different message is
// refused with InvalidParams naming the key, and makes no task.
func TestIdempotencyKeyOtherMessage(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		c := e.client(runtime.WithHeader("Idempotency-Key", "key-1"))
		send(t, c, &a2av1.SendMessageRequest{Message: userMsg("hello")})
		_, err := c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("something else")})
		wantCode(t, "a reused key", err, runtime.InvalidParams(""))
		var re *runtime.Error
		if !errors.As(err, &re) || !containsAll(re.Message(), "Idempotency-Key", "key-1") {
			t.Errorf("error %v does not name the Idempotency-Key key-1", err)
		}
		if n := listTotal(t, c); n != 1 {
			t.Errorf("%d tasks, want 1", n)
		}
	})
}

// TestIdempotencyKeyPerOwner: the same key of two callers is two keys.
func TestIdempotencyKeyPerOwner(t *testing.T) {
	b := bindings[0]
	e := newEnv(t, b, nil, nil, server.WithTaskOwner(server.OwnerByCallerID))
	alice := e.client(runtime.WithHeader("Authorization", "Bearer alice"), runtime.WithHeader("Idempotency-Key", "k"))
	bob := e.client(runtime.WithHeader("Authorization", "Bearer bob"), runtime.WithHeader("Idempotency-Key", "k"))
	msg := userMsg("hello")
	a := send(t, alice, &a2av1.SendMessageRequest{Message: msg}).GetTask()
	bt := send(t, bob, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask()
	if a.GetId() == bt.GetId() {
		t.Fatalf("two callers' sends with one key share task %s", a.GetId())
	}
}

// TestIdempotencyWindowEnds: a key is kept for the window only: a retry
// after it makes a new task; with the window off, every send does.
func TestIdempotencyWindowEnds(t *testing.T) {
	var mu sync.Mutex
	at := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
	e := newEnv(t, bindings[0], nil, nil, server.WithIdempotencyWindow(time.Hour), server.WithClock(clock))
	e.c = e.client(runtime.WithHeader("Idempotency-Key", "window"))
	msg := userMsg("hello")
	first := send(t, e.c, &a2av1.SendMessageRequest{Message: msg}).GetTask()
	mu.Lock()
	at = at.Add(time.Hour - time.Second)
	mu.Unlock()
	if got := send(t, e.c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask(); got.GetId() != first.GetId() {
		t.Fatalf("a retry within the window made task %s, want %s", got.GetId(), first.GetId())
	}
	mu.Lock()
	at = at.Add(time.Second)
	mu.Unlock()
	if got := send(t, e.c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask(); got.GetId() == first.GetId() {
		t.Fatalf("a retry after the window answered with the first task %s, want a new one", got.GetId())
	}

	off := newEnv(t, bindings[0], nil, nil, server.WithIdempotencyWindow(0))
	off.c = off.client(runtime.WithHeader("Idempotency-Key", "window"))
	a := send(t, off.c, &a2av1.SendMessageRequest{Message: msg}).GetTask()
	if got := send(t, off.c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask(); got.GetId() == a.GetId() {
		t.Fatalf("with the window off, the same message twice made one task")
	}
}

// TestIdempotentDirectReply: a send the agent answers without a task keeps
// no key: its retry is answered by the agent again.
func TestIdempotentDirectReply(t *testing.T) {
	e := newEnv(t, bindings[0], nil, nil)
	c := e.client(runtime.WithHeader("Idempotency-Key", "direct"))
	msg := userMsg("message hi")
	for i := range 2 {
		if resp := send(t, c, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}); resp.GetMessage() == nil {
			t.Fatalf("send %d: %v, want a direct reply", i, resp)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestIdempotentAcrossSQLiteRestart: the keys are in the SQLite file: a
// retry after the server and its store restarted, within the window,
// answers with the task made before.
func TestIdempotentAcrossSQLiteRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	open := func() *sqlite.Store {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	st := open()
	e := newEnv(t, bindings[1], nil, nil, server.WithStore(st))
	c := e.client(runtime.WithHeader("Idempotency-Key", "restart-1"))
	msg := userMsg("hello")
	first := send(t, c, &a2av1.SendMessageRequest{Message: msg}).GetTask()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	e2 := newEnv(t, bindings[1], nil, nil, server.WithStore(open()))
	c2 := e2.client(runtime.WithHeader("Idempotency-Key", "restart-1"))
	again := send(t, c2, &a2av1.SendMessageRequest{Message: proto.CloneOf(msg)}).GetTask()
	if again.GetId() != first.GetId() {
		t.Fatalf("a retry after the restart made task %s, want the first send's %s", again.GetId(), first.GetId())
	}
	if n := listTotal(t, c2); n != 1 {
		t.Errorf("%d tasks, want 1", n)
	}
}

// TestReusedMessageIDOtherMessage: without an Idempotency-Key, another
// message under a messageId already used is a new send, not a retry and
// not an error.
func TestReusedMessageIDOtherMessage(t *testing.T) {
	e := newEnv(t, bindings[0], nil, nil)
	c := e.client(runtime.WithoutIdempotencyKeys())
	a := userMsg("hello")
	b := userMsg("bye")
	b.MessageId = a.GetMessageId()
	first := send(t, c, &a2av1.SendMessageRequest{Message: a}).GetTask()
	other := send(t, c, &a2av1.SendMessageRequest{Message: b}).GetTask()
	if first.GetId() == other.GetId() {
		t.Fatalf("two different messages under one messageId share task %s", first.GetId())
	}
}
