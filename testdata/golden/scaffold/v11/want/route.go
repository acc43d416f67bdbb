package main

import (
	"context"

	"github.com/a2agen/a2agen/server"
)

// route picks the skill of a message when the agent has several skills and the
// message names none in its metadata under "a2a-scaffold/skill" (nor did an
// earlier message of its task, nor the request's metadata). Return a skill id,
// or "" for the first skill of the card ("echo"). req.Text() is the message's
// text and req.Caller who sent it.
func route(ctx context.Context, req *server.Request) string {
	// For instance: if strings.Contains(req.Text(), "refund") { return "refund" }
	return ""
}
