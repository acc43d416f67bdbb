package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// AskUserTool is the built-in tool every skill offers: the model calls it
// with a question when it needs the user's answer, and the task becomes
// INPUT_REQUIRED with that question.
const AskUserTool = "ask_user"

// Tool is a function the model may call: a Go function of the project
// (manifest `tools:`) or a remote agent's skill (RemoteTools).
type Tool struct {
	// Name is what the model calls it: letters, digits, '_' and '-'.
	Name string
	// Description tells the model when to call it.
	Description string
	// Parameters is the JSON Schema of its arguments (an object); nil: none.
	Parameters map[string]any
	// Call runs it. Its text goes back to the model; an error goes back as
	// "error: ..." so that the model can recover, except a
	// *NeedsInputError, which ends the turn INPUT_REQUIRED.
	Call func(ctx context.Context, call ToolCall) (string, error)
}

// ToolCall is one call of a Tool by the model.
type ToolCall struct {
	// Arguments are the model's arguments, JSON text of the tool's
	// Parameters.
	Arguments json.RawMessage
	// Request is the message the skill is answering.
	Request *server.Request
	// Events are the task's: a tool may report progress with
	// events.Status(WORKING, message).
	Events *server.Events
}

// NeedsInputError is what a tool returns when the user has to answer
// something first (a remote agent asked): the task becomes INPUT_REQUIRED
// with Message.
type NeedsInputError struct {
	// Message is the question, as the user sees it.
	Message *a2av1.Message
}

func (e *NeedsInputError) Error() string {
	return "input required: " + e.Message.Text()
}

func (e *NeedsInputError) message() *a2av1.Message {
	return &a2av1.Message{Role: a2av1.Role_ROLE_AGENT, Parts: e.Message.GetParts(), Metadata: e.Message.GetMetadata()}
}

func (t Tool) param() openai.ChatCompletionToolUnionParam {
	params := t.Parameters
	if params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(params),
	})
}

func askUserTool() openai.ChatCompletionToolUnionParam {
	return Tool{
		Name:        AskUserTool,
		Description: "Ask the user a question when you need information only they can give; the conversation continues with their answer.",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"question": map[string]any{"type": "string", "description": "The question, as the user will read it."}},
			"required":   []any{"question"},
		},
	}.param()
}

// askUser ends the turn INPUT_REQUIRED with the model's question.
func (t *turn) askUser(c toolCall) error {
	var args struct {
		Question string `json:"question"`
	}
	_ = json.Unmarshal([]byte(c.Arguments), &args)
	q := strings.TrimSpace(args.Question)
	if q == "" {
		q = "Could you tell me more?"
	}
	if err := t.text.finish(t.events); err != nil {
		return err
	}
	return t.events.InputRequired(server.AgentMessage(q))
}

// call runs a tool the model called.
func (t *turn) call(ctx context.Context, c toolCall) (string, error) {
	tool, ok := t.tools[c.Name]
	if !ok {
		return "", fmt.Errorf("there is no tool %q; the tools are %s", c.Name, strings.Join(t.toolNames(), ", "))
	}
	args, err := checkArguments(tool, c.Arguments)
	if err != nil {
		return "", err
	}
	return tool.Call(ctx, ToolCall{Arguments: args, Request: t.req, Events: t.events})
}

func (t *turn) toolNames() []string {
	names := []string{AskUserTool}
	for n := range t.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// toolCall is one finished tool call of a model answer.
type toolCall struct {
	ID, Name, Arguments string
}

// callAccumulator gathers the streamed pieces of tool calls by index.
type callAccumulator struct {
	calls []toolCall
	index []int64
}

func (a *callAccumulator) add(deltas []openai.ChatCompletionChunkChoiceDeltaToolCall) {
	for _, d := range deltas {
		i := slices.Index(a.index, d.Index)
		if i < 0 {
			a.index = append(a.index, d.Index)
			a.calls = append(a.calls, toolCall{})
			i = len(a.calls) - 1
		}
		c := &a.calls[i]
		if d.ID != "" {
			c.ID = d.ID
		}
		c.Name += d.Function.Name
		c.Arguments += d.Function.Arguments
	}
}

func (a *callAccumulator) done() []toolCall {
	for i := range a.calls {
		if a.calls[i].ID == "" {
			a.calls[i].ID = fmt.Sprintf("call_%d", i)
		}
	}
	return a.calls
}

// assistantCalls is the model's answer that called tools, for the next
// request's conversation.
func assistantCalls(text string, calls []toolCall) openai.ChatCompletionMessageParamUnion {
	m := openai.ChatCompletionAssistantMessageParam{}
	if text != "" {
		m.Content.OfString = openai.String(text)
	}
	for _, c := range calls {
		m.ToolCalls = append(m.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: c.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
		}})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &m}
}

// ParametersJSON is Tool.Parameters from the JSON text of a schema (an
// object). It panics on text that is not a JSON object: the generated
// code of a project holds a schema the manifest's validation checked.
func ParametersJSON(schema string) map[string]any {
	var params map[string]any
	if err := json.Unmarshal([]byte(schema), &params); err != nil || params == nil {
		panic(fmt.Sprintf("llm: tool parameters %q are not a JSON object: %v", schema, err))
	}
	return params
}
