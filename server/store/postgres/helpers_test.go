package postgres

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/server/store"
)

var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	submitted = a2av1.TaskState_TASK_STATE_SUBMITTED
	working   = a2av1.TaskState_TASK_STATE_WORKING
	inputReq  = a2av1.TaskState_TASK_STATE_INPUT_REQUIRED
	completed = a2av1.TaskState_TASK_STATE_COMPLETED
	failed    = a2av1.TaskState_TASK_STATE_FAILED
)

func testURL(t testing.TB) string { return pgtest.URL(t) }

func testSchema(t testing.TB, url string) string { return pgtest.Schema(t, url) }

// openSchema opens a store on schema (a replica: several may share it).
func openSchema(t testing.TB, url, schema string, opts ...Option) *Store {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(t.Output(), nil))
	s, err := Open(context.Background(), url, append([]Option{WithSchema(schema), WithLogger(logger)}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openTemp opens a store on a fresh schema.
func openTemp(t testing.TB, opts ...Option) *Store {
	t.Helper()
	url := testURL(t)
	return openSchema(t, url, testSchema(t, url), opts...)
}

// newTask is a task snapshot as the server writes them, with a generation
// (a snapshot without one is given its row's when read).
func newTask(id string, state a2av1.TaskState, at time.Duration) *a2av1.Task {
	return &a2av1.Task{Id: id, ContextId: "ctx-" + id, Generation: 1,
		Status: &a2av1.TaskStatus{State: state, Timestamp: timestamppb.New(base.Add(at))}}
}

func statusEvent(t *a2av1.Task) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: t.GetId(), ContextId: t.GetContextId(), Status: t.GetStatus()}}}
}

func create(t testing.TB, s *Store, c store.Creation) store.Record {
	t.Helper()
	rec, _, err := s.CreateTask(context.Background(), c)
	if err != nil {
		t.Fatalf("CreateTask(%s): %v", c.Task.GetId(), err)
	}
	return rec
}

func update(t testing.TB, s *Store, u store.Update) int64 {
	t.Helper()
	v, err := s.UpdateTask(context.Background(), u)
	if err != nil {
		t.Fatalf("UpdateTask(%s, expect %d): %v", u.Task.GetId(), u.Expect, err)
	}
	return v
}

func cfg(task, id string) store.PushConfig {
	return store.PushConfig{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{TaskId: task, Id: id, Url: "https://hook.example/" + id}, ProtocolVersion: "1.0"}
}
