package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/server"
)

// turn is one execution of a skill: the model requests of one message, with
// the tool calls between them.
type turn struct {
	p   *Provider
	s   *Skill
	out *dataschema.Schema // nil: a text answer
	// offered are the tools besides ask_user, in the order the model sees
	// them; tools holds them by name.
	offered []Tool
	tools   map[string]Tool
	client  *openai.Client
	req     *server.Request
	events  *server.Events

	text answerStream // the streamed text artifact
}

func (t *turn) run(ctx context.Context) error {
	history, err := conversation(ctx, t.req, t.s.MemoryBytes)
	if err != nil {
		return err
	}
	params := t.params(history)
	repaired := false
	var answer strings.Builder
	for round := 0; ; round++ {
		if round == maxRounds {
			return fail(t.events, fmt.Sprintf("skill %s: the model called tools %d times without answering; the turn stops there", t.s.ID, maxRounds))
		}
		text, calls, done, err := t.ask(ctx, &params)
		if done {
			return err
		}
		answer.WriteString(text)
		if len(calls) == 0 {
			if done, err := t.answered(ctx, answer.String(), text, &params, &repaired); done {
				return err
			}
			continue
		}
		params.Messages = append(params.Messages, assistantCalls(text, calls))
		if done, err := t.callTools(ctx, calls, &params); done {
			return err
		}
	}
}

// ask runs the request hook and sends the request to the model. A failure
// ends the turn (done): the task fails, or the turn stops when ctx ended.
func (t *turn) ask(ctx context.Context, params *openai.ChatCompletionNewParams) (text string, calls []toolCall, done bool, err error) {
	if t.s.Hooks.Request != nil {
		if err := t.s.Hooks.Request(ctx, t.req, params); err != nil {
			return "", nil, true, fmt.Errorf("skill %s: request hook: %w", t.s.ID, err)
		}
	}
	text, calls, err = t.complete(ctx, *params)
	if err != nil {
		if ctx.Err() != nil { // canceled or shut down: the model request is gone too
			return "", nil, true, context.Cause(ctx)
		}
		_ = t.text.finish(t.events)
		return "", nil, true, fail(t.events, describe(err, t.p))
	}
	return text, calls, false, nil
}

// answered ends the turn with the model's answer (the whole text, and text
// of this round), unless the answer does not match the output schema for
// the first time: the model is then asked once to repair it (done false).
func (t *turn) answered(ctx context.Context, whole, text string, params *openai.ChatCompletionNewParams, repaired *bool) (done bool, err error) {
	if t.out == nil {
		return true, t.finishText(ctx, whole)
	}
	data, problem := t.decode(text)
	if problem == "" {
		return true, t.finishData(ctx, text, data)
	}
	if *repaired {
		return true, fail(t.events, fmt.Sprintf("skill %s: the model's answer does not match the output schema, twice: %s", t.s.ID, problem))
	}
	*repaired = true
	params.Messages = append(params.Messages, openai.AssistantMessage(text),
		openai.UserMessage("That answer does not match the JSON Schema: "+problem+". Answer again with JSON that matches it, and nothing else."))
	return false, nil
}

// callTools runs the tools the model called and adds their results to the
// conversation. The turn ends (done) when the model asks the user, a tool
// needs input, or ctx ended; a tool's other errors go to the model.
func (t *turn) callTools(ctx context.Context, calls []toolCall, params *openai.ChatCompletionNewParams) (done bool, err error) {
	for _, c := range calls {
		if c.Name == AskUserTool {
			return true, t.askUser(c)
		}
		result, err := t.call(ctx, c)
		var ni *NeedsInputError
		if errors.As(err, &ni) {
			if ferr := t.text.finish(t.events); ferr != nil {
				return true, ferr
			}
			return true, t.events.InputRequired(ni.message())
		}
		if err != nil {
			if ctx.Err() != nil {
				return true, context.Cause(ctx)
			}
			result = "error: " + err.Error()
		}
		params.Messages = append(params.Messages, openai.ToolMessage(result, c.ID))
	}
	return false, nil
}

