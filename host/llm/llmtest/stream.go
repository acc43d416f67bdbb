package llmtest

import (
	"context"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// CheckStreamedAnswer sends req to client as a streaming message and
// checks what an LLM skill streams: one artifact in chunks, the first not
// appending, the others appending, only the last marked lastChunk, and the
// task ending COMPLETED. It returns the chunks' texts.
func CheckStreamedAnswer(t testing.TB, client a2av1.A2AServiceClient, req *a2av1.SendMessageRequest) []string {
	t.Helper()
	var chunks []*a2av1.TaskArtifactUpdateEvent
	var last a2av1.TaskState
	for ev, err := range client.SendStreamingMessage(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		if u := ev.GetArtifactUpdate(); u != nil {
			chunks = append(chunks, u)
		}
		last = ev.State()
	}
	if last != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Errorf("the stream ended %s, want COMPLETED", last.Short())
	}
	var texts []string
	for i, c := range chunks {
		texts = append(texts, c.GetArtifact().Text())
		if c.GetAppend() != (i > 0) || c.GetLastChunk() != (i == len(chunks)-1) {
			t.Errorf("chunk %d of %d: append %v, lastChunk %v", i+1, len(chunks), c.GetAppend(), c.GetLastChunk())
		}
		if id := c.GetArtifact().GetArtifactId(); id != chunks[0].GetArtifact().GetArtifactId() {
			t.Errorf("chunk %d is of artifact %s, the first of %s", i+1, id, chunks[0].GetArtifact().GetArtifactId())
		}
	}
	if len(chunks) == 0 {
		t.Errorf("no artifact chunk arrived")
	}
	return texts
}

// Answer is a Server.Reply answering every request with tokens, and a
// request for structured output with the JSON of its schema's name in
// structured ("" or absent: tokens).
func Answer(tokens []string, structured map[string]string) func(Request) Step {
	return func(r Request) Step {
		if r.ResponseFormat != nil {
			if s, ok := structured[r.ResponseFormat.JSONSchema.Name]; ok {
				return Step{Tokens: []string{s}}
			}
		}
		return Step{Tokens: append([]string(nil), tokens...)}
	}
}
