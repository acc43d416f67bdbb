package proctest

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

var msgSeq atomic.Int64

// ContextID is the context of every UserMessage: one random id per test
// binary. Agents that give anonymous callers no tenant-wide list
// (server.WithTaskOwner) list anonymous tasks only by their context, so
// ListAll names it.
var ContextID = "proctest-" + rand.Text()

// UserMessage is a user message with one text part and a fresh id, in
// ContextID.
func UserMessage(text string) *a2av1.Message {
	return &a2av1.Message{
		MessageId: fmt.Sprintf("proctest-%d", msgSeq.Add(1)),
		ContextId: ContextID,
		Role:      a2av1.Role_ROLE_USER,
		Parts:     []*a2av1.Part{server.TextPart(text)},
	}
}

// SendTask sends text as a new message (with cfg, which may be nil) and
// returns the task of the answer.
func SendTask(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, text string, cfg *a2av1.SendMessageConfiguration) *a2av1.Task {
	t.Helper()
	resp, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: UserMessage(text), Configuration: cfg})
	if err != nil {
		t.Fatalf("SendMessage(%q): %v", text, err)
	}
	if resp.GetTask() == nil {
		t.Fatalf("SendMessage(%q) answered %v, want a task", text, resp)
	}
	return resp.GetTask()
}

// WantState fails the test unless task is in state want, and returns it.
func WantState(t testing.TB, task *a2av1.Task, want a2av1.TaskState) *a2av1.Task {
	t.Helper()
	if task.GetStatus().GetState() != want {
		t.Fatalf("task %s is %v, want %v", task.GetId(), task.GetStatus(), want)
	}
	return task
}

// IsFinal reports whether state is terminal: COMPLETED, FAILED, CANCELED or
// REJECTED.
func IsFinal(state a2av1.TaskState) bool { return state.Terminal() }

// WaitTask polls GetTask until done(task) holds, at most d, and returns the
// task.
func WaitTask(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, id string, d time.Duration, what string, done func(*a2av1.Task) bool) *a2av1.Task {
	t.Helper()
	var task *a2av1.Task
	var err error
	if !Poll(d, func() bool {
		task, err = c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
		return err == nil && done(task)
	}) {
		t.Fatalf("task %s not %s within %v: status %v, error %v", id, what, d, task.GetStatus(), err)
	}
	return task
}

// SameOnEveryBinding gets the task over every binding of Bindings, fails
// the test unless the answers are equal, and returns the task.
func SameOnEveryBinding(ctx context.Context, t testing.TB, c map[runtime.Binding]a2av1.A2AServiceClient, id string) *a2av1.Task {
	t.Helper()
	var first *a2av1.Task
	for _, b := range Bindings {
		task, err := c[b].GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
		if err != nil {
			t.Fatalf("%s: GetTask(%s): %v", b, id, err)
		}
		if first == nil {
			first = task
		} else if !proto.Equal(task, first) {
			t.Fatalf("GetTask(%s) over %s = %v\nover %s: %v", id, b, task, Bindings[0], first)
		}
	}
	return first
}

// ListAll lists every task of ContextID in one page of at most 100, with
// artifacts.
func ListAll(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient) *a2av1.ListTasksResponse {
	t.Helper()
	l, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{ContextId: ContextID, PageSize: proto.Int32(100), IncludeArtifacts: proto.Bool(true)})
	if err != nil {
		t.Fatalf("ListTasks: %v", err)
	}
	if l.GetNextPageToken() != "" {
		t.Fatalf("ListTasks has more than one page of 100")
	}
	return l
}

// ListConfigs lists the push configs of a task.
func ListConfigs(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, taskID string) *a2av1.ListTaskPushNotificationConfigsResponse {
	t.Helper()
	l, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: taskID})
	if err != nil {
		t.Fatalf("ListTaskPushNotificationConfigs(%s): %v", taskID, err)
	}
	return l
}

// TaskIDs are the ids of the listed tasks, sorted.
func TaskIDs(l *a2av1.ListTasksResponse) []string {
	var ids []string
	for _, task := range l.GetTasks() {
		ids = append(ids, task.GetId())
	}
	slices.Sort(ids)
	return ids
}

// WithStatusOf is a copy of task with the status of from.
func WithStatusOf(task, from *a2av1.Task) *a2av1.Task {
	c := proto.Clone(task).(*a2av1.Task)
	c.Status = from.GetStatus()
	return c
}

// StateOf is the task state an event reports: of its task or status
// update; UNSPECIFIED for artifacts, messages and nil.
func StateOf(ev *a2av1.StreamResponse) a2av1.TaskState {
	switch {
	case ev.GetTask() != nil:
		return ev.GetTask().GetStatus().GetState()
	case ev.GetStatusUpdate() != nil:
		return ev.GetStatusUpdate().GetStatus().GetState()
	}
	return a2av1.TaskState_TASK_STATE_UNSPECIFIED
}

// ArtifactText is the text of every artifact of task, concatenated.
func ArtifactText(task *a2av1.Task) string {
	var parts []*a2av1.Part
	for _, a := range task.GetArtifacts() {
		parts = append(parts, a.GetParts()...)
	}
	return server.MessageText(&a2av1.Message{Parts: parts})
}
