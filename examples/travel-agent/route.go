package main

import (
	"context"
	"strings"

	"github.com/a2agen/a2agen/server"
)

// route picks the skill of a message that names none in its metadata under
// "a2a-scaffold/skill": packing questions go to packing-list, booking
// requests of signed-in partners to book-trip, everything else to
// plan-trip.
func route(ctx context.Context, req *server.Request) string {
	text := strings.ToLower(req.Text())
	switch {
	case strings.Contains(text, "pack"):
		return "packing-list"
	case strings.Contains(text, "book") && req.Caller != nil:
		return "book-trip"
	}
	return "plan-trip"
}
