package store

import (
	"strings"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// PushConfig is a webhook config as a store keeps it: the v1.0 message and
// the protocol version of the request that registered it. It is the shape
// A2A PR #2153 proposes for TaskPushNotificationConfig.protocol_version
// (defaulting to the version of the request that created the config); the
// bundled v1.0 proto has no such field, so the version is kept next to the
// message, never in it, and never reaches the v1.0 wire.
type PushConfig struct {
	*a2av1.TaskPushNotificationConfig
	// ProtocolVersion is the A2A version (Major.Minor, "0.3", "1.0") of
	// the request that registered the config: CreateTaskPushNotificationConfig
	// or the SendMessage that carried it inline. It decides the form of
	// the config's deliveries (TaskPayload). Empty: unknown (a config
	// stored before versions were recorded, or a call made without a
	// binding), which is delivered in the v1.0 form.
	ProtocolVersion string
}

// TaskPayload reports whether deliveries to a config registered through
// protocol version v carry the task itself rather than its events: true for
// versions before 1.0. A2A v0.3 leaves the notification body loosely
// defined, and the official SDKs' v0.3 lines post the Task (the Go SDK
// v0.3.x posts the whole task after every change), which is what a v0.3
// receiver reads. Such a config gets one delivery per task write, whose
// Event is a StreamResponse with the task as written (its Task field), in
// place of one delivery per event; its id is that of the write's last
// event (DeliveryID). Configs of v1.0 and later get every event.
func TaskPayload(v string) bool { return strings.HasPrefix(v, "0.") }

// taskEvent is the payload of a TaskPayload delivery: the task as written.
func taskEvent(t *a2av1.Task) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: t}}
}

// UnmarshalDeliveryEvent decodes the payload a store keeps in binary form
// for a delivery queued for protocol version v: for a version that wants
// the task (TaskPayload) the stored bytes are the Task as written (the SQL
// stores queue the snapshot they already hold), which is returned as the
// Task of a StreamResponse; otherwise they are the StreamResponse.
func UnmarshalDeliveryEvent(v string, b []byte) (*a2av1.StreamResponse, error) {
	if TaskPayload(v) {
		t := new(a2av1.Task)
		if err := proto.Unmarshal(b, t); err != nil {
			return nil, err
		}
		return taskEvent(t), nil
	}
	ev := new(a2av1.StreamResponse)
	if err := proto.Unmarshal(b, ev); err != nil {
		return nil, err
	}
	return ev, nil
}
