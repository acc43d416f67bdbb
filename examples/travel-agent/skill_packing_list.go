package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2agen/a2agen/server"
)

// skillPackingList does the work of skill "packing-list" (Packing list): it
// says what to pack for a trip of a few days, from the destination's
// climate. It answers with a message, without creating a task.
func skillPackingList(ctx context.Context, req *server.Request, events *server.Events) error {
	t, ok := parseTrip(req.Text())
	climate := "mild"
	if ok {
		climate = cities[t.city].climate
	}
	items := []string{fmt.Sprintf("%d sets of clothes", t.days), "comfortable shoes", "a charger"}
	switch climate {
	case "warm":
		items = append(items, "sunscreen", "a hat")
	case "cold":
		items = append(items, "a warm coat", "gloves")
	default:
		items = append(items, "a light jacket", "an umbrella")
	}
	where := "your trip"
	if ok {
		where = t.city
	}
	return events.Reply(server.AgentMessage("For " + where + ", pack " + strings.Join(items, ", ") + "."))
}
