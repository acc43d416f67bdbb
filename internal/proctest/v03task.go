package proctest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// V03Task is a Task in the A2A v0.3 JSON shape (specification tag v0.3.0,
// the official Go SDK v0.3.x's a2a.Task), as a v0.3 webhook receiver decodes
// a push notification. It is spelled out here, apart from compat/a2av03,
// so that tests check the wire against the v0.3 shape rather than against
// the code that writes it.
type V03Task struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State     string          `json:"state"`
		Message   json.RawMessage `json:"message,omitempty"`
		Timestamp string          `json:"timestamp,omitempty"`
	} `json:"status"`
	Artifacts []struct {
		ArtifactID  string `json:"artifactId"`
		Name        string `json:"name,omitempty"`
		Description string `json:"description,omitempty"`
		Parts       []struct {
			Kind     string          `json:"kind"`
			Text     string          `json:"text,omitempty"`
			Data     json.RawMessage `json:"data,omitempty"`
			File     json.RawMessage `json:"file,omitempty"`
			Metadata json.RawMessage `json:"metadata,omitempty"`
		} `json:"parts"`
		Metadata   json.RawMessage `json:"metadata,omitempty"`
		Extensions []string        `json:"extensions,omitempty"`
	} `json:"artifacts,omitempty"`
	History  []json.RawMessage `json:"history,omitempty"`
	Metadata json.RawMessage   `json:"metadata,omitempty"`
}

// DecodeV03Task decodes body as a v0.3 Task, strictly: a member the v0.3
// Task has not (a v1.0 StreamResponse's "task" or "statusUpdate", for
// example) or a kind other than "task" is an error.
func DecodeV03Task(body []byte) (V03Task, error) {
	var t V03Task
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return V03Task{}, fmt.Errorf("not a v0.3 Task: %w: %s", err, body)
	}
	if t.Kind != "task" {
		return V03Task{}, fmt.Errorf("not a v0.3 Task: kind %q: %s", t.Kind, body)
	}
	return t, nil
}
