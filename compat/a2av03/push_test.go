package a2av03_test

import (
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
)

// TestPushPayload: the body of a push notification to a webhook registered
// through v0.3 is the Task in its v0.3 shape (kind "task", lower-case
// state, parts with their kind) as application/json, and reads back as the
// same task; an event that is not a task is written as the v0.3 object of
// its kind.
func TestPushPayload(t *testing.T) {
	task := &a2av1.Task{Id: "t1", ContextId: "c1",
		Status:    &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a1", Parts: []*a2av1.Part{a2av1.NewTextPart("forty-two")}}}}
	body, ct, err := a2av03.PushPayload(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: task}})
	if err != nil || ct != "application/json" {
		t.Fatalf("PushPayload = %s, %q, %v; want a body as application/json", body, ct, err)
	}
	var shape struct {
		Kind   string `json:"kind"`
		ID     string `json:"id"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
		Artifacts []struct {
			Parts []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal(body, &shape); err != nil || shape.Kind != "task" || shape.ID != "t1" || shape.Status.State != "completed" ||
		len(shape.Artifacts) != 1 || len(shape.Artifacts[0].Parts) != 1 || shape.Artifacts[0].Parts[0].Kind != "text" {
		t.Fatalf("PushPayload wrote %s (%v); want the v0.3 Task", body, err)
	}
	back, err := a2av03.EventToV1(body, "body")
	if err != nil || !proto.Equal(back.GetTask(), task) {
		t.Fatalf("the v0.3 body reads back as %v, %v; want %v", back, err, task)
	}
	update := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: "t1", ContextId: "c1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}}
	body, _, err = a2av03.PushPayload(update)
	if err != nil || json.Unmarshal(body, &shape) != nil || shape.Kind != "status-update" {
		t.Fatalf("PushPayload of a status update = %s, %v; want the v0.3 status-update", body, err)
	}
	if _, _, err := a2av03.PushPayload(&a2av1.StreamResponse{}); err == nil {
		t.Fatal("PushPayload of an event without payload succeeded")
	}
}
