package llm

import (
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// answerStream sends the model's text as one artifact, a chunk per token.
// It holds the latest token back, so that the last one can carry lastChunk
// once the stream has ended (a chunk needs a part, so none can be sent
// after the fact without text).
type answerStream struct {
	id      string // the artifact's, once started
	held    string
	started bool // a token arrived
	sent    bool // a chunk went out
}

// add takes the next token.
func (a *answerStream) add(events *server.Events, token string) error {
	if a.started {
		if err := a.send(events, a.held, false); err != nil {
			return err
		}
	}
	a.started, a.held = true, token
	return nil
}

// finish sends the held token as the last chunk; nothing without tokens.
func (a *answerStream) finish(events *server.Events) error {
	if !a.started {
		return nil
	}
	a.started = false
	return a.send(events, a.held, true)
}

func (a *answerStream) send(events *server.Events, text string, last bool) error {
	art := &a2av1.Artifact{ArtifactId: a.id, Name: "answer", Parts: []*a2av1.Part{a2av1.NewTextPart(text)}}
	if err := events.ArtifactChunk(art, a.sent, last); err != nil {
		return fmt.Errorf("llm: streaming the answer: %w", err)
	}
	a.id, a.sent = art.GetArtifactId(), true
	return nil
}

// artifactOf is a one-part "answer" artifact.
func artifactOf(p *a2av1.Part) *a2av1.Artifact {
	return &a2av1.Artifact{Name: "answer", Parts: []*a2av1.Part{p}}
}

// dataPart is v as a data part (application/json).
func dataPart(v any) (*a2av1.Part, error) {
	p, err := a2av1.NewDataPart(v)
	if err != nil {
		return nil, fmt.Errorf("the answer as a data part: %w", err)
	}
	return p, nil
}
