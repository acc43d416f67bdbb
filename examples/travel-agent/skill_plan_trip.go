package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// skillPlanTrip does the work of skill "plan-trip" (Plan a trip): it
// suggests a day-by-day itinerary for a city trip. The trip arrives typed:
// as a data part ({"city": "Lisbon", "days": 3}, checked against
// input.schema of agent.yaml before this runs) or as text such as "3 days
// in Lisbon", which planTripFromText reads. The itinerary goes back twice:
// as data (PlanTripOutput, for programs) and as text (for people).
func skillPlanTrip(ctx context.Context, req *server.Request, in PlanTripInput, events *server.Events) error {
	if err := events.Working(); err != nil {
		return err
	}
	city := string(in.City)
	days := min(max(in.Days, 1), 7)
	sights := cities[city].sights
	out := PlanTripOutput{City: city}
	var b strings.Builder
	fmt.Fprintf(&b, "%d days in %s:\n", days, city)
	for day := range days {
		sight := sights[day%len(sights)]
		out.Days = append(out.Days, PlanTripOutputDaysItem{Day: day + 1, Sight: sight})
		fmt.Fprintf(&b, "Day %d: %s\n", day+1, sight)
	}
	data, err := out.Artifact("itinerary-data")
	if err != nil {
		return err
	}
	data.Name = "Itinerary for " + city + " (data)"
	if err := events.Artifact(data); err != nil {
		return err
	}
	itinerary := server.TextArtifact("itinerary", b.String())
	itinerary.Name = "Itinerary for " + city
	if err := events.Artifact(itinerary); err != nil {
		return err
	}
	return events.Complete(server.AgentMessage("Enjoy " + city + "!"))
}

// planTripFromText reads the trip from a message that has only text: "3
// days in Lisbon", "Kyoto for 2 days", or the JSON of the input. Text that
// names no city the agent knows is refused with InvalidParams, saying which
// cities it knows.
func planTripFromText(ctx context.Context, text string) (PlanTripInput, error) {
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		return planTripInput.DecodeJSON([]byte(text))
	}
	t, ok := parseTrip(text)
	if !ok {
		return PlanTripInput{}, runtime.InvalidParams("which city? I know " + knownCities())
	}
	return PlanTripInput{City: PlanTripInputCity(t.city), Days: t.days}, nil
}
