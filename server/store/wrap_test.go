package store_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// sharedMemory is a memory store that says other processes share it, as a
// replica store does.
type sharedMemory struct{ *store.Memory }

func (sharedMemory) Shared() bool { return true }

// TestWrapInterceptsAndForwards: the interceptor sees each call with its
// operation and may fail it without reaching the store, and what has no
// context (Shared, DeliveriesQueued) still comes from the wrapped store, so
// a wrapper keeps cross-process signalling on.
func TestWrapInterceptsAndForwards(t *testing.T) {
	ctx := context.Background()
	inner := sharedMemory{store.NewMemory()}
	defer inner.Close()
	errRefused := errors.New("refused by the wrapper")
	var ops []store.Op
	w := store.Wrap(inner, func(ctx context.Context, op store.Op, call func(context.Context) error) error {
		ops = append(ops, op)
		if op == store.OpCreateTask {
			return errRefused
		}
		return call(ctx)
	})
	task := &a2av1.Task{Id: "t1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}
	if _, _, err := w.CreateTask(ctx, store.Creation{Record: store.Record{Task: task}}); !errors.Is(err, errRefused) {
		t.Fatalf("CreateTask through a refusing interceptor = %v, want its error", err)
	}
	if _, err := inner.Task(ctx, "", "t1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused creation reached the store: Task = %v", err)
	}
	if _, err := w.Task(ctx, "", "t1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Task through the wrapper = %v, want ErrNotFound from the store", err)
	}
	if len(ops) != 2 || ops[0] != store.OpCreateTask || ops[1] != store.OpTask {
		t.Fatalf("interceptor saw %v, want [CreateTask Task]", ops)
	}
	if !w.Shared() {
		t.Fatal("the wrapper hid that the store is shared")
	}
	if w.DeliveriesQueued() != inner.DeliveriesQueued() {
		t.Fatal("the wrapper's DeliveriesQueued is not the store's")
	}
}
