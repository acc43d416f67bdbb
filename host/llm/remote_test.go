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
	"github.com/a2agen/a2agen/server"
	"google.golang.org/protobuf/encoding/protojson"
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

// typedCard is an agent whose skill convert takes data of the schema its
// skill-schema extension gives, and whose skill chat takes text.
const typedCard = `{
  "name": "Converter", "description": "converts", "version": "1.0.0",
  "supportedInterfaces": [{"url": "http://127.0.0.1:1/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true, "extensions": [{"uri": "https://github.com/a2agen/a2agen/blob/main/docs/extensions/skill-schemas-v1.md",
    "params": {"skills": {"convert": {"input": {"type": "object", "properties": {"amount": {"type": "number"}, "currency": {"type": "string"}}, "required": ["amount"]}}}}}]},
  "defaultInputModes": ["text/plain", "application/json"], "defaultOutputModes": ["text/plain"],
  "skills": [
    {"id": "convert", "name": "Convert", "description": "converts an amount", "tags": ["money"]},
    {"id": "chat", "name": "Chat", "description": "talks", "tags": ["chat"]}
  ]
}`

// TestRemoteToolInputSchema: a remote skill whose input schema the card's
// skill-schema extension gives becomes a tool taking that schema, and a
// call sends the model's arguments as the message's data part; Skills
// picks the skills offered, and names one the card lacks in its error.
func TestRemoteToolInputSchema(t *testing.T) {
	got := make(chan string, 1)
	converter := hosttest.Start(t, host.Config{CardJSON: []byte(typedCard), Bindings: bindings[:1], Skills: []host.Skill{
		{ID: "convert", Run: func(ctx context.Context, req *server.Request, events *server.Events) error {
			for _, p := range req.Message.GetParts() {
				if d := p.GetData(); d != nil {
					b, _ := protojson.Marshal(d)
					got <- string(b)
				}
			}
			return events.Complete(server.AgentMessage("3 EUR is 3.5 USD"))
		}},
		{ID: "chat", Run: func(ctx context.Context, req *server.Request, events *server.Events) error {
			return events.Complete(nil)
		}},
	}})
	c := reachable(converter)

	if _, err := (llm.RemoteAgent{Card: c, Skills: []string{"refund"}}).Tools(context.Background()); err == nil || !strings.Contains(err.Error(), `"convert", "chat"`) {
		t.Errorf("a missing skill: %v, want an error listing the card's skills", err)
	}
	tools, err := llm.RemoteAgent{Card: c, Skills: []string{"convert"}}.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "convert" {
		t.Fatalf("tools %+v, want convert only", tools)
	}
	if props, _ := tools[0].Parameters["properties"].(map[string]any); props["amount"] == nil {
		t.Errorf("parameters %v, want the card's input schema", tools[0].Parameters)
	}
	model := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "convert", Arguments: `{"amount":3,"currency":"EUR"}`}}},
		llmtest.Step{Tokens: []string{"That is 3.5 USD."}})
	a := start(t, model, llm.Skill{Tools: tools})
	if resp := send(t, a, hosttest.Message("3 EUR in USD?", "chat")); resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("task %s: %s", resp.State(), resp.Text())
	}
	if data := <-got; !strings.Contains(data, `"amount":3`) || !strings.Contains(data, `"currency":"EUR"`) {
		t.Errorf("the converter got the data %s, want the model's arguments", data)
	}
	if params := model.Requests()[0].Tools[1].Function.Parameters; params["required"] == nil {
		t.Errorf("the model was offered %v, want the input schema", params)
	}
}

// TestRemoteAgentsDiscoveredOnFirstTurn: Skill.RemoteAgents are
// discovered when a turn needs them: an unreachable agent fails the turn
// naming it, and the next turn, the agent reachable, offers its skills.
func TestRemoteAgentsDiscoveredOnFirstTurn(t *testing.T) {
	specialist := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings[:1], Skills: []host.Skill{
		{ID: "chat", Run: func(ctx context.Context, req *server.Request, events *server.Events) error {
			return events.Complete(nil)
		}},
	}})
	remote := &llm.RemoteAgent{URL: "http://127.0.0.1:1"} // nothing listens on port 1
	model := llmtest.Start(t, llmtest.Step{Tokens: []string{"ok"}})
	t.Setenv("LLMTEST_KEY", "sk-test")
	p := &llm.Provider{BaseURL: model.URL, Model: "scripted", APIKeyEnv: "LLMTEST_KEY"}
	a := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Skills: []host.Skill{{ID: "chat", Run: p.Skill(llm.Skill{ID: "plan", RemoteAgents: []*llm.RemoteAgent{remote}})}}})

	resp := send(t, a, hosttest.Message("hi", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_FAILED || !strings.Contains(resp.GetTask().GetStatus().GetMessage().Text(), "127.0.0.1:1") {
		t.Fatalf("unreachable agent: %s %q, want FAILED naming it", resp.State(), resp.GetTask().GetStatus().GetMessage().Text())
	}
	remote.Card = reachable(specialist)
	if resp := send(t, a, hosttest.Message("hi", "chat")); resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("second turn %s: %s", resp.State(), resp.Text())
	}
	if names := model.Requests()[0].ToolNames(); strings.Join(names, ",") != "ask_user,chat" {
		t.Errorf("tools %v, want ask_user and the remote chat", names)
	}
}