// params is the first request of the turn.
func (t *turn) params(history []openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(t.p.Model)}
	if t.s.Instructions != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(t.s.Instructions))
	}
	params.Messages = append(params.Messages, history...)
	if t.s.Temperature != nil {
		params.Temperature = openai.Float(*t.s.Temperature)
	}
	if t.s.MaxTokens > 0 {
		params.MaxTokens = openai.Int(int64(t.s.MaxTokens))
	}
	params.Tools = append(params.Tools, askUserTool())
	for _, tool := range t.offered {
		params.Tools = append(params.Tools, tool.param())
	}
	if t.out != nil {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: schemaName(t.s.ID), Schema: t.out.Value()},
		}}
	}
	return params
}

// complete runs one streamed model request: text tokens go to the artifact
// as they arrive (a text skill's), tool calls are gathered.
func (t *turn) complete(ctx context.Context, params openai.ChatCompletionNewParams) (string, []toolCall, error) {
	stream := t.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var text strings.Builder
	var calls callAccumulator
	for stream.Next() {
		chunk := stream.Current()
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				text.WriteString(d)
				if t.out == nil {
					if err := t.text.add(t.events, d); err != nil {
						return "", nil, err
					}
				}
			}
			calls.add(choice.Delta.ToolCalls)
		}
	}
	if err := stream.Err(); err != nil {
		return "", nil, err
	}
	return text.String(), calls.done(), nil
}

// finishText ends a text answer: the artifact's last chunk, the result hook,
// COMPLETED.
func (t *turn) finishText(ctx context.Context, text string) error {
	if err := t.text.finish(t.events); err != nil {
		return err
	}
	res := &Result{Text: text}
	if t.s.Hooks.Result != nil {
		if err := t.s.Hooks.Result(ctx, t.req, res); err != nil {
			return fmt.Errorf("skill %s: result hook: %w", t.s.ID, err)
		}
	}
	if !t.text.sent && res.Message == nil {
		return fail(t.events, fmt.Sprintf("skill %s: the model answered nothing", t.s.ID))
	}
	return t.events.Complete(res.Message)
}

// decode reads a typed answer; problem says what is wrong with it.
func (t *turn) decode(text string) (data any, problem string) {
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &data); err != nil {
		return nil, "not JSON: " + err.Error()
	}
	if vs := t.out.Validate(data, "data"); len(vs) > 0 {
		msgs := make([]string, len(vs))
		for i, v := range vs {
			msgs[i] = v.String()
		}
		return nil, strings.Join(msgs, "; ")
	}
	return t.out.WithDefaults(data), ""
}

// finishData ends a typed answer: the result hook, the data artifact,
// COMPLETED.
func (t *turn) finishData(ctx context.Context, text string, data any) error {
	res := &Result{Text: text, Data: data}
	if t.s.Hooks.Result != nil {
		if err := t.s.Hooks.Result(ctx, t.req, res); err != nil {
			return fmt.Errorf("skill %s: result hook: %w", t.s.ID, err)
		}
		if vs := t.out.Validate(res.Data, "data"); len(vs) > 0 {
			return fmt.Errorf("skill %s: the result hook's data does not match the output schema: %s", t.s.ID, vs[0].String())
		}
	}
	part, err := dataPart(res.Data)
	if err != nil {
		return fmt.Errorf("skill %s: %w", t.s.ID, err)
	}
	if err := t.events.Artifact(artifactOf(part)); err != nil {
		return err
	}
	return t.events.Complete(res.Message)
}

// schemaName is the structured output's name: the API allows letters,
// digits, '_' and '-', at most 64.
func schemaName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" {
		name = "answer"
	}
	return name[:min(len(name), 64)]
}
