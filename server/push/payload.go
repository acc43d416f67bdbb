package push

import (
	"errors"
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// PayloadEncoder writes the body of a notification for a webhook config
// registered through another protocol version than the server's own, and
// names its media type. event is what the outbox queued for the config: for
// a version that wants the task (store.TaskPayload, every version before
// 1.0) a StreamResponse whose Task is the task as written, else the event.
type PayloadEncoder func(event *a2av1.StreamResponse) (body []byte, contentType string, err error)

// WithPayloadEncoder makes the sender post the notifications of configs
// registered through protocol version version (Major.Minor, "0.3") with
// enc. Compatibility layers register theirs: compat/a2av03.PushPayload
// posts the v0.3 Task JSON, which is what host.Config.V03 adds. A
// notification whose version has no encoder (v1.0, an unrecorded version)
// is posted as its StreamResponse in ProtoJSON, as ContentType. A later
// option for the same version replaces an earlier one; a nil enc removes
// it.
func WithPayloadEncoder(version string, enc PayloadEncoder) Option {
	return func(c *config) {
		v, ok := runtime.ParseVersion(version)
		if !ok {
			v = version
		}
		if enc == nil {
			delete(c.encoders, v)
			return
		}
		if c.encoders == nil {
			c.encoders = make(map[string]PayloadEncoder)
		}
		c.encoders[v] = enc
	}
}

// encode is the body and media type of n in the form of its config's
// protocol version.
func (s *Sender) encode(n Notification) ([]byte, string, error) {
	if enc := s.cfg.encoders[n.ProtocolVersion]; enc != nil {
		body, ct, err := enc(n.Event)
		if err != nil {
			return nil, "", fmt.Errorf("push: encoding the notification for A2A %s: %w", n.ProtocolVersion, err)
		}
		if ct == "" {
			ct = ContentType
		}
		return body, ct, nil
	}
	event, unknown := viewOf(n)
	if unknown {
		return nil, "", errUnknownToVersion
	}
	body, err := runtime.MarshalJSON(event)
	if err != nil {
		return nil, "", fmt.Errorf("push: encoding the event: %w", err)
	}
	return body, ContentType, nil
}

// errUnknownToVersion: the event is of a kind the config's protocol version
// does not know (a stream case introduced after it), so there is nothing to
// post to it; the delivery is done.
var errUnknownToVersion = errors.New("push: the event is of a kind the config's protocol version does not know")

// viewOf is n's event as the protocol version its config was registered
// through knows it: a config registered by a call of an older version than
// a2a/v1's newest (A2A 1.0, or a call that named no version) never receives
// a field or enum value its version lacks, as the bindings' version views
// do for answers and stream events (runtime.VersionTable). unknown reports
// an event whose kind that version lacks altogether.
func viewOf(n Notification) (event *a2av1.StreamResponse, unknown bool) {
	v := n.ProtocolVersion
	if v == "" && len(a2av1.A2AVersions.Versions) > 0 {
		v = a2av1.A2AVersions.Versions[0]
	}
	m, drop := a2av1.A2AVersions.View(n.Event, v)
	if drop {
		return nil, true
	}
	return m.(*a2av1.StreamResponse), false
}
