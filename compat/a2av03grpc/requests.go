package a2av03grpc

import (
	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The requests. ...ToV1 read what a v0.3 client sent, strictly: a resource
// name of the wrong form is InvalidParams naming its field. ...FromV1 write
// what a v1.0 caller asked for; the tenant has no v0.3 counterpart and is
// dropped (the interface's applies).

// SendRequestToV1 converts SendMessage's request. A configuration's blocking
// false is returnImmediately (as the official SDKs read it); no configuration
// is the default, blocking. history_length 0 is unset.
func SendRequestToV1(r *a2av03pb.SendMessageRequest) *a2av1.SendMessageRequest {
	msg := MessageToV1(r.GetRequest())
	out := &a2av1.SendMessageRequest{Message: msg, Metadata: r.GetMetadata()}
	if c := r.GetConfiguration(); c != nil {
		out.Configuration = &a2av1.SendMessageConfiguration{AcceptedOutputModes: c.GetAcceptedOutputModes(),
			ReturnImmediately:          !c.GetBlocking(),
			TaskPushNotificationConfig: PushNotificationConfigToV1(msg.GetTaskId(), c.GetPushNotification())}
		if h := c.GetHistoryLength(); h > 0 {
			out.Configuration.HistoryLength = &h
		}
	}
	return out
}

// SendRequestFromV1 converts SendMessage's request.
func SendRequestFromV1(r *a2av1.SendMessageRequest) *a2av03pb.SendMessageRequest {
	out := &a2av03pb.SendMessageRequest{Request: MessageFromV1(r.GetMessage()), Metadata: r.GetMetadata()}
	if c := r.GetConfiguration(); c != nil {
		out.Configuration = &a2av03pb.SendMessageConfiguration{AcceptedOutputModes: c.GetAcceptedOutputModes(),
			Blocking: !c.GetReturnImmediately(), HistoryLength: c.GetHistoryLength(),
			PushNotification: PushNotificationConfigFromV1(c.GetTaskPushNotificationConfig())}
	}
	return out
}

// GetTaskRequestToV1 converts GetTask's request.
func GetTaskRequestToV1(r *a2av03pb.GetTaskRequest) (*a2av1.GetTaskRequest, error) {
	id, err := ParseTaskName(r.GetName(), "name")
	if err != nil {
		return nil, err
	}
	out := &a2av1.GetTaskRequest{Id: id}
	if h := r.GetHistoryLength(); h > 0 {
		out.HistoryLength = &h
	}
	return out, nil
}

// GetTaskRequestFromV1 converts GetTask's request.
func GetTaskRequestFromV1(r *a2av1.GetTaskRequest) *a2av03pb.GetTaskRequest {
	return &a2av03pb.GetTaskRequest{Name: TaskName(r.GetId()), HistoryLength: r.GetHistoryLength()}
}

// CancelTaskRequestToV1 converts CancelTask's request.
func CancelTaskRequestToV1(r *a2av03pb.CancelTaskRequest) (*a2av1.CancelTaskRequest, error) {
	id, err := ParseTaskName(r.GetName(), "name")
	if err != nil {
		return nil, err
	}
	return &a2av1.CancelTaskRequest{Id: id}, nil
}

// CancelTaskRequestFromV1 converts CancelTask's request; its metadata has
// no v0.3 field (Lossy).
func CancelTaskRequestFromV1(r *a2av1.CancelTaskRequest) *a2av03pb.CancelTaskRequest {
	return &a2av03pb.CancelTaskRequest{Name: TaskName(r.GetId())}
}

// SubscribeRequestToV1 converts TaskSubscription's request (v1.0
// SubscribeToTask).
func SubscribeRequestToV1(r *a2av03pb.TaskSubscriptionRequest) (*a2av1.SubscribeToTaskRequest, error) {
	id, err := ParseTaskName(r.GetName(), "name")
	if err != nil {
		return nil, err
	}
	return &a2av1.SubscribeToTaskRequest{Id: id}, nil
}

// SubscribeRequestFromV1 converts SubscribeToTask's request.
func SubscribeRequestFromV1(r *a2av1.SubscribeToTaskRequest) *a2av03pb.TaskSubscriptionRequest {
	return &a2av03pb.TaskSubscriptionRequest{Name: TaskName(r.GetId())}
}

// CreatePushConfigRequestToV1 converts CreateTaskPushNotificationConfig's
// request: the task is parent's; the config id is config_id, else the
// config's own id. A config name naming another task is InvalidParams.
func CreatePushConfigRequestToV1(r *a2av03pb.CreateTaskPushNotificationConfigRequest) (*a2av1.TaskPushNotificationConfig, error) {
	taskID, err := ParseTaskName(r.GetParent(), "parent")
	if err != nil {
		return nil, err
	}
	if t, _ := splitConfigName(r.GetConfig().GetName()); t != "" && t != taskID {
		desc := "names task " + t + ", the parent is task " + taskID
		return nil, runtime.InvalidParams("config.name: "+desc, runtime.FieldViolation{Field: "config.name", Description: desc})
	}
	out := PushNotificationConfigToV1(taskID, r.GetConfig().GetPushNotificationConfig())
	if out == nil {
		out = &a2av1.TaskPushNotificationConfig{TaskId: taskID}
	}
	if id := r.GetConfigId(); id != "" {
		out.Id = id
	}
	return out, nil
}

// CreatePushConfigRequestFromV1 converts CreateTaskPushNotificationConfig's
// request.
func CreatePushConfigRequestFromV1(c *a2av1.TaskPushNotificationConfig) *a2av03pb.CreateTaskPushNotificationConfigRequest {
	return &a2av03pb.CreateTaskPushNotificationConfigRequest{Parent: TaskName(c.GetTaskId()), ConfigId: c.GetId(),
		Config: TaskPushConfigFromV1(c)}
}

// GetPushConfigRequestToV1 converts GetTaskPushNotificationConfig's request.
func GetPushConfigRequestToV1(r *a2av03pb.GetTaskPushNotificationConfigRequest) (*a2av1.GetTaskPushNotificationConfigRequest, error) {
	taskID, id, err := ParsePushConfigName(r.GetName(), "name")
	if err != nil {
		return nil, err
	}
	return &a2av1.GetTaskPushNotificationConfigRequest{TaskId: taskID, Id: id}, nil
}

// GetPushConfigRequestFromV1 converts GetTaskPushNotificationConfig's request.
func GetPushConfigRequestFromV1(r *a2av1.GetTaskPushNotificationConfigRequest) *a2av03pb.GetTaskPushNotificationConfigRequest {
	return &a2av03pb.GetTaskPushNotificationConfigRequest{Name: PushConfigName(r.GetTaskId(), r.GetId())}
}

// DeletePushConfigRequestToV1 converts DeleteTaskPushNotificationConfig's request.
func DeletePushConfigRequestToV1(r *a2av03pb.DeleteTaskPushNotificationConfigRequest) (*a2av1.DeleteTaskPushNotificationConfigRequest, error) {
	taskID, id, err := ParsePushConfigName(r.GetName(), "name")
	if err != nil {
		return nil, err
	}
	return &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: taskID, Id: id}, nil
}

