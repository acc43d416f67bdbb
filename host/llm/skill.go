package llm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/server"
)

// Skill is one `llm:` skill of agent.yaml.
type Skill struct {
	// ID is the skill's id (in messages and the structured output's name).
	ID string
	// Instructions are the system prompt.
	Instructions string
	// Temperature, when not nil, is sent as is (0 to 2).
	Temperature *float64
	// MaxTokens, when positive, bounds the tokens of each answer.
	MaxTokens int
	// OutputSchema, when not empty, is the JSON Schema (the subset of typed
	// skills) of the answer: the model is asked for JSON of that schema and
	// the skill answers a data artifact.
	OutputSchema string
	// MemoryBytes bounds the text of the conversation sent to the model
	// (instructions excluded); DefaultMemoryBytes when zero.
	MemoryBytes int
	// Tools are offered to the model besides ask_user.
	Tools []Tool
	// RemoteAgents are other A2A agents whose skills are offered as tools
	// too (RemoteAgent.Tools). Each is discovered on the first turn that
	// needs it and kept; a failed discovery fails that turn, saying which
	// agent could not be reached, and is tried again on the next one.
	RemoteAgents []*RemoteAgent
	// Hooks adjust the request and the result (the project's own file).
	Hooks Hooks
}

// Hooks let a project adjust what a skill sends and answers.
type Hooks struct {
	// Request, when set, may change the parameters of every model request
	// (model, messages, tools, sampling) before it is sent.
	Request func(ctx context.Context, req *server.Request, params *openai.ChatCompletionNewParams) error
	// Result, when set, sees the finished answer before the task completes;
	// it may replace Data (typed skills, before it is validated and sent)
	// and set Message, the completed status's message. An error fails the
	// task.
	Result func(ctx context.Context, req *server.Request, res *Result) error
}

// Result is a finished answer, as Hooks.Result sees it.
type Result struct {
	// Text is the model's answer; for a text skill it has already been
	// streamed as the artifact.
	Text string
	// Data is the decoded answer of a skill with an output schema.
	Data any
	// Message, when set, becomes the message of the COMPLETED status.
	Message *a2av1.Message
}

// maxRounds bounds the model requests of one turn (tool calls and answers),
// so that a model calling tools forever fails the task instead.
const maxRounds = 10

// Skill returns the Run function of a host.Skill that answers with the
// model. It panics when s.OutputSchema is not a schema of the subset (the
// generated code holds a checked one).
func (p *Provider) Skill(s Skill) func(ctx context.Context, req *server.Request, events *server.Events) error {
	var out *dataschema.Schema
	if s.OutputSchema != "" {
		var err error
		if out, err = dataschema.Parse([]byte(s.OutputSchema)); err != nil {
			panic(fmt.Sprintf("llm: skill %q: output schema: %v", s.ID, err))
		}
	}
	for _, t := range s.Tools {
		if t.Name == AskUserTool {
			panic(fmt.Sprintf("llm: skill %q: a tool may not be called %s, the built-in one", s.ID, AskUserTool))
		}
	}
	remote := &remoteTools{agents: s.RemoteAgents}
	return func(ctx context.Context, req *server.Request, events *server.Events) error {
		client, err := p.chat()
		if err != nil {
			return fail(events, err.Error())
		}
		offered, err := remote.with(ctx, s.Tools)
		if err != nil {
			return fail(events, fmt.Sprintf("skill %s: %v", s.ID, err))
		}
		tools := map[string]Tool{}
		for _, t := range offered {
			tools[t.Name] = t
		}
		// The task exists, WORKING, before the model is asked: clients see
		// progress and can cancel while it thinks.
		if err := events.Working(); err != nil {
			return err
		}
		t := &turn{p: p, s: &s, out: out, offered: offered, tools: tools, client: client, req: req, events: events}
		return t.run(ctx)
	}
}

// fail ends the task FAILED with msg.
func fail(events *server.Events, msg string) error {
	return events.Fail(server.AgentMessage(msg))
}

// asJSON is v as JSON text (for data parts and tool results).
func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
