package a2av03

import (
	"encoding/json"
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// EventFromV1 writes a v1.0 stream event (or, through its payload, a
// SendMessage result) as the v0.3 object of its kind: *Message, *Task,
// *TaskStatusUpdateEvent or *TaskArtifactUpdateEvent.
func EventFromV1(e *a2av1.StreamResponse) (any, error) {
	switch p := e.GetPayload().(type) {
	case *a2av1.StreamResponse_Message:
		return MessageFromV1(p.Message)
	case *a2av1.StreamResponse_Task:
		return TaskFromV1(p.Task)
	case *a2av1.StreamResponse_StatusUpdate:
		return StatusUpdateFromV1(p.StatusUpdate)
	case *a2av1.StreamResponse_ArtifactUpdate:
		return ArtifactUpdateFromV1(p.ArtifactUpdate)
	}
	return nil, fmt.Errorf("a2av03: a stream event without payload has no A2A v0.3 form")
}

// SendResultFromV1 writes a SendMessage result as a v0.3 *Message or *Task.
func SendResultFromV1(r *a2av1.SendMessageResponse) (any, error) {
	switch p := r.GetPayload().(type) {
	case *a2av1.SendMessageResponse_Message:
		return MessageFromV1(p.Message)
	case *a2av1.SendMessageResponse_Task:
		return TaskFromV1(p.Task)
	}
	return nil, fmt.Errorf("a2av03: a SendMessage result without payload has no A2A v0.3 form")
}

// EventToV1 reads a v0.3 result or stream event by its kind; path names it
// in errors ("result").
func EventToV1(raw json.RawMessage, path string) (*a2av1.StreamResponse, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, invalid(path, "must be a JSON object")
	}
	switch head.Kind {
	case KindMessage:
		v, err := decodeAs(raw, path, head.Kind, MessageToV1)
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Message{Message: v}}, err
	case KindTask:
		v, err := decodeAs(raw, path, head.Kind, TaskToV1)
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: v}}, err
	case KindStatusUpdate:
		v, err := decodeAs(raw, path, head.Kind, StatusUpdateToV1)
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: v}}, err
	case KindArtifactUpdate:
		v, err := decodeAs(raw, path, head.Kind, ArtifactUpdateToV1)
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: v}}, err
	case "":
		return nil, invalid(path+".kind", "missing: an A2A v0.3 result says its kind (message, task, status-update or artifact-update)")
	}
	return nil, invalid(path+".kind", fmt.Sprintf("%q is not an A2A v0.3 result kind (message, task, status-update or artifact-update)", head.Kind))
}

// decodeAs decodes raw as the v0.3 shape T of kind and converts it.
func decodeAs[T, V any](raw json.RawMessage, path, kind string, convert func(*T, string) (V, error)) (V, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero V
		return zero, invalid(path, "does not decode as an A2A v0.3 "+kind+": "+err.Error())
	}
	return convert(&v, path)
}

// SendResultToV1 reads a v0.3 message/send result (a message or a task).
func SendResultToV1(raw json.RawMessage, path string) (*a2av1.SendMessageResponse, error) {
	e, err := EventToV1(raw, path)
	if err != nil {
		return nil, err
	}
	switch p := e.GetPayload().(type) {
	case *a2av1.StreamResponse_Message:
		return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Message{Message: p.Message}}, nil
	case *a2av1.StreamResponse_Task:
		return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: p.Task}}, nil
	}
	return nil, invalid(path+".kind", "a message/send result is a message or a task, not an event")
}
