package server_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

func TestGetTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		task := sendTask(t, e.c, "hello")
		got, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || got.GetId() != task.GetId() || artifactText(t, got) != "Echo: hello" || len(got.GetHistory()) != 1 {
			t.Fatalf("GetTask = %v, %v", got, err)
		}
		_, err = e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: "nope"})
		wantCode(t, "GetTask(unknown)", err, runtime.ErrTaskNotFound)
		_, err = e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId(), HistoryLength: ptr[int32](-2)})
		wantCode(t, "GetTask(historyLength -2)", err, runtime.ErrInvalidParams)
	})
}

func TestListTasks(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		inCtx := func(text, contextID string) *a2av1.Task {
			m := userMsg(text)
			m.ContextId = contextID
			return send(t, e.c, &a2av1.SendMessageRequest{Message: m}).GetTask()
		}
		for i := range 6 {
			inCtx("hello", "ctx-a")
			if i%2 == 0 {
				inCtx("input", "ctx-b")
			} else {
				inCtx("reject", "ctx-b")
			}
		}
		list := func(req *a2av1.ListTasksRequest) *a2av1.ListTasksResponse {
			t.Helper()
			resp, err := e.c.ListTasks(ctxT(t), req)
			if err != nil {
				t.Fatalf("ListTasks(%v): %v", req, err)
			}
			return resp
		}

		resp := list(&a2av1.ListTasksRequest{})
		if resp.GetTotalSize() != 12 || len(resp.GetTasks()) != 12 || resp.GetPageSize() != 50 || resp.GetNextPageToken() != "" {
			t.Fatalf("unfiltered: total %d, %d tasks, pageSize %d, token %q", resp.GetTotalSize(), len(resp.GetTasks()), resp.GetPageSize(), resp.GetNextPageToken())
		}
		for i := 1; i < len(resp.GetTasks()); i++ {
			prev, cur := resp.GetTasks()[i-1].GetStatus().GetTimestamp().AsTime(), resp.GetTasks()[i].GetStatus().GetTimestamp().AsTime()
			if cur.After(prev) {
				t.Fatalf("task %d is newer than task %d: not newest first", i, i-1)
			}
		}
		for _, task := range resp.GetTasks() {
			if task.GetArtifacts() != nil {
				t.Fatalf("artifacts listed without includeArtifacts: %v", task)
			}
		}
		withArt := list(&a2av1.ListTasksRequest{IncludeArtifacts: ptr(true), ContextId: "ctx-a"})
		for _, task := range withArt.GetTasks() {
			if artifactText(t, task) != "Echo: hello" {
				t.Fatal("includeArtifacts did not include them")
			}
		}

		for _, tc := range []struct {
			name string
			req  *a2av1.ListTasksRequest
			want int32
		}{
			{"context", &a2av1.ListTasksRequest{ContextId: "ctx-a"}, 6},
			{"status", &a2av1.ListTasksRequest{Status: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED}, 3},
			{"context+status", &a2av1.ListTasksRequest{ContextId: "ctx-b", Status: a2av1.TaskState_TASK_STATE_REJECTED}, 3},
			{"no match", &a2av1.ListTasksRequest{ContextId: "ctx-z"}, 0},
			{"after the newest (inclusive)", &a2av1.ListTasksRequest{StatusTimestampAfter: resp.GetTasks()[0].GetStatus().GetTimestamp()}, -1},
			{"after the future", &a2av1.ListTasksRequest{StatusTimestampAfter: timestamppb.New(time.Now().Add(time.Hour))}, 0},
		} {
			got := list(tc.req)
			want := tc.want
			if want < 0 { // at least the newest task itself, which shares its timestamp
				if got.GetTotalSize() < 1 || got.GetTasks()[0].GetId() != resp.GetTasks()[0].GetId() {
					t.Fatalf("%s: %d tasks, want the newest included", tc.name, got.GetTotalSize())
				}
				continue
			}
			if got.GetTotalSize() != want || int32(len(got.GetTasks())) != want {
				t.Fatalf("%s: total %d, %d tasks; want %d", tc.name, got.GetTotalSize(), len(got.GetTasks()), want)
			}
		}

		hl := list(&a2av1.ListTasksRequest{HistoryLength: ptr[int32](0)})
		for _, task := range hl.GetTasks() {
			if len(task.GetHistory()) != 0 {
				t.Fatal("historyLength 0 left history in a listed task")
			}
		}

		for _, size := range []int32{-1, 101} {
			_, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{PageSize: ptr(size)})
			wantCode(t, fmt.Sprintf("pageSize %d", size), err, runtime.ErrInvalidParams)
		}
		// An explicit 0 is "unset" over gRPC only (the official Go SDK's gRPC
		// client always sends it); the HTTP bindings refuse it, naming the field.
		if b.name == runtime.BindingGRPC {
			if got := list(&a2av1.ListTasksRequest{PageSize: ptr[int32](0)}); got.GetPageSize() != server.DefaultPageSize {
				t.Fatalf("pageSize 0: echoed %d, want the default %d", got.GetPageSize(), server.DefaultPageSize)
			}
		} else {
			_, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{PageSize: ptr[int32](0)})
			wantCode(t, "pageSize 0", err, runtime.ErrInvalidParams)
			if v := runtime.ErrorOrInternal(err).FieldViolations(); len(v) != 1 || v[0].Field != "pageSize" {
				t.Fatalf("pageSize 0: violations %+v, want one naming pageSize", v)
			}
		}
		if got := list(&a2av1.ListTasksRequest{PageSize: ptr[int32](100)}); got.GetPageSize() != 100 {
			t.Fatalf("pageSize 100: echoed %d", got.GetPageSize())
		}
		_, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{PageToken: "garbage!"})
		wantCode(t, "bad page token", err, runtime.ErrInvalidParams)
		_, err = e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{HistoryLength: ptr[int32](-1)})
		wantCode(t, "historyLength -1", err, runtime.ErrInvalidParams)
	})
}

