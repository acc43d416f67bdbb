package main

import (
	"bytes"
	"iter"
	"regexp"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestStreamTextForm: a followed stream prints one "Label: value" line per
// field and blocks closed by a blank line, never a control character, and
// ends by restating the task, its context and its state.
func TestStreamTextForm(t *testing.T) {
	var out bytes.Buffer
	a := &app{env: environment{stdout: &out}, output: "text"}
	events := []*a2av1.StreamResponse{
		{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t1", ContextId: "c1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_SUBMITTED}}}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1", ContextId: "c1",
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Message: a2av1.NewTextMessage("thinking")}}}},
		{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t1", ContextId: "c1",
			Artifact: &a2av1.Artifact{ArtifactId: "a1", Parts: []*a2av1.Part{a2av1.NewTextPart("one\ntwo")}}}}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t1", ContextId: "c1",
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}}},
	}
	var stream iter.Seq2[*a2av1.StreamResponse, error] = func(yield func(*a2av1.StreamResponse, error) bool) {
		for _, ev := range events {
			if !yield(ev, nil) {
				return
			}
		}
	}
	end, err := a.followStream(stream)
	if err != nil || end.taskID != "t1" || end.contextID != "c1" || end.state != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("followStream: %+v, %v", end, err)
	}
	got := out.String()
	if strings.ContainsAny(got, "\r\033") {
		t.Errorf("control characters in %q", got)
	}
	if !strings.HasSuffix(got, "Task ID: t1\nContext ID: c1\nState: COMPLETED\n") {
		t.Errorf("the stream does not end restating the task:\n%s", got)
	}
	checkTextFloor(t, got)
}

var labelLine = regexp.MustCompile(`^[A-Z][A-Za-z0-9 ()\-]*:( .*)?$`)

// checkTextFloor checks SPEC.md §11.2's text form: outside blocks every
// line is "Label: value"; a block is a "Label:" line, its content and a
// blank line.
func checkTextFloor(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" { // between groups of fields (the tasks of a list)
			continue
		}
		if !labelLine.MatchString(l) {
			t.Errorf("line %d is no Label: value field: %q\n%s", i+1, l, out)
			return
		}
		if strings.HasSuffix(l, ":") { // a block: skip to its closing blank line
			for i++; i < len(lines) && lines[i] != ""; i++ {
			}
		}
	}
}
