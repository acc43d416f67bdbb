package llm_test

import (
	"context"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/host/llm"
	"github.com/a2agen/a2agen/host/llm/llmtest"
	"google.golang.org/protobuf/proto"
)

// reachable is a's card with one JSON-RPC interface at the address it
// really listens on.
func reachable(a *hosttest.Agent) *a2av1.AgentCard {
	c := proto.Clone(a.Card()).(*a2av1.AgentCard)
	c.SupportedInterfaces = []*a2av1.AgentInterface{{Url: "http://" + a.Addr(bindings[0]).String() + "/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}}
	return c
}

// TestRemoteAgentAsTool: a planner whose model calls the specialist's skill
// as a tool runs a real A2A call to the specialist (itself model-backed),
// gives its answer back to the model, and completes; a specialist asking
// for input makes the planner's task INPUT_REQUIRED with the question.
func TestRemoteAgentAsTool(t *testing.T) {
	specialistModel := llmtest.Start(t,
		llmtest.Step{Tokens: []string{"Pack ", "a coat."}},
		llmtest.Step{Calls: []llmtest.Call{{Name: "ask_user", Arguments: `{"question":"For how many days?"}`}}})
	specialist := start(t, specialistModel, llm.Skill{Instructions: "You know packing."})

	tools, err := llm.RemoteAgent{Card: reachable(specialist)}.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "chat" || !strings.Contains(tools[0].Description, "talks") {
		t.Fatalf("tools %+v, want one for the specialist's skill chat", tools)
	}
	plannerModel := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "chat", Arguments: `{"message":"What to pack for Oslo?"}`}}},
		llmtest.Step{Tokens: []string{"The specialist says: pack a coat."}},
		llmtest.Step{Calls: []llmtest.Call{{Name: "chat", Arguments: `{"message":"And for Kyoto?"}`}}})
	t.Setenv("LLMTEST_KEY", "sk-test")
	p := &llm.Provider{BaseURL: plannerModel.URL, Model: "scripted", APIKeyEnv: "LLMTEST_KEY"}
	planner := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Skills: []host.Skill{{ID: "chat", Run: p.Skill(llm.Skill{ID: "chat", Tools: tools})}}})

	resp := send(t, planner, hosttest.Message("Plan my Oslo trip", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("planner %s: %s", resp.State(), resp.Text())
	}
	msgs := plannerModel.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || last.Text() != "Pack a coat." {
		t.Errorf("the planner's model got %+v, want the specialist's answer as the tool result", last)
	}
	if got := specialistModel.Requests()[0].Messages; got[len(got)-1].Text() != "What to pack for Oslo?" {
		t.Errorf("the specialist's model was asked %q", got[len(got)-1].Text())
	}

	resp = send(t, planner, hosttest.Message("Now Kyoto", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || !strings.Contains(resp.GetTask().GetStatus().GetMessage().Text(), "For how many days?") {
		t.Errorf("planner %s %q, want INPUT_REQUIRED with the specialist's question", resp.State(), resp.GetTask().GetStatus().GetMessage().Text())
	}
}