func TestListTasksDefaultPageSize(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		for range 55 {
			sendTask(t, e.c, "hello")
		}
		first, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
		if err != nil || len(first.GetTasks()) != 50 || first.GetTotalSize() != 55 || first.GetNextPageToken() == "" {
			t.Fatalf("first page: %d tasks, total %d, token %q, %v", len(first.GetTasks()), first.GetTotalSize(), first.GetNextPageToken(), err)
		}
		second, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{PageToken: first.GetNextPageToken()})
		if err != nil || len(second.GetTasks()) != 5 || second.GetNextPageToken() != "" {
			t.Fatalf("second page: %d tasks, token %q, %v", len(second.GetTasks()), second.GetNextPageToken(), err)
		}
	})
}

// TestListTasksPagingUnderInserts walks the pages while other clients create
// tasks: every task that existed at the start is seen exactly once.
func TestListTasksPagingUnderInserts(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		want := map[string]bool{}
		for range 40 {
			want[sendTask(t, e.c, "hello").GetId()] = true
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						if _, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")}); err != nil {
							t.Errorf("insert: %v", err)
							return
						}
					}
				}
			}()
		}
		seen := map[string]int{}
		token := ""
		for page := 0; ; page++ {
			resp, err := e.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{PageSize: ptr[int32](7), PageToken: token})
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range resp.GetTasks() {
				seen[task.GetId()]++
			}
			if token = resp.GetNextPageToken(); token == "" {
				break
			}
			time.Sleep(2 * time.Millisecond) // let inserts land between pages
		}
		close(stop)
		wg.Wait()
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("task %s listed %d times", id, n)
			}
		}
		for id := range want {
			if seen[id] != 1 {
				t.Fatalf("task %s that existed before paging was missed", id)
			}
		}
	})
}

func TestCancelTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		causes := make(chan error, 1)
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			if err := ev.Working(); err != nil {
				return err
			}
			<-ctx.Done()
			causes <- context.Cause(ctx)
			if err := ev.Complete(nil); err == nil {
				return errors.New("completing a canceled task succeeded")
			}
			return ctx.Err()
		})
		e := newEnv(t, b, exec, nil)
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("work"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		waitState(t, e.c, task.GetId(), a2av1.TaskState_TASK_STATE_WORKING)

		streamed := make(chan []string, 1)
		ready := make(chan struct{})
		go func() {
			var evs []string
			for ev, err := range e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: task.GetId()}) {
				if err != nil {
					t.Errorf("subscriber: %v", err)
					break
				}
				if len(evs) == 0 {
					close(ready)
				}
				evs = append(evs, describe(ev))
			}
			streamed <- evs
		}()
		<-ready
		got, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()})
		if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("CancelTask = %v, %v; want CANCELED", got.GetStatus(), err)
		}
		if cause := <-causes; !errors.Is(cause, server.ErrCanceled) {
			t.Fatalf("execution context cause %v, want ErrCanceled", cause)
		}
		if evs := <-streamed; !slices.Equal(evs, []string{"task WORKING", "status CANCELED"}) {
			t.Fatalf("subscriber saw %q", evs)
		}
		again, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()})
		if err != nil || again.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("canceling again = %v, %v; want the CANCELED task", again.GetStatus(), err)
		}
		_, err = e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: "nope"})
		wantCode(t, "cancel unknown", err, runtime.ErrTaskNotFound)
	})
}

func TestCancelTerminalAndWaitingTasks(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		for _, text := range []string{"hello", "fail", "reject"} {
			task := sendTask(t, e.c, text)
			_, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()})
			wantCode(t, "cancel a "+text+" task", err, runtime.ErrTaskNotCancelable)
		}
		// A task waiting for input has no running execution; it is canceled.
		waiting := sendTask(t, e.c, "input")
		got, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: waiting.GetId()})
		if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("cancel INPUT_REQUIRED = %v, %v", got.GetStatus(), err)
		}
		// echo's slow work is cancelable.
		slow := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("slow 60000"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		if got, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: slow.GetId()}); err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
			t.Fatalf("cancel slow = %v, %v", got.GetStatus(), err)
		}
	})
}

// refusingCanceler is an executor whose Canceler refuses.
type refusingCanceler struct{ server.ExecutorFunc }

func (refusingCanceler) Cancel(context.Context, *a2av1.Task) error {
	return runtime.TaskNotCancelable("").WithMetadata("why", "point of no return")
}

func TestCancelerMayRefuse(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		exec := refusingCanceler{func(ctx context.Context, req *server.Request, ev *server.Events) error {
			if err := ev.Working(); err != nil {
				return err
			}
			<-ctx.Done()
			return ctx.Err()
		}}
		e := newEnv(t, b, exec, nil)
		task := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("x"),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
		_, err := e.c.CancelTask(ctxT(t), &a2av1.CancelTaskRequest{Id: task.GetId()})
		wantCode(t, "refused cancel", err, runtime.ErrTaskNotCancelable)
		if got := waitState(t, e.c, task.GetId(), a2av1.TaskState_TASK_STATE_WORKING); got == nil {
			t.Fatal("task gone")
		}
	})
}

func TestShutdownStopsExecutions(t *testing.T) {
	b := bindings[0]
	srv, err := server.New(echoCard(), server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}), server.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	c := b.serve(t, srv)()
	task := send(t, c, &a2av1.SendMessageRequest{Message: userMsg("x"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}}).GetTask()
	waitState(t, c, task.GetId(), a2av1.TaskState_TASK_STATE_WORKING)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	got, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: task.GetId()})
	if err != nil || got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED {
		t.Fatalf("after Shutdown the task is %v, %v; want FAILED", got.GetStatus(), err)
	}
	_, err = c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")})
	if err == nil {
		t.Fatal("SendMessage after Shutdown succeeded")
	}
}
