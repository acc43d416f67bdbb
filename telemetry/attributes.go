package telemetry

import (
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// The A2A attributes of spans and metrics. OpenTelemetry's semantic
// conventions have no A2A namespace; these follow their naming rules
// (namespaces separated by dots, snake_case words, ids as <thing>.id).
const (
	// AttrTaskID is the task a call is about: from the request (its task
	// id, or the task of its message), else from the response.
	AttrTaskID = attribute.Key("a2a.task.id")
	// AttrContextID is the context of that task or message.
	AttrContextID = attribute.Key("a2a.context.id")
	// AttrTenant is the call's tenant, when it has one.
	AttrTenant = attribute.Key("a2a.tenant")
	// AttrBinding is the protocol binding as agent cards name it:
	// JSONRPC, HTTP+JSON or GRPC.
	AttrBinding = attribute.Key("a2a.protocol.binding")
	// AttrVersion is the negotiated A2A protocol version (Major.Minor).
	AttrVersion = attribute.Key("a2a.protocol.version")
	// AttrTaskState is a task state, lowercase without its prefix:
	// submitted, working, completed, …
	AttrTaskState = attribute.Key("a2a.task.state")
	// AttrPreviousTaskState is the state a transition left ("none" for a
	// new task).
	AttrPreviousTaskState = attribute.Key("a2a.task.previous_state")
	// AttrEventKind is the kind of a stream event: task, message,
	// status_update or artifact_update.
	AttrEventKind = attribute.Key("a2a.event.kind")
	// AttrEventIndex numbers the events of a stream from 0.
	AttrEventIndex = attribute.Key("a2a.event.index")
	// AttrArtifactID is the artifact of an artifact update.
	AttrArtifactID = attribute.Key("a2a.artifact.id")
	// AttrStreamEvents is the number of events a stream carried.
	AttrStreamEvents = attribute.Key("a2a.stream.events")
	// AttrStreamRequests is the number of requests of a call whose client
	// streams them (SendLiveMessage): received on the server, sent on the
	// client.
	AttrStreamRequests = attribute.Key("a2a.stream.requests")
	// AttrRequestIndex numbers the requests of such a call from 0.
	AttrRequestIndex = attribute.Key("a2a.request.index")
	// AttrPushConfigID, AttrPushDeliveryID and AttrPushAttempt describe a
	// webhook delivery attempt: its config, its stable delivery id (the
	// X-A2A-Notification-Id header) and its number (1 for the first).
	AttrPushConfigID   = attribute.Key("a2a.push.config.id")
	AttrPushDeliveryID = attribute.Key("a2a.push.delivery.id")
	AttrPushAttempt    = attribute.Key("a2a.push.attempt")
)

// requestIDs returns the task and context ids an A2A request names.
func requestIDs(req proto.Message) (taskID, contextID string) {
	switch r := req.(type) {
	case *a2av1.SendMessageRequest:
		return r.GetMessage().GetTaskId(), r.GetMessage().GetContextId()
	case *a2av1.GetTaskRequest:
		return r.GetId(), ""
	case *a2av1.CancelTaskRequest:
		return r.GetId(), ""
	case *a2av1.SubscribeToTaskRequest:
		return r.GetId(), ""
	case *a2av1.ListTasksRequest:
		return "", r.GetContextId()
	case *a2av1.TaskPushNotificationConfig:
		return r.GetTaskId(), ""
	case *a2av1.GetTaskPushNotificationConfigRequest:
		return r.GetTaskId(), ""
	case *a2av1.ListTaskPushNotificationConfigsRequest:
		return r.GetTaskId(), ""
	case *a2av1.DeleteTaskPushNotificationConfigRequest:
		return r.GetTaskId(), ""
	case *a2av1.StreamRequest:
		if u := r.GetArtifactUpdate(); u != nil {
			return u.GetTaskId(), u.GetContextId()
		}
		return r.GetMessage().GetTaskId(), r.GetMessage().GetContextId()
	}
	return "", ""
}

// responseIDs returns the task and context ids of an A2A response or
// stream event.
func responseIDs(resp proto.Message) (taskID, contextID string) {
	switch r := resp.(type) {
	case *a2av1.Task:
		return r.GetId(), r.GetContextId()
	case *a2av1.SendMessageResponse:
		if t := r.GetTask(); t != nil {
			return t.GetId(), t.GetContextId()
		}
		return r.GetMessage().GetTaskId(), r.GetMessage().GetContextId()
	case *a2av1.StreamResponse:
		switch {
		case r.GetTask() != nil:
			return r.GetTask().GetId(), r.GetTask().GetContextId()
		case r.GetStatusUpdate() != nil:
			return r.GetStatusUpdate().GetTaskId(), r.GetStatusUpdate().GetContextId()
		case r.GetArtifactUpdate() != nil:
			return r.GetArtifactUpdate().GetTaskId(), r.GetArtifactUpdate().GetContextId()
		default:
			return r.GetMessage().GetTaskId(), r.GetMessage().GetContextId()
		}
	case *a2av1.Message:
		return r.GetTaskId(), r.GetContextId()
	case *a2av1.TaskPushNotificationConfig:
		return r.GetTaskId(), ""
	}
	return "", ""
}

// eventAttrs describes a stream event for a span event.
func eventAttrs(m proto.Message, index int) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, AttrEventIndex.Int(index))
	ev, ok := m.(*a2av1.StreamResponse)
	if !ok {
		return attrs
	}
	switch {
	case ev.GetStatusUpdate() != nil:
		attrs = append(attrs, AttrEventKind.String("status_update"), AttrTaskState.String(stateName(ev.GetStatusUpdate().GetStatus().GetState())))
	case ev.GetArtifactUpdate() != nil:
		attrs = append(attrs, AttrEventKind.String("artifact_update"), AttrArtifactID.String(ev.GetArtifactUpdate().GetArtifact().GetArtifactId()))
	case ev.GetTask() != nil:
		attrs = append(attrs, AttrEventKind.String("task"), AttrTaskState.String(stateName(ev.GetTask().GetStatus().GetState())))
	case ev.GetMessage() != nil:
		attrs = append(attrs, AttrEventKind.String("message"))
	}
	return attrs
}

// stateNames are the task states as attribute values.
var stateNames = func() map[a2av1.TaskState]string {
	m := make(map[a2av1.TaskState]string, len(a2av1.TaskState_name))
	for v, name := range a2av1.TaskState_name {
		m[a2av1.TaskState(v)] = strings.ToLower(strings.TrimPrefix(name, "TASK_STATE_"))
	}
	m[a2av1.TaskState_TASK_STATE_UNSPECIFIED] = "none"
	return m
}()

// stateName is s as an attribute value: "completed" for
// TASK_STATE_COMPLETED, "none" for TASK_STATE_UNSPECIFIED.
func stateName(s a2av1.TaskState) string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return "unknown"
}
