package main

import (
	"context"

	"github.com/a2agen/a2agen/server"
)

// skillEcho does the work of skill "echo" (Echo): Replies with the text it
// receives.
//
// req holds the message (req.Text() is its text), its task and who sent it;
// report progress and results through events (Working, Artifact, Complete,
// InputRequired, Fail, or Reply for a direct answer without a task). Returning
// nil completes the task; returning an error before any event refuses the
// message with it. ctx is canceled when the task is.
func skillEcho(ctx context.Context, req *server.Request, events *server.Events) error {
	// Replace this with what the skill does.
	if err := events.Artifact(server.TextArtifact("", "Echo: "+req.Text())); err != nil {
		return err
	}
	return events.Complete(nil)
}
