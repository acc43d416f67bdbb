package a2av03grpc

import (
	"strings"

	"github.com/a2agen/a2agen/runtime"
)

// The v0.3 resource names (AIP-122) of tasks and their push configs.
const (
	tasksCollection       = "tasks/"
	pushConfigsCollection = "/pushNotificationConfigs/"
)

// TaskName is the v0.3 resource name of task id: "tasks/{id}".
func TaskName(id string) string { return tasksCollection + id }

// PushConfigName is the v0.3 resource name of push config id of task
// taskID: "tasks/{taskID}/pushNotificationConfigs/{id}".
func PushConfigName(taskID, id string) string { return TaskName(taskID) + pushConfigsCollection + id }

// badName is the InvalidParams error of a resource name of the wrong form.
func badName(field, name, form string) error {
	desc := "must be " + form + ", got \"" + name + "\""
	return runtime.InvalidParams(field+": "+desc, runtime.FieldViolation{Field: field, Description: desc})
}

// ParseTaskName returns the task id of "tasks/{id}"; field names the
// request field in the error.
func ParseTaskName(name, field string) (string, error) {
	id, ok := strings.CutPrefix(name, tasksCollection)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", badName(field, name, "tasks/{id}")
	}
	return id, nil
}

// ParsePushConfigName returns the task and config ids of
// "tasks/{taskID}/pushNotificationConfigs/{id}".
func ParsePushConfigName(name, field string) (taskID, id string, err error) {
	rest, ok := strings.CutPrefix(name, tasksCollection)
	if ok {
		taskID, id, ok = strings.Cut(rest, pushConfigsCollection)
	}
	if !ok || taskID == "" || id == "" || strings.Contains(taskID, "/") || strings.Contains(id, "/") {
		return "", "", badName(field, name, "tasks/{taskId}/pushNotificationConfigs/{configId}")
	}
	return taskID, id, nil
}
