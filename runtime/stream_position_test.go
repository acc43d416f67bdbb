package runtime_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestStreamPosition: the task and generation of each kind of stream event,
// read twice (the second time with the plan of its type laid out), and the
// same of its copy as a dynamicpb message (read through protoreflect).
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
		{"bare status update", &a2av1.TaskStatusUpdateEvent{TaskId: "t5", Generation: 7}, "t5", 7, true},
		{"no generation (1.0)", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1"}}}, "", 0, false},
		{"negative generation", &a2av1.Task{Id: "t6", Generation: -1}, "", 0, false},
		{"message", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Message{Message: &a2av1.Message{MessageId: "m", TaskId: "t1"}}}, "", 0, false},
		{"a oneof holding a string", &a2av1.Part{Content: &a2av1.Part_Text{Text: "x"}}, "", 0, false},
		{"empty", &a2av1.StreamResponse{}, "", 0, false},
		{"a payload without its message", &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{}}, "", 0, false},
		{"nil event", (*a2av1.StreamResponse)(nil), "", 0, false},
		{"nil", nil, "", 0, false},
	} {
		for range 2 {
			id, gen, ok := runtime.StreamPosition(tc.m)
			if id != tc.id || gen != tc.gen || ok != tc.wantOK {
				t.Errorf("%s: streamPosition = %q, %d, %v; want %q, %d, %v", tc.name, id, gen, ok, tc.id, tc.gen, tc.wantOK)
			}
		}
		if tc.m == nil || !tc.m.ProtoReflect().IsValid() {
			continue
		}
		dyn := dynamicpb.NewMessage(tc.m.ProtoReflect().Descriptor())
		proto.Merge(dyn, tc.m)
		if id, gen, ok := runtime.StreamPosition(dyn); id != tc.id || gen != tc.gen || ok != tc.wantOK {
			t.Errorf("%s as dynamicpb: streamPosition = %q, %d, %v; want %q, %d, %v", tc.name, id, gen, ok, tc.id, tc.gen, tc.wantOK)
		}
	}
}
