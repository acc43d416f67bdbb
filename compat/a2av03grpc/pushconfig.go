package a2av03grpc

import (
	"strings"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// PushNotificationConfigToV1 converts the push config of task taskID (the
// one inline in SendMessage's configuration, or inside a
// TaskPushNotificationConfig). Only the first authentication scheme is kept:
// v1.0 has one (Lossy).
func PushNotificationConfigToV1(taskID string, c *a2av03pb.PushNotificationConfig) *a2av1.TaskPushNotificationConfig {
	if c == nil {
		return nil
	}
	out := &a2av1.TaskPushNotificationConfig{TaskId: taskID, Id: c.GetId(), Url: c.GetUrl(), Token: c.GetToken()}
	if a := c.GetAuthentication(); a != nil {
		out.Authentication = &a2av1.AuthenticationInfo{Credentials: a.GetCredentials()}
		if s := a.GetSchemes(); len(s) > 0 {
			out.Authentication.Scheme = s[0]
		}
	}
	return out
}

// PushNotificationConfigFromV1 converts a push config to the v0.3 form
// without its task (v0.3 names the task beside it).
func PushNotificationConfigFromV1(c *a2av1.TaskPushNotificationConfig) *a2av03pb.PushNotificationConfig {
	if c == nil {
		return nil
	}
	out := &a2av03pb.PushNotificationConfig{Id: c.GetId(), Url: c.GetUrl(), Token: c.GetToken()}
	if a := c.GetAuthentication(); a != nil {
		out.Authentication = &a2av03pb.AuthenticationInfo{Credentials: a.GetCredentials()}
		if a.GetScheme() != "" {
			out.Authentication.Schemes = []string{a.GetScheme()}
		}
	}
	return out
}

// TaskPushConfigToV1 converts a push config named by resource name. The
// config id is the inner config's id, else the name's last segment; the task
// is the name's. A name that is not tasks/{id}/pushNotificationConfigs/{id}
// (or tasks/{id}) leaves the task id empty.
func TaskPushConfigToV1(c *a2av03pb.TaskPushNotificationConfig) *a2av1.TaskPushNotificationConfig {
	if c == nil {
		return nil
	}
	taskID, id := splitConfigName(c.GetName())
	out := PushNotificationConfigToV1(taskID, c.GetPushNotificationConfig())
	if out == nil {
		out = &a2av1.TaskPushNotificationConfig{TaskId: taskID}
	}
	if out.Id == "" {
		out.Id = id
	}
	return out
}

// TaskPushConfigFromV1 converts a push config to its named v0.3 form.
func TaskPushConfigFromV1(c *a2av1.TaskPushNotificationConfig) *a2av03pb.TaskPushNotificationConfig {
	if c == nil {
		return nil
	}
	return &a2av03pb.TaskPushNotificationConfig{Name: PushConfigName(c.GetTaskId(), c.GetId()),
		PushNotificationConfig: PushNotificationConfigFromV1(c)}
}

// splitConfigName is the lenient reading of a config name in an answer.
func splitConfigName(name string) (taskID, id string) {
	rest, ok := strings.CutPrefix(name, tasksCollection)
	if !ok {
		return "", ""
	}
	taskID, id, _ = strings.Cut(rest, pushConfigsCollection)
	taskID, _, _ = strings.Cut(taskID, "/")
	return taskID, id
}
