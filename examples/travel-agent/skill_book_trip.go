package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/a2agen/a2agen/server"
)

// skillBookTrip does the work of skill "book-trip" (Book a trip): it books
// the trip and returns a booking reference. It is listed on the extended
// card only, and its securityRequirements (partnerToken) are checked before
// it runs, so req.Caller is always an authenticated partner here.
func skillBookTrip(ctx context.Context, req *server.Request, events *server.Events) error {
	t, ok := parseTrip(req.Text())
	if !ok {
		return events.Reject(server.AgentMessage("I can book trips to " + knownCities() + "."))
	}
	// A real agent would call a booking system; the reference is derived
	// from the task so that it is stable for the example.
	sum := sha256.Sum256([]byte(req.Caller.Subject + "/" + req.TaskID))
	ref := "TA-" + hex.EncodeToString(sum[:4])
	booking := server.TextArtifact("booking", fmt.Sprintf("Booked %d days in %s for %s: reference %s", t.days, t.city, req.Caller.Subject, ref))
	if err := events.Artifact(booking); err != nil {
		return err
	}
	return events.Complete(nil)
}
