package server_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// Signals between instances are best effort (a PostgreSQL listener that
// reconnects loses them). These tests stand in for lost signals with a
// store that claims to carry signals between processes but drops every
// one, and with writes made straight to the store, as another process
// would make them: the server must still stop an execution whose task was
// canceled and hand it the follow-ups written elsewhere, by comparing its
// executions with the store on its lease-renewal ticker.

// lossyStore is a store that says it is shared by processes but loses
// every signal, and counts the task reads.
type lossyStore struct {
	store.Store
	reads atomic.Int64
}

func (s *lossyStore) Task(ctx context.Context, tenant, id string) (store.Record, error) {
	s.reads.Add(1)
	return s.Store.Task(ctx, tenant, id)
}

func (*lossyStore) Shared() bool { return true }

func (*lossyStore) SendSignal(context.Context, string, store.Signal) error { return nil }

func (*lossyStore) ReceiveSignals(string) (<-chan store.Signal, func()) {
	ch := make(chan store.Signal)
	var once sync.Once
	return ch, func() { once.Do(func() { close(ch) }) }
}

// countingStore counts task reads of a store that carries no signals.
type countingStore struct {
	store.Store
	reads atomic.Int64
}

func (s *countingStore) Task(ctx context.Context, tenant, id string) (store.Record, error) {
	s.reads.Add(1)
	return s.Store.Task(ctx, tenant, id)
}

// listener is an executor that reports WORKING and then records every
// follow-up it receives until one says "done" (COMPLETED) or its context
// ends (its cause goes to stopped).
type listener struct {
	started chan string
	stopped chan error

	mu  sync.Mutex
	got []string
}

func newListener() *listener {
	return &listener{started: make(chan string, 10), stopped: make(chan error, 10)}
}

func (l *listener) Execute(ctx context.Context, req *server.Request, ev *server.Events) error {
	if err := ev.Working(); err != nil {
		return err
	}
	l.started <- req.TaskID
	for {
		select {
		case m := <-req.FollowUps():
			text := server.MessageText(m)
			l.mu.Lock()
			l.got = append(l.got, text)
			l.mu.Unlock()
			if text == "done" {
				return ev.Complete(server.AgentMessage("finished after a follow-up"))
			}
		case <-ctx.Done():
			l.stopped <- context.Cause(ctx)
			return ctx.Err()
		}
	}
}

func (l *listener) followUps() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// writeElsewhere changes a task in the store as another process would:
// without telling this one.
func writeElsewhere(t *testing.T, st store.Store, id string, change func(*a2av1.Task) *a2av1.Task) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		rec, err := st.Task(ctx, "", id)
		if err != nil {
			t.Fatal(err)
		}
		next := change(rec.Task)
		_, err = st.UpdateTask(ctx, store.Update{Task: next, Expect: rec.Version, Events: []*a2av1.StreamResponse{
			{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
				TaskId: id, ContextId: next.GetContextId(), Status: next.GetStatus()}}}}})
		if err == nil {
			return
		}
		if !errors.Is(err, store.ErrConflict) {
			t.Fatal(err)
		}
	}
	t.Fatal("the task kept changing")
}

// withUserMessage is task with a client message appended to its history.
func withUserMessage(task *a2av1.Task, text string) *a2av1.Task {
	m := followUp(text, task.GetId())
	m.ContextId = task.GetContextId()
	return &a2av1.Task{Id: task.GetId(), ContextId: task.GetContextId(), Status: task.GetStatus(),
		Artifacts: task.GetArtifacts(), Metadata: task.GetMetadata(), History: append(slices.Clone(task.GetHistory()), m)}
}

func withState(task *a2av1.Task, state a2av1.TaskState) *a2av1.Task {
	return &a2av1.Task{Id: task.GetId(), ContextId: task.GetContextId(),
		Status:    &a2av1.TaskStatus{State: state, Timestamp: timestamppb.Now()},
		Artifacts: task.GetArtifacts(), Metadata: task.GetMetadata(), History: task.GetHistory()}
}

