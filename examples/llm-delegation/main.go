// Command llm-delegation runs two model-backed agents on loopback: a
// planner whose model may call the specialist's skill as a tool
// (host/llm.RemoteAgent), and a packing specialist. It then asks the planner
// one question over A2A (streaming) and prints what arrives: the planner's
// progress (the specialist's answer relayed into its status) and its
// streamed answer.
//
// By default both agents talk to a scripted OpenAI-compatible server
// (host/llm/llmtest) on loopback, so the demo needs no model and no
// network. Give -llm-base-url and -llm-model to use a real one:
//
//	go run ./examples/llm-delegation
//	go run ./examples/llm-delegation -llm-base-url http://localhost:11434/v1 -llm-model llama3.2
//	OPENAI_API_KEY=sk-... go run ./examples/llm-delegation -llm-base-url https://api.openai.com/v1 -llm-model gpt-4o-mini
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/llm"
	"github.com/a2agen/a2agen/host/llm/llmtest"
	"github.com/a2agen/a2agen/server"
)

func main() {
	baseURL := flag.String("llm-base-url", "", "OpenAI-compatible endpoint of both agents' model (empty: a scripted model on loopback)")
	model := flag.String("llm-model", "", "model name (with -llm-base-url)")
	question := flag.String("question", "I am going to Oslo for 3 days in January. What should I pack?", "what to ask the planner")
	flag.Parse()
	if err := run(context.Background(), *baseURL, *model, *question, os.Stdout); err != nil {
		log.Fatalf("llm-delegation: %v", err)
	}
}

const cardTemplate = `{"name": %q, "description": %q, "version": "1.0.0",
  "supportedInterfaces": [{"url": "http://127.0.0.1:1/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true},
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "skills": [{"id": %q, "name": %q, "description": %q, "tags": ["demo"]}]}`

func run(ctx context.Context, baseURL, model, question string, out io.Writer) error {
	if baseURL == "" {
		scripted, err := llmtest.Listen("127.0.0.1:0", script...)
		if err != nil {
			return err
		}
		defer scripted.Close()
		baseURL, model = scripted.URL, "scripted"
		fmt.Fprintf(out, "model: scripted, at %s\n", baseURL)
	}
	provider := func() *llm.Provider { return &llm.Provider{BaseURL: baseURL, Model: model} }

	specialist, specialistCard, err := start(fmt.Sprintf(cardTemplate, "Packing specialist", "Knows what to pack for any climate.", "packing", "Packing advice", "Says what to pack for a trip."),
		provider().Skill(llm.Skill{ID: "packing", Instructions: "You are a packing specialist. Answer with a short packing list."}), "packing")
	if err != nil {
		return err
	}
	defer specialist.Shutdown(context.Background())
	tools, err := llm.RemoteAgent{Card: specialistCard}.Tools(ctx)
	if err != nil {
		return err
	}
	planner, plannerCard, err := start(fmt.Sprintf(cardTemplate, "Trip planner", "Plans trips, asking specialists.", "plan", "Plan a trip", "Plans a trip."),
		provider().Skill(llm.Skill{ID: "plan", Instructions: "You plan trips. Ask the packing specialist what to pack, then answer briefly.", Tools: tools}), "plan")
	if err != nil {
		return err
	}
	defer planner.Shutdown(context.Background())
	client, err := agentcard.NewClient(plannerCard)
	if err != nil {
		return err
	}
	defer client.Close()

	fmt.Fprintf(out, "user → planner: %s\n", question)
	msg := a2av1.NewTextMessage(question)
	msg.Metadata = &structpb.Struct{Fields: map[string]*structpb.Value{host.SkillMetadataKey: structpb.NewStringValue("plan")}}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	state := a2av1.TaskState_TASK_STATE_UNSPECIFIED
	for ev, err := range client.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: msg}) {
		if err != nil {
			return err
		}
		if st := printEvent(out, ev); st != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
			state = st
		}
	}
	if state != a2av1.TaskState_TASK_STATE_COMPLETED {
		return fmt.Errorf("the planner's task ended %s", state.Short())
	}
	return nil
}

// printEvent prints a status update as [state] and its message, an artifact
// chunk as its text; it returns the state a status update reports.
func printEvent(out io.Writer, ev *a2av1.StreamResponse) a2av1.TaskState {
	if a := ev.GetArtifactUpdate(); a != nil {
		fmt.Fprint(out, a.GetArtifact().Text())
		if a.GetLastChunk() {
			fmt.Fprintln(out)
		}
	}
	st := ev.GetStatusUpdate()
	if st == nil {
		return a2av1.TaskState_TASK_STATE_UNSPECIFIED
	}
	state := st.GetStatus().GetState()
	if m := st.GetStatus().GetMessage(); m != nil {
		fmt.Fprintf(out, "[%s] %s\n", state.Short(), m.Text())
	} else {
		fmt.Fprintf(out, "[%s]\n", state.Short())
	}
	return state
}

// script is what the scripted model answers: the planner calls the
// specialist, the specialist answers, the planner sums up.
var script = []llmtest.Step{
	{Calls: []llmtest.Call{{Name: "packing", Arguments: `{"message":"What to pack for 3 days in Oslo in January?"}`}}},
	{Tokens: []string{"A warm coat, ", "gloves, ", "a hat ", "and boots."}},
	{Tokens: []string{"Oslo in January is cold: ", "the specialist says ", "a warm coat, gloves, a hat and boots. ", "Enjoy the trip!"}},
}

// start runs an agent of one skill on a free loopback port and returns it
// with its card as a client reaches it.
func start(cardJSON string, run func(context.Context, *server.Request, *server.Events) error, skill string) (*host.Agent, *a2av1.AgentCard, error) {
	a, err := host.Start(host.Config{
		CardJSON: []byte(cardJSON),
		Bindings: []host.Binding{{Protocol: "JSONRPC", Address: "127.0.0.1:1", Path: "/a2a"}},
		Skills:   []host.Skill{{ID: skill, Run: run}},
		Listen:   func(network, _ string) (net.Listener, error) { return net.Listen(network, "127.0.0.1:0") },
	})
	if err != nil {
		return nil, nil, err
	}
	card, err := reachable(a)
	if err != nil {
		a.Shutdown(context.Background())
		return nil, nil, err
	}
	return a, card, nil
}

// reachable is a's card with its interface at the address it listens on.
func reachable(a *host.Agent) (*a2av1.AgentCard, error) {
	c := a.Card()
	addr := a.Addr(host.Binding{Protocol: "JSONRPC", Address: "127.0.0.1:1", Path: "/a2a"})
	if addr == nil {
		return nil, fmt.Errorf("agent %q is not listening", c.GetName())
	}
	out := &a2av1.AgentCard{Name: c.GetName(), Description: c.GetDescription(), Version: c.GetVersion(), Capabilities: c.GetCapabilities(),
		DefaultInputModes: c.GetDefaultInputModes(), DefaultOutputModes: c.GetDefaultOutputModes(), Skills: c.GetSkills(),
		SupportedInterfaces: []*a2av1.AgentInterface{{Url: "http://" + addr.String() + "/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}}}
	return out, nil
}
