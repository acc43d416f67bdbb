package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestSkillAnswersAreHeldToOutputModes: a part of what a skill answers whose
// media type its outputModes do not list is refused by the events method
// (nothing is stored or sent) and fails the task, or the call when no task
// exists yet, with InvalidAgentResponse naming the part, its media type and
// the declared modes — even when the skill ignores the refusal.
func TestSkillAnswersAreHeldToOutputModes(t *testing.T) {
	card, err := runtime.MarshalJSON(&a2av1.AgentCard{
		Name: "modes", Description: "d", Version: "1",
		SupportedInterfaces: []*a2av1.AgentInterface{{Url: "http://127.0.0.1:8080/", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"}},
		Capabilities:        &a2av1.AgentCapabilities{},
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{
			{Id: "data", Name: "Data", Description: "answers data", Tags: []string{"t"}, OutputModes: []string{"application/json"}},
			{Id: "text", Name: "Text", Description: "answers text", Tags: []string{"t"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	refusals := make(chan error, 10)
	dataSkill := func(_ context.Context, req *server.Request, ev *server.Events) error {
		switch req.Text() {
		case "text artifact": // the refusal ignored: the task fails all the same
			if err := ev.Working(); err != nil {
				return err
			}
			refusals <- ev.Artifact(server.TextArtifact("summary", "it is sunny"))
			return nil
		case "image reply": // the first event: no task, the caller gets the error
			err := ev.Reply(&a2av1.Message{Parts: []*a2av1.Part{a2av1.NewFilePart("", "image/png", []byte("png"))}})
			refusals <- err
			return err
		case "text status":
			if err := ev.Working(); err != nil {
				return err
			}
			err := ev.Complete(server.AgentMessage("done"))
			refusals <- err
			return err
		}
		part, err := a2av1.NewDataPart(map[string]any{"summary": "sunny"})
		if err != nil {
			return err
		}
		if err := ev.Artifact(&a2av1.Artifact{Parts: []*a2av1.Part{part}}); err != nil {
			return err
		}
		return ev.Complete(nil)
	}
	textSkill := func(_ context.Context, _ *server.Request, ev *server.Events) error {
		a := server.TextArtifact("", "hi")
		a.Parts[0].MediaType = "text/plain; charset=utf-8"
		if err := ev.Artifact(a); err != nil {
			return err
		}
		return ev.Complete(nil)
	}
	b := host.Binding{Protocol: runtime.BindingJSONRPC, Address: "127.0.0.1:0", Path: "/"}
	a := hosttest.Start(t, host.Config{CardJSON: card, Bindings: []host.Binding{b},
		Skills: []host.Skill{{ID: "data", Run: dataSkill}, {ID: "text", Run: textSkill}}})
	ctx := context.Background()
	c := a.Client(t, b, a.Card(), "")

	checkRefusal := func(t *testing.T, want string) {
		t.Helper()
		err := <-refusals
		if !errors.Is(err, runtime.ErrInvalidAgentResponse) || !strings.Contains(err.Error(), want) {
			t.Errorf("the events method returned %v, want InvalidAgentResponse containing %q", err, want)
		}
	}
	t.Run("text artifact from a data skill", func(t *testing.T) {
		resp, err := c.SendMessage(ctx, message("text artifact", "data"))
		want := `skill "data" answered artifact "summary" parts[0] as text/plain, which is not among its outputModes (application/json)`
		checkRefusal(t, want)
		if err != nil {
			t.Fatal(err)
		}
		task := resp.GetTask()
		if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_FAILED || !strings.Contains(server.MessageText(task.GetStatus().GetMessage()), want) {
			t.Errorf("task %s: %q, want FAILED saying %q", task.GetStatus().GetState(), server.MessageText(task.GetStatus().GetMessage()), want)
		}
		if len(task.GetArtifacts()) != 0 {
			t.Errorf("the refused artifact was stored: %v", task.GetArtifacts())
		}
	})
	t.Run("image reply from a data skill", func(t *testing.T) {
		_, err := c.SendMessage(ctx, message("image reply", "data"))
		want := `skill "data" answered reply parts[0] as image/png, which is not among its outputModes (application/json): send one of those, or add image/png to the skill's outputModes in agent.yaml`
		checkRefusal(t, want)
		if !errors.Is(err, runtime.ErrInvalidAgentResponse) || !strings.Contains(err.Error(), want) {
			t.Errorf("the call: %v, want InvalidAgentResponse containing %q", err, want)
		}
	})
	t.Run("text status message from a data skill", func(t *testing.T) {
		resp, err := c.SendMessage(ctx, message("text status", "data"))
		checkRefusal(t, `skill "data" answered status message parts[0] as text/plain`)
		if err != nil {
			t.Fatal(err)
		}
		if s := resp.GetTask().GetStatus().GetState(); s != a2av1.TaskState_TASK_STATE_FAILED {
			t.Errorf("task %s, want FAILED", s)
		}
	})
	t.Run("declared modes pass", func(t *testing.T) {
		for _, skill := range []string{"data", "text"} {
			resp, err := c.SendMessage(ctx, message("go", skill))
			if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(resp.GetTask().GetArtifacts()) != 1 {
				t.Errorf("skill %s: %v, %v; want a completed task with its artifact", skill, resp, err)
			}
		}
	})
}
