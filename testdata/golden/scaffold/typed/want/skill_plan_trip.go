package main

import (
	"context"

	"github.com/a2agen/a2agen/server"
)

// skillPlanTrip does the work of skill "plan-trip" (Plan a trip): Plans a city
// trip.
//
// in is the message's input: its data part, checked against input.schema of
// agent.yaml (defaults filled in) and decoded, or what planTripFromText reads
// from a message that has only text; a message whose data does not match is
// refused with InvalidParams before this runs. Answer with data:
// PlanTripOutput{...}.Artifact(id) is an artifact of one data part, checked
// against output.schema.
//
// req holds the message (req.Text() is its text), its task and who sent it;
// report progress and results through events (Working, Artifact, Complete,
// InputRequired, Fail, or Reply for a direct answer without a task). Returning
// nil completes the task; returning an error before any event refuses the
// message with it. ctx is canceled when the task is.
func skillPlanTrip(ctx context.Context, req *server.Request, in PlanTripInput, events *server.Events) error {
	// Replace this with what the skill does.
	out := PlanTripOutput{City: "example", Days: []string{}}
	artifact, err := out.Artifact("")
	if err != nil {
		return err
	}
	if err := events.Artifact(artifact); err != nil {
		return err
	}
	return events.Complete(nil)
}

// planTripFromText reads the input of skill "plan-trip" from a message that
// has text and no data part (its inputModes include text/plain). What it
// returns is checked against input.schema like data; an error refuses the
// message (a runtime.Error as it is, any other as InvalidParams). The default
// reads the text as the JSON of the input; parse plain language here instead.
func planTripFromText(ctx context.Context, text string) (PlanTripInput, error) {
	return planTripInput.DecodeJSON([]byte(text))
}
