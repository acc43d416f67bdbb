package llm_test

import (
	"context"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/host/llm"
	"github.com/a2agen/a2agen/host/llm/llmtest"
)

// TestToolArgumentsValidated: arguments that do not match the tool's
// parameters (a required property missing, a property of the wrong type,
// text that is not JSON) never reach the tool; each goes back to the model
// as the tool's error result naming what is wrong, the task goes on, and
// the model's corrected call runs the tool once, with its arguments.
func TestToolArgumentsValidated(t *testing.T) {
	m := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "weather", Arguments: `{"days":2}`}}},
		llmtest.Step{Calls: []llmtest.Call{{Name: "weather", Arguments: `{"city":5}`}}},
		llmtest.Step{Calls: []llmtest.Call{{Name: "weather", Arguments: `{"city":`}}},
		llmtest.Step{Calls: []llmtest.Call{{Name: "weather", Arguments: `{"city":"Oslo","days":2}`}}},
		llmtest.Step{Tokens: []string{"Cold."}})
	var got []string
	weather := llm.Tool{Name: "weather", Description: "the weather of a city",
		Parameters: llm.ParametersJSON(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`),
		Call: func(ctx context.Context, c llm.ToolCall) (string, error) {
			got = append(got, string(c.Arguments))
			return "-5 degrees", nil
		}}
	a := start(t, m, llm.Skill{Tools: []llm.Tool{weather}})
	resp := send(t, a, hosttest.Message("weather in Oslo?", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED || resp.Text() != "Cold." {
		t.Fatalf("%s %q, want COMPLETED \"Cold.\"", resp.State(), resp.Text())
	}
	if len(got) != 1 || got[0] != `{"city":"Oslo","days":2}` {
		t.Errorf("the tool ran with %q, want once with the valid arguments", got)
	}
	reqs := m.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	for i, want := range []string{
		"error: the arguments of weather do not match its parameters: arguments.city: ",
		"error: the arguments of weather do not match its parameters: arguments.city: ",
		"error: the arguments of weather are not JSON",
		"-5 degrees",
	} {
		msgs := reqs[i+1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != "tool" || !strings.HasPrefix(last.Text(), want) {
			t.Errorf("request %d ends with %s %q, want the tool result %q…", i+2, last.Role, last.Text(), want)
		}
	}
}

// TestToolWithoutParametersTakesAnyArguments: a tool without Parameters
// runs whatever the model sends, text that is not JSON becoming {}.
func TestToolWithoutParametersTakesAnyArguments(t *testing.T) {
	m := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "ping", Arguments: `not json`}}},
		llmtest.Step{Tokens: []string{"Pong."}})
	var got string
	ping := llm.Tool{Name: "ping", Call: func(ctx context.Context, c llm.ToolCall) (string, error) {
		got = string(c.Arguments)
		return "pong", nil
	}}
	a := start(t, m, llm.Skill{Tools: []llm.Tool{ping}})
	if resp := send(t, a, hosttest.Message("ping", "chat")); resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED || got != "{}" {
		t.Errorf("%s; the tool got %q, want COMPLETED and {}", resp.State(), got)
	}
}