// startListening sends "work" to e and waits until the execution runs.
func startListening(t *testing.T, e *env, l *listener) string {
	t.Helper()
	resp := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("work"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	select {
	case id := <-l.started:
		if id != resp.GetTask().GetId() {
			t.Fatalf("execution of %s started, want %s", id, resp.GetTask().GetId())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the execution did not start")
	}
	return resp.GetTask().GetId()
}

// TestReconcileStopsCanceledExecutions: a cancel written by another process
// whose signal was lost stops the execution within a renewal period (a
// third of the lease), with cause ErrCanceled.
func TestReconcileStopsCanceledExecutions(t *testing.T) {
	st := &lossyStore{Store: store.NewMemory()}
	l := newListener()
	e := newEnv(t, bindings[0], l, nil, server.WithStore(st), server.WithRunLease(time.Second))
	id := startListening(t, e, l)

	start := time.Now()
	writeElsewhere(t, st, id, func(task *a2av1.Task) *a2av1.Task { return withState(task, a2av1.TaskState_TASK_STATE_CANCELED) })
	select {
	case cause := <-l.stopped:
		if !errors.Is(cause, server.ErrCanceled) {
			t.Fatalf("execution stopped with cause %v, want ErrCanceled", cause)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("stopped %v after the cancel, want within a renewal period (333ms) and some slack", d)
		}
		t.Logf("stopped %v after the cancel", time.Since(start).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the execution of a task canceled elsewhere was not stopped")
	}
	if got := waitState(t, e.c, id, a2av1.TaskState_TASK_STATE_CANCELED); got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatal("not CANCELED")
	}
}

// TestReconcileDeliversFollowUpsOnce: follow-ups written by another process
// whose signals were lost reach the execution, each once, together with
// follow-ups that arrived directly and by a signal from another instance of
// this process; the execution finishes on the last one.
func TestReconcileDeliversFollowUpsOnce(t *testing.T) {
	st := &lossyStore{Store: store.NewMemory()}
	l := newListener()
	a := newEnv(t, bindings[0], l, nil, server.WithStore(st), server.WithRunLease(time.Second))
	b := newEnv(t, bindings[1], newListener(), nil, server.WithStore(st), server.WithRunLease(time.Second))
	id := startListening(t, a, l)

	// Directly, on the instance running the task; signalled from the other
	// instance (within one process signals are never lost); written
	// elsewhere, twice, without a signal.
	send(t, a.c, &a2av1.SendMessageRequest{Message: followUp("direct", id), Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	send(t, b.c, &a2av1.SendMessageRequest{Message: followUp("signalled", id), Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	start := time.Now()
	writeElsewhere(t, st, id, func(task *a2av1.Task) *a2av1.Task { return withUserMessage(task, "lost 1") })
	writeElsewhere(t, st, id, func(task *a2av1.Task) *a2av1.Task { return withUserMessage(task, "lost 2") })
	want := []string{"direct", "signalled", "lost 1", "lost 2"}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(l.followUps(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("follow-ups received %q, want %q", l.followUps(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("the lost follow-ups arrived %v after they were written", time.Since(start).Round(time.Millisecond))
	// Several more renewal periods: nothing arrives twice.
	time.Sleep(1200 * time.Millisecond)
	if got := l.followUps(); !slices.Equal(got, want) {
		t.Fatalf("follow-ups received %q, want each once: %q", got, want)
	}

	writeElsewhere(t, st, id, func(task *a2av1.Task) *a2av1.Task { return withUserMessage(task, "done") })
	got := waitState(t, a.c, id, a2av1.TaskState_TASK_STATE_COMPLETED)
	if msg := server.MessageText(got.GetStatus().GetMessage()); msg != "finished after a follow-up" {
		t.Fatalf("status message %q", msg)
	}
	if got := l.followUps(); !slices.Equal(got, append(want, "done")) {
		t.Fatalf("follow-ups received %q", got)
	}
}

// TestReconcileCost: with a store that carries signals, reconciliation
// reads each running task once per renewal period; with one that does not
// (a single process needs none), it reads nothing.
func TestReconcileCost(t *testing.T) {
	for _, c := range []struct {
		name     string
		signaler bool
	}{{"signaler", true}, {"no signaler", false}} {
		t.Run(c.name, func(t *testing.T) {
			var st store.Store
			var reads func() int64
			if c.signaler {
				s := &lossyStore{Store: store.NewMemory()}
				st, reads = s, s.reads.Load
			} else {
				s := &countingStore{Store: store.NewMemory()}
				st, reads = s, s.reads.Load
			}
			l := newListener()
			e := newEnv(t, bindings[0], l, nil, server.WithStore(st), server.WithRunLease(time.Second))
			const running = 3
			for range running {
				startListening(t, e, l)
			}
			before := reads()
			const periods = 4
			time.Sleep(periods * time.Second / 3)
			n := reads() - before
			if !c.signaler {
				if n != 0 {
					t.Fatalf("%d task reads in %d renewal periods, want none", n, periods)
				}
				return
			}
			if n < (periods-1)*running || n > (periods+1)*running {
				t.Fatalf("%d task reads in %d renewal periods with %d running tasks, want about %d", n, periods, running, periods*running)
			}
		})
	}
}

// dropStore is a store that carries signals between processes but loses
// the first drop of them; the others are recorded.
type dropStore struct {
	store.Store
	mu      sync.Mutex
	drop    int
	dropped int
	sent    chan store.Signal
}

func (*dropStore) Shared() bool { return true }

func (s *dropStore) SendSignal(_ context.Context, runner string, sig store.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped < s.drop {
		s.dropped++
		return nil
	}
	s.sent <- sig
	return nil
}

func (*dropStore) ReceiveSignals(string) (<-chan store.Signal, func()) {
	ch := make(chan store.Signal)
	var once sync.Once
	return ch, func() { once.Do(func() { close(ch) }) }
}

func (s *dropStore) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped + len(s.sent)
}

// TestLostFollowUpSignalIsSentAgain: a follow-up for a task that waits for
// input and belongs to an instance in another process makes the task
// SUBMITTED and signals that instance, which alone runs the next turn; a
// lost signal is sent again while the task stays as the follow-up left it,
// and no more once the other instance has taken it up — or, if it never
// does, for one lease at most.
func TestLostFollowUpSignalIsSentAgain(t *testing.T) {
	const other = "elsewhere.example/1/n/1" // a live instance on another host
	waiting := func(t *testing.T, st store.Store, id string) {
		task := &a2av1.Task{Id: id, ContextId: "ctx-" + id,
			Status:  &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Timestamp: timestamppb.Now()},
			History: []*a2av1.Message{userMsg("input")}}
		if _, _, err := st.CreateTask(context.Background(), store.Creation{Record: store.Record{Task: task, Runner: other, LeaseUntil: time.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
	}
	immediately := &a2av1.SendMessageConfiguration{ReturnImmediately: true}

	t.Run("taken up", func(t *testing.T) {
		st := &dropStore{Store: store.NewMemory(), drop: 1, sent: make(chan store.Signal, 100)}
		e := newEnv(t, bindings[0], newListener(), nil, server.WithStore(st), server.WithRunLease(time.Second))
		waiting(t, st, "w")
		msg := followUp("more", "w")
		got := send(t, e.c, &a2av1.SendMessageRequest{Message: msg, Configuration: immediately}).GetTask()
		if got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_SUBMITTED {
			t.Fatalf("after the follow-up the task is %v, want SUBMITTED", got.GetStatus().GetState())
		}
		start := time.Now()
		select {
		case sig := <-st.sent:
			if sig.Kind != store.SignalFollowUp || sig.TaskID != "w" || sig.MessageID != msg.GetMessageId() {
				t.Fatalf("signal sent again: %+v", sig)
			}
			t.Logf("sent again %v after the follow-up", time.Since(start).Round(time.Millisecond))
		case <-time.After(time.Second):
			t.Fatal("the lost signal was not sent again")
		}
		// The other instance takes the task up (its first write).
		writeElsewhere(t, st, "w", func(task *a2av1.Task) *a2av1.Task { return withState(task, a2av1.TaskState_TASK_STATE_WORKING) })
		time.Sleep(1200 * time.Millisecond)
		if n := len(st.sent); n > 1 {
			t.Fatalf("%d more signals after the task was taken up", n)
		}
	})

	t.Run("never taken up", func(t *testing.T) {
		st := &dropStore{Store: store.NewMemory(), drop: 1 << 30, sent: make(chan store.Signal, 100)}
		e := newEnv(t, bindings[0], newListener(), nil, server.WithStore(st), server.WithRunLease(time.Second))
		waiting(t, st, "w")
		send(t, e.c, &a2av1.SendMessageRequest{Message: followUp("more", "w"), Configuration: immediately})
		time.Sleep(2 * time.Second)
		// Once, then after 0.1, 0.3 and 0.7 s of the 1 s lease.
		if n := st.attempts(); n < 2 || n > 5 {
			t.Fatalf("the signal was sent %d times in two leases, want a few, within the first", n)
		}
		t.Logf("sent %d times", st.attempts())
	})
}
