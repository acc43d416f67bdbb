package main

import (
	"context"

	"github.com/a2agen/a2agen/server"
)

// skillWeather does the work of skill "weather" (Weather): Tells the weather,
// as data. Answer with data: WeatherOutput{...}.Artifact(id) is an artifact of
// one data part, checked against output.schema.
//
// req holds the message (req.Text() is its text), its task and who sent it;
// report progress and results through events (Working, Artifact, Complete,
// InputRequired, Fail, or Reply for a direct answer without a task). Returning
// nil completes the task; returning an error before any event refuses the
// message with it. ctx is canceled when the task is.
func skillWeather(ctx context.Context, req *server.Request, events *server.Events) error {
	// Replace this with what the skill does.
	out := WeatherOutput{Summary: "example"}
	artifact, err := out.Artifact("")
	if err != nil {
		return err
	}
	if err := events.Artifact(artifact); err != nil {
		return err
	}
	return events.Complete(nil)
}
