package server_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// TestCheckPartsRefusesBeforeStoring: with CheckParts, every part of a
// status message, an artifact (chunk) and a reply goes through the check
// first, named by where it is; a refused event is neither stored nor sent.
func TestCheckPartsRefusesBeforeStoring(t *testing.T) {
	refuse := errors.New("refused")
	var seen []string
	exec := server.ExecutorFunc(func(_ context.Context, req *server.Request, ev *server.Events) error {
		ev.CheckParts(func(where string, p *a2av1.Part) error {
			seen = append(seen, where)
			if p.GetText() == "bad" {
				return refuse
			}
			return nil
		})
		if req.Text() == "reply" {
			if err := ev.Reply(server.AgentMessage("bad")); !errors.Is(err, refuse) {
				t.Errorf("Reply of a refused part: %v", err)
			}
			return ev.Reply(server.AgentMessage("good"))
		}
		if err := ev.Status(a2av1.TaskState_TASK_STATE_WORKING, server.AgentMessage("bad")); !errors.Is(err, refuse) {
			t.Errorf("Status with a refused part: %v", err)
		}
		bad := server.TextArtifact("a1", "good")
		bad.Parts = append(bad.Parts, server.TextPart("bad"))
		if err := ev.Artifact(bad); !errors.Is(err, refuse) {
			t.Errorf("Artifact with a refused part: %v", err)
		}
		if err := ev.ArtifactChunk(server.TextArtifact("a2", "good"), false, true); err != nil {
			return err
		}
		return ev.Complete(server.AgentMessage("good"))
	})
	e := newEnv(t, bindings[0], exec, nil)
	task := sendTask(t, e.c, "task")
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(task.GetArtifacts()) != 1 || task.GetArtifacts()[0].GetArtifactId() != "a2" {
		t.Errorf("task %s with artifacts %v, want COMPLETED with a2 only", short(task.GetStatus().GetState()), task.GetArtifacts())
	}
	for _, h := range task.GetHistory() {
		if server.MessageText(h) == "bad" {
			t.Errorf("a refused status message reached the history")
		}
	}
	want := []string{"status message parts[0]", `artifact "a1" parts[0]`, `artifact "a1" parts[1]`, `artifact "a2" parts[0]`, "status message parts[0]"}
	if len(seen) != len(want) {
		t.Fatalf("checked %q, want %q", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("check %d named %q, want %q", i, seen[i], want[i])
		}
	}
	seen = nil
	resp := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("reply")})
	if server.MessageText(resp.GetMessage()) != "good" {
		t.Errorf("reply %v, want the good one", resp)
	}
	if len(seen) != 2 || seen[0] != "reply parts[0]" {
		t.Errorf("checked %q, want the two replies' parts", seen)
	}
}
