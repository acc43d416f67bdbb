package runtime_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestStreamPosition: the task and generation of each kind of stream event,
// read twice (the second time from the cache of each type's fields).
func TestStreamPosition(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      proto.Message
		id     string
		gen    int64
		wantOK bool
	}{
		{"status update", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1", Generation: 3}}}, "t1", 3, true},
		{"artifact update", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t2", Generation: 5}}}, "t2", 5, true},
		{"task", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t3", Generation: 1}}}, "t3", 1, true},
		{"bare task", &a2av1.Task{Id: "t4", Generation: 2}, "t4", 2, true},
		{"no generation (1.0)", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1"}}}, "", 0, false},
		{"message", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Message{Message: &a2av1.Message{MessageId: "m"}}}, "", 0, false},
		{"empty", &a2av1.StreamResponse{}, "", 0, false},
		{"nil", nil, "", 0, false},
	} {
		for range 2 {
			id, gen, ok := runtime.StreamPosition(tc.m)
			if id != tc.id || gen != tc.gen || ok != tc.wantOK {
				t.Errorf("%s: streamPosition = %q, %d, %v; want %q, %d, %v", tc.name, id, gen, ok, tc.id, tc.gen, tc.wantOK)
			}
		}
	}
}
