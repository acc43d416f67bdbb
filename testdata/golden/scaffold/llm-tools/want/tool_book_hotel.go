package main

import (
	"context"
	"errors"

	"github.com/a2agen/a2agen/host/llm"
)

// toolBookHotel is tool "book-hotel" of agent.yaml, which the model calls:
// Books a hotel room. The text returned is what the model reads. An error goes
// back to the model as "error: ..." so that it can recover; return
// &llm.NeedsInputError{Message: ...} to ask the user instead (the task becomes
// INPUT_REQUIRED). call.Request is the message being answered, call.Events the
// task's (events.Status reports progress). ctx is canceled when the task is.
func toolBookHotel(ctx context.Context, call llm.ToolCall) (string, error) {
	// Replace this with what the tool does.
	return "", errors.New("the tool book-hotel is not written yet (tool_book_hotel.go)")
}
