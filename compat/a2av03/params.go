package a2av03

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TaskQueryParams are the params of v0.3 tasks/get.
type TaskQueryParams struct {
	ID            string          `json:"id"`
	HistoryLength *int32          `json:"historyLength,omitempty"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
}

// TaskIDParams are the params of v0.3 tasks/cancel, tasks/resubscribe and
// tasks/pushNotificationConfig/list.
type TaskIDParams struct {
	ID       string          `json:"id"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// PushConfigParams are the params of v0.3 tasks/pushNotificationConfig/get
// (pushNotificationConfigId optional) and /delete (required).
type PushConfigParams struct {
	ID                       string          `json:"id"`
	PushNotificationConfigID string          `json:"pushNotificationConfigId,omitempty"`
	Metadata                 json.RawMessage `json:"metadata,omitempty"`
}

// decodeJSON decodes v0.3 JSON into v; a member of the wrong JSON type is
// InvalidParams naming it (under path).
func decodeJSON(raw []byte, v any, path string) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			field := typeErr.Field
			if path != "" {
				field = path + "." + field
			}
			if num, ok := strings.CutPrefix(typeErr.Value, "number "); ok && isInteger(typeErr.Type.Kind()) {
				// A number, but not one the field can hold (out of range, or
				// not whole): say so, with the range.
				lo, hi := integerRange(typeErr.Type)
				return invalid(field, fmt.Sprintf("must be a whole number from %d to %d, got %s", lo, hi, num))
			}
			return invalid(field, fmt.Sprintf("must be a JSON %s, got %s", jsonType(typeErr.Type.Kind().String()), typeErr.Value))
		}
		if path == "" {
			path = "params"
		}
		return invalid(path, "does not decode as A2A v0.3: "+err.Error())
	}
	return nil
}

// isInteger reports whether k is a signed integer kind (the v0.3 params
// have no unsigned ones).
func isInteger(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int8 || k == reflect.Int16 || k == reflect.Int32 || k == reflect.Int64
}

// integerRange is the range of the signed integer type t.
func integerRange(t reflect.Type) (lo, hi int64) {
	bits := t.Bits()
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// jsonType names the JSON type of a Go kind in errors.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	}
	return "number"
}

// requireID is InvalidParams for a missing id.
func requireID(id, path string) error {
	if id == "" {
		return invalid(path, "missing: the task id")
	}
	return nil
}

// GetTaskToV1 reads tasks/get params.
func GetTaskToV1(p *TaskQueryParams) (*a2av1.GetTaskRequest, error) {
	if err := requireID(p.ID, "id"); err != nil {
		return nil, err
	}
	return &a2av1.GetTaskRequest{Id: p.ID, HistoryLength: p.HistoryLength}, nil
}

// CancelTaskToV1 reads tasks/cancel params.
func CancelTaskToV1(p *TaskIDParams) (*a2av1.CancelTaskRequest, error) {
	if err := requireID(p.ID, "id"); err != nil {
		return nil, err
	}
	md, err := structToV1(p.Metadata, "metadata")
	if err != nil {
		return nil, err
	}
	return &a2av1.CancelTaskRequest{Id: p.ID, Metadata: md}, nil
}

// SubscribeToV1 reads tasks/resubscribe params.
func SubscribeToV1(p *TaskIDParams) (*a2av1.SubscribeToTaskRequest, error) {
	if err := requireID(p.ID, "id"); err != nil {
		return nil, err
	}
	return &a2av1.SubscribeToTaskRequest{Id: p.ID}, nil
}

// SetPushConfigToV1 reads tasks/pushNotificationConfig/set params. A config
// without an id gets the task's id, as v0.3 agents commonly do, so that a
// later get without pushNotificationConfigId finds it.
func SetPushConfigToV1(p *TaskPushNotificationConfig) (*a2av1.TaskPushNotificationConfig, error) {
	if err := requireID(p.TaskID, "taskId"); err != nil {
		return nil, err
	}
	c, err := PushConfigToV1(p.TaskID, &p.PushNotificationConfig, "pushNotificationConfig")
	if err != nil {
		return nil, err
	}
	if c.Url == "" {
		return nil, invalid("pushNotificationConfig.url", "missing: the webhook URL")
	}
	if c.Id == "" {
		c.Id = p.TaskID
	}
	return c, nil
}

// GetPushConfigToV1 reads tasks/pushNotificationConfig/get params; without
// pushNotificationConfigId it asks for the config whose id is the task's
// (see SetPushConfigToV1).
func GetPushConfigToV1(p *PushConfigParams) (*a2av1.GetTaskPushNotificationConfigRequest, error) {
	if err := requireID(p.ID, "id"); err != nil {
		return nil, err
	}
	id := p.PushNotificationConfigID
	if id == "" {
		id = p.ID
	}
	return &a2av1.GetTaskPushNotificationConfigRequest{TaskId: p.ID, Id: id}, nil
}

// ListPushConfigsToV1 reads tasks/pushNotificationConfig/list params.
func ListPushConfigsToV1(p *TaskIDParams) (*a2av1.ListTaskPushNotificationConfigsRequest, error) {
	if err := requireID(p.ID, "id"); err != nil {
		return nil, err
	}
	return &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: p.ID}, nil
}

// PushConfigListFromV1 writes a list result: a JSON array of v0.3 configs.
func PushConfigListFromV1(r *a2av1.ListTaskPushNotificationConfigsResponse) []*TaskPushNotificationConfig {
	out := make([]*TaskPushNotificationConfig, 0, len(r.GetConfigs()))
	for _, c := range r.GetConfigs() {
		out = append(out, PushConfigFromV1(c))
	}
	return out
}

// DeletePushConfigToV1 reads tasks/pushNotificationConfig/delete params.
func DeletePushConfigToV1(p *PushConfigParams) (*a2av1.DeleteTaskPushNotificationConfigRequest, error) {
	if err := requireID(p.ID, "id"); err != nil {
		return nil, err
	}
	if p.PushNotificationConfigID == "" {
		return nil, invalid("pushNotificationConfigId", "missing: the id of the config to delete")
	}
	return &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: p.ID, Id: p.PushNotificationConfigID}, nil
}
