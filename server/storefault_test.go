package server_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// faultyStore is a memory store whose writes fail while broken is set, the
// way a full disk or a locked database file makes them fail.
type faultyStore struct {
	*store.Memory
	broken atomic.Bool
	// failAfter, when positive, breaks the store after that many more
	// successful writes.
	failAfter atomic.Int32
}

var errDisk = errors.New("disk I/O error")

func (f *faultyStore) fault() error {
	if n := f.failAfter.Load(); n > 0 {
		if f.failAfter.Add(-1) == 0 {
			f.broken.Store(true)
		}
		return nil
	}
	if f.broken.Load() {
		return errDisk
	}
	return nil
}

func (f *faultyStore) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	if err := f.fault(); err != nil {
		return store.Record{}, nil, err
	}
	return f.Memory.CreateTask(ctx, c)
}

func (f *faultyStore) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	if err := f.fault(); err != nil {
		return 0, err
	}
	return f.Memory.UpdateTask(ctx, u)
}

// TestStorageFailures: a write the store refuses fails the call with an
// Internal error (its cause is logged, not sent), the task never shows a
// half-made change, and the server serves normally once the store works
// again — also settling a task whose execution ended while it was broken.
func TestStorageFailures(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		st := &faultyStore{Memory: store.NewMemory()}
		e := newEnv(t, b, nil, nil, server.WithStore(st), server.WithLogger(discardLogger()))

		st.broken.Store(true)
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")})
		wantCode(t, "SendMessage while the store fails", err, runtime.ErrInternal)
		var re *runtime.Error
		if errors.As(err, &re) && re.Message() == errDisk.Error() {
			t.Fatalf("the storage error %q reached the client", re.Message())
		}
		st.broken.Store(false)
		if task := sendTask(t, e.c, "hello"); task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("after the store recovered: %v, want COMPLETED", task.GetStatus().GetState())
		}

		// The store breaks after the task is created and before it is
		// completed, and recovers a moment later: the task ends FAILED and
		// the blocking call returns it. (A blocking call's task is created
		// when its first changes settle it or after the batch window: "slow" is
		// created WORKING, and its artifact's write fails.)
		st.failAfter.Store(1)
		go func() {
			time.Sleep(300 * time.Millisecond)
			st.broken.Store(false)
		}()
		task := sendTask(t, e.c, "slow 100")
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED || len(task.GetArtifacts()) != 0 {
			t.Fatalf("task after a failed artifact: %v with %d artifacts, want FAILED without one", task.GetStatus().GetState(), len(task.GetArtifacts()))
		}
		got, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED {
			t.Fatalf("GetTask = %v, %v; want the FAILED task", got.GetStatus().GetState(), err)
		}

		// A stream's task is created before its first event: when the
		// artifact's write fails, the task ends FAILED with no artifact.
		st.failAfter.Store(1)
		go func() {
			time.Sleep(300 * time.Millisecond)
			st.broken.Store(false)
		}()
		events, _ := collect(e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")}))
		if len(events) == 0 || events[0].GetTask() == nil {
			t.Fatalf("stream while the store breaks: %v, want the task first", events)
		}
		got, err = e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: events[0].GetTask().GetId()})
		if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED || len(got.GetArtifacts()) != 0 {
			t.Fatalf("GetTask after a failed artifact write = %v with %d artifacts, %v; want FAILED with none",
				got.GetStatus().GetState(), len(got.GetArtifacts()), err)
		}
	})
}
