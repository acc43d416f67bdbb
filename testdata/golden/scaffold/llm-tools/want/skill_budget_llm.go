package main

import (
	"context"

	"github.com/a2agen/a2agen/host/llm"
	"github.com/a2agen/a2agen/server"
	"github.com/openai/openai-go/v3"
)

// skillBudgetRequest adjusts every request skill "budget" (Budget) sends to
// the model before it goes: params holds the model, the messages (the
// instructions of agent.yaml, the conversation, the message being answered),
// the tools and the sampling settings (see github.com/openai/openai-go/v3). An
// error fails the task. a2a_llm.gen.go builds the rest of the skill from
// agent.yaml.
func skillBudgetRequest(ctx context.Context, req *server.Request, params *openai.ChatCompletionNewParams) error {
	// For instance, who is asking (req.Caller) or today's date:
	//
	//	params.Messages = append(params.Messages, openai.SystemMessage("Today is "+time.Now().Format(time.DateOnly)))
	return nil
}

// skillBudgetResult sees the model's finished answer to skill "budget" before
// the task completes: res.Text is the answer; res.Data its decoded JSON, which
// may be replaced before it is checked against output.schema and sent as a
// data artifact. Setting res.Message gives the completed status a message; an
// error fails the task.
func skillBudgetResult(ctx context.Context, req *server.Request, res *llm.Result) error {
	return nil
}
