package main

import (
	"context"
	"errors"

	"github.com/a2agen/a2agen/host/llm"
)

// toolLookupWeather is tool "lookup_weather" of agent.yaml, which the model
// calls: The weather forecast of a city for a date.
//
// call.Arguments is the model's JSON of tools[].input.schema (decode it with
// encoding/json; the model may get it wrong, so check it). The text returned
// is what the model reads. An error goes back to the model as "error: ..." so
// that it can recover; return &llm.NeedsInputError{Message: ...} to ask the
// user instead (the task becomes INPUT_REQUIRED). call.Request is the message
// being answered, call.Events the task's (events.Status reports progress). ctx
// is canceled when the task is.
func toolLookupWeather(ctx context.Context, call llm.ToolCall) (string, error) {
	// Replace this with what the tool does.
	return "", errors.New("the tool lookup_weather is not written yet (tool_lookup_weather.go)")
}
