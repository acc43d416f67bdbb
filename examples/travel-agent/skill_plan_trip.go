package main

import (
	"context"
	"fmt"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// skillPlanTrip does the work of skill "plan-trip" (Plan a trip): it
// suggests a day-by-day itinerary for a city trip, e.g. "3 days in Lisbon".
// A message naming no known city gets the task INPUT_REQUIRED with a
// question; the answer arrives as the next turn of the same task.
func skillPlanTrip(ctx context.Context, req *server.Request, events *server.Events) error {
	t, ok := parseTrip(req.Text())
	if !ok {
		return events.InputRequired(server.AgentMessage("Which city? I know " + knownCities() + "."))
	}
	if err := events.Working(); err != nil {
		return err
	}
	sights := cities[t.city].sights
	var b strings.Builder
	fmt.Fprintf(&b, "%d days in %s:\n", t.days, t.city)
	for day := range t.days {
		fmt.Fprintf(&b, "Day %d: %s\n", day+1, sights[day%len(sights)])
	}
	itinerary := server.TextArtifact("itinerary", b.String())
	itinerary.Name = "Itinerary for " + t.city
	if err := events.Artifact(itinerary); err != nil {
		return err
	}
	return events.Complete(&a2av1.Message{Role: a2av1.Role_ROLE_AGENT, Parts: []*a2av1.Part{server.TextPart("Enjoy " + t.city + "!")}})
}
