package main

import (
	"context"
	"fmt"

	"github.com/a2agen/a2agen/server"
)

// skillConvert does the work of skill "convert" (Convert): Converts an amount
// between currencies.
//
// in is the message's input: its data part, checked against input.schema of
// agent.yaml (defaults filled in) and decoded; a message whose data does not
// match is refused with InvalidParams before this runs.
//
// req holds the message (req.Text() is its text), its task and who sent it;
// report progress and results through events (Working, Artifact, Complete,
// InputRequired, Fail, or Reply for a direct answer without a task). Returning
// nil completes the task; returning an error before any event refuses the
// message with it. ctx is canceled when the task is.
func skillConvert(ctx context.Context, req *server.Request, in ConvertInput, events *server.Events) error {
	// Replace this with what the skill does.
	if err := events.Artifact(server.TextArtifact("", fmt.Sprintf("Convert: %+v", in))); err != nil {
		return err
	}
	return events.Complete(nil)
}
