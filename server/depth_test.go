package server_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// nestedLists is a Value of n arrays nested in one another around a string.
func nestedLists(n int) *structpb.Value {
	v := structpb.NewStringValue("bottom")
	for range n {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	return v
}

// deepMessage is a user message whose data part nests n arrays. In a
// SendMessageRequest the data sits under four levels (request, message,
// parts, part), so n = MaxJSONDepth-4 is the deepest request accepted.
func deepMessage(n int) *a2av1.Message {
	m := userMsg("hello")
	m.Parts = append(m.Parts, &a2av1.Part{Content: &a2av1.Part_Data{Data: nestedLists(n)}})
	return m
}

// TestNestingDepthLimitEveryBinding checks that every binding refuses a
// request nested deeper than runtime.MaxJSONDepth with InvalidRequest naming
// the limit, accepts one at the limit, and that a task stored from the
// deepest accepted request is served on every binding (before the limit, a
// task stored over JSON with thousands of nested arrays could no longer be
// read over gRPC, and deep input held megabytes of goroutine stack).
func TestNestingDepthLimitEveryBinding(t *testing.T) {
	const deepest = runtime.MaxJSONDepth - 4
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		for _, n := range []int{deepest + 1, 500, 6000} {
			_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: deepMessage(n)})
			wantCode(t, "SendMessage nested too deep", err, runtime.ErrInvalidRequest)
			var re *runtime.Error
			if !errors.As(err, &re) || re.Metadata()["limit"] != "MaxJSONDepth" {
				t.Fatalf("%d levels: error %v does not name MaxJSONDepth in its metadata (%v)", n, err, re.Metadata())
			}
		}
		resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: deepMessage(deepest)})
		if err != nil {
			t.Fatalf("SendMessage at the limit (%d levels of data): %v", deepest, err)
		}
		id := resp.GetTask().GetId()
		if id == "" {
			t.Fatalf("SendMessage answered %v, want a task", resp)
		}
		// The stored task, history included, is served on every binding.
		for _, other := range bindings {
			c := other.serve(t, e.srv)()
			task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: id, HistoryLength: ptr[int32](10)})
			if err != nil {
				t.Fatalf("GetTask over %s: %v", other.name, err)
			}
			if len(task.GetHistory()) == 0 {
				t.Fatalf("GetTask over %s: no history", other.name)
			}
			list, err := c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{ContextId: task.GetContextId(), HistoryLength: ptr[int32](10)})
			if err != nil {
				t.Fatalf("ListTasks over %s: %v", other.name, err)
			}
			if len(list.GetTasks()) != 1 {
				t.Fatalf("ListTasks over %s: %d tasks, want 1", other.name, len(list.GetTasks()))
			}
		}
	})
}
