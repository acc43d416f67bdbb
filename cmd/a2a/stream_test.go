package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestStreamPrinterOnATerminal checks the terminal rendering: a spinner
// while WORKING, erased before the next event, and chunks appended on
// their artifact's line.
func TestStreamPrinterOnATerminal(t *testing.T) {
	var out syncBuffer
	p := newStreamPrinter(&out, true)
	working := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}}
	chunk := func(text string, appendTo, last bool) *a2av1.StreamResponse {
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
			Artifact: &a2av1.Artifact{ArtifactId: "a1", Parts: []*a2av1.Part{a2av1.NewTextPart(text)}}, Append: appendTo, LastChunk: last}}}
	}
	p.event(working)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "working…") {
		if time.Now().After(deadline) {
			t.Fatalf("no spinner while WORKING: %q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.event(chunk("one ", false, false))
	p.event(chunk("two", true, true))
	p.close()
	got := out.String()
	if !strings.Contains(got, "\r\033[Kartifact a1: one two\n") {
		t.Errorf("the spinner was not erased before the artifact, or the chunks were not appended: %q", got)
	}
	if strings.Count(got, "artifact a1") != 1 {
		t.Errorf("appended chunk started a new line: %q", got)
	}
}

// TestStreamPrinterPlain: no terminal, no control characters.
func TestStreamPrinterPlain(t *testing.T) {
	var out bytes.Buffer
	p := newStreamPrinter(&out, false)
	p.event(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Message: a2av1.NewTextMessage("thinking")}}}})
	p.close()
	if out.String() != "WORKING  thinking\n" {
		t.Errorf("plain output %q", out.String())
	}
}
