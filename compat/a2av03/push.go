package a2av03

import (
	"encoding/json"
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// PushContentType is the media type of a v0.3 push notification body, as
// the official SDKs' v0.3 lines send it.
const PushContentType = "application/json"

// PushPayload writes the body of a push notification to a webhook config
// registered through A2A v0.3 (tasks/pushNotificationConfig/set, its REST
// and gRPC forms, or inline in a v0.3 message/send or message/stream): the
// Task in its v0.3 JSON shape ("kind": "task", lower-case states), which is
// what a v0.3 receiver reads — the official Go SDK's v0.3 line posts the
// whole task after every change, and the v0.3 specification's push example
// posts the task. The outbox queues such configs the task as written, once
// per task write (store.TaskPayload); status and artifact updates are not
// posted to them as events of their own, since a receiver built on the Go
// SDK's v0.3 line decodes every body as a Task. An event that is not a task
// (a delivery queued before the config was registered again through v0.3)
// is written as the v0.3 object of its kind.
//
// Its signature is push.PayloadEncoder's: give it to the sender with
// push.WithPayloadEncoder(a2av03.Version, a2av03.PushPayload), as
// host.Config.V03 does.
func PushPayload(event *a2av1.StreamResponse) ([]byte, string, error) {
	v, err := EventFromV1(event)
	if err != nil {
		return nil, "", err
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, "", fmt.Errorf("a2av03: writing the push notification: %w", err)
	}
	return body, PushContentType, nil
}
