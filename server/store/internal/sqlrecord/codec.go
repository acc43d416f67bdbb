package sqlrecord

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TaskRow is what a write stores about a task besides its keys.
type TaskRow struct {
	ContextID  string
	State      a2av1.TaskState
	StatusTime int64 // unix nanoseconds (Nanos)
	Snapshot   []byte
	Terminal   bool
}

// EncodeTask is the row of a task snapshot.
func EncodeTask(t *a2av1.Task) (TaskRow, error) {
	b, err := proto.Marshal(t)
	if err != nil {
		return TaskRow{}, fmt.Errorf("encoding task %q: %w", t.GetId(), err)
	}
	state := t.GetStatus().GetState()
	return TaskRow{ContextID: t.GetContextId(), State: state, StatusTime: Nanos(t.GetStatus().GetTimestamp().AsTime()),
		Snapshot: b, Terminal: store.IsTerminal(state)}, nil
}

// EncodeEvents marshals the events of a write (nil for none).
func EncodeEvents(events []*a2av1.StreamResponse) ([][]byte, error) {
	if len(events) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(events))
	for i, ev := range events {
		b, err := proto.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encoding event %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

// DecodeTask is the snapshot of task id stored as blob, in a row at
// generation (the generation column). A snapshot without a generation —
// written before the stores kept one — is given the row's, so that a
// server's next change counts on from the number the store counts from.
func (n Names) DecodeTask(id string, generation int64, blob []byte) (*a2av1.Task, error) {
	t := new(a2av1.Task)
	if err := proto.Unmarshal(blob, t); err != nil {
		return nil, fmt.Errorf("%s: decoding task %q: %w", n, id, err)
	}
	if t.Generation == 0 {
		t.Generation = generation
	}
	return t, nil
}

// DecodeConfig is the push config stored as blob.
func (n Names) DecodeConfig(blob []byte) (*a2av1.TaskPushNotificationConfig, error) {
	cfg := new(a2av1.TaskPushNotificationConfig)
	if err := proto.Unmarshal(blob, cfg); err != nil {
		return nil, fmt.Errorf("%s: decoding a push config: %w", n, err)
	}
	return cfg, nil
}

// DecodeEvent is a logged event of task id stored as blob.
func (n Names) DecodeEvent(id string, blob []byte) (*a2av1.StreamResponse, error) {
	ev := new(a2av1.StreamResponse)
	if err := proto.Unmarshal(blob, ev); err != nil {
		return nil, fmt.Errorf("%s: decoding an event of task %q: %w", n, id, err)
	}
	return ev, nil
}