// DeletePushConfigRequestFromV1 converts DeleteTaskPushNotificationConfig's request.
func DeletePushConfigRequestFromV1(r *a2av1.DeleteTaskPushNotificationConfigRequest) *a2av03pb.DeleteTaskPushNotificationConfigRequest {
	return &a2av03pb.DeleteTaskPushNotificationConfigRequest{Name: PushConfigName(r.GetTaskId(), r.GetId())}
}

// ListPushConfigsRequestToV1 converts ListTaskPushNotificationConfig's
// request (v1.0 ListTaskPushNotificationConfigs).
func ListPushConfigsRequestToV1(r *a2av03pb.ListTaskPushNotificationConfigRequest) (*a2av1.ListTaskPushNotificationConfigsRequest, error) {
	taskID, err := ParseTaskName(r.GetParent(), "parent")
	if err != nil {
		return nil, err
	}
	return &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: taskID, PageSize: r.GetPageSize(), PageToken: r.GetPageToken()}, nil
}

// ListPushConfigsRequestFromV1 converts ListTaskPushNotificationConfigs' request.
func ListPushConfigsRequestFromV1(r *a2av1.ListTaskPushNotificationConfigsRequest) *a2av03pb.ListTaskPushNotificationConfigRequest {
	return &a2av03pb.ListTaskPushNotificationConfigRequest{Parent: TaskName(r.GetTaskId()), PageSize: r.GetPageSize(), PageToken: r.GetPageToken()}
}

// ListPushConfigsResponseToV1 converts the list of push configs.
func ListPushConfigsResponseToV1(r *a2av03pb.ListTaskPushNotificationConfigResponse) *a2av1.ListTaskPushNotificationConfigsResponse {
	return &a2av1.ListTaskPushNotificationConfigsResponse{Configs: convertAll(r.GetConfigs(), TaskPushConfigToV1), NextPageToken: r.GetNextPageToken()}
}

// ListPushConfigsResponseFromV1 converts the list of push configs.
func ListPushConfigsResponseFromV1(r *a2av1.ListTaskPushNotificationConfigsResponse) *a2av03pb.ListTaskPushNotificationConfigResponse {
	return &a2av03pb.ListTaskPushNotificationConfigResponse{Configs: convertAll(r.GetConfigs(), TaskPushConfigFromV1), NextPageToken: r.GetNextPageToken()}
}
