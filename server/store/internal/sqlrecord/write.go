package sqlrecord

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Creation is a new task as both SQL stores write it: checked, its record
// as the store returns it and its row, configs and events encoded.
type Creation struct {
	// Record is the task's first record: version 1, its first generation,
	// no runner when the task is created ended.
	Record store.Record
	Row    TaskRow
	// Configs are the task's push configs by id, the last of a repeated id
	// winning.
	Configs Configs
	// Events are encoded only when the task has push configs: deliveries
	// are all a creation writes of its events.
	Events [][]byte
}

// Configs are push configs encoded as parallel lists, as the stores'
// statements take them.
type Configs struct {
	IDs      []string
	Blobs    [][]byte
	Versions []string // the configs' protocol versions
}

// EncodeCreation checks a creation and encodes what it writes. The errors
// of encoding name the store (n).
func (n Names) EncodeCreation(c store.Creation) (Creation, error) {
	rec := c.Record
	if err := store.CheckSnapshot(rec.Task); err != nil {
		return Creation{}, err
	}
	if err := store.CheckCreation(c); err != nil {
		return Creation{}, err
	}
	id := rec.Task.GetId()
	row, err := EncodeTask(rec.Task)
	if err != nil {
		return Creation{}, fmt.Errorf("%s: %w", n, err)
	}
	rec.Version, rec.Generation = 1, store.FirstGeneration(rec.Generation)
	if row.Terminal {
		rec.Runner, rec.LeaseUntil = "", time.Time{}
	}
	cfgs, err := n.encodeConfigs(id, c.PushConfigs)
	if err != nil {
		return Creation{}, err
	}
	var events [][]byte
	if len(cfgs.IDs) > 0 {
		if events, err = EncodeEvents(c.Events); err != nil {
			return Creation{}, fmt.Errorf("%s: task %q: %w", n, id, err)
		}
	}
	return Creation{Record: rec, Row: row, Configs: cfgs, Events: events}, nil
}

// encodeConfigs encodes the push configs of new task id.
func (n Names) encodeConfigs(id string, configs []store.PushConfig) (Configs, error) {
	var out Configs
	seen := make(map[string]int, len(configs))
	for _, cfg := range configs {
		if cfg.GetId() == "" || cfg.GetTaskId() != id {
			return Configs{}, fmt.Errorf("store: push config %q of new task %q must have an id and the task's id (got %q)", cfg.GetId(), id, cfg.GetTaskId())
		}
		b, err := proto.Marshal(cfg.TaskPushNotificationConfig)
		if err != nil {
			return Configs{}, fmt.Errorf("%s: encoding push config %q: %w", n, cfg.GetId(), err)
		}
		if i, ok := seen[cfg.GetId()]; ok {
			out.Blobs[i], out.Versions[i] = b, cfg.ProtocolVersion
			continue
		}
		seen[cfg.GetId()] = len(out.IDs)
		out.IDs = append(out.IDs, cfg.GetId())
		out.Blobs = append(out.Blobs, b)
		out.Versions = append(out.Versions, cfg.ProtocolVersion)
	}
	return out, nil
}

// EncodeUpdate checks an update and encodes the task's row and the events.
// The errors of encoding name the store (n).
func (n Names) EncodeUpdate(u store.Update) (TaskRow, [][]byte, error) {
	if err := store.CheckSnapshot(u.Task); err != nil {
		return TaskRow{}, nil, err
	}
	if err := store.CheckUpdate(u); err != nil {
		return TaskRow{}, nil, err
	}
	// The stored state is not terminal (the write checks that), so only the
	// new state decides whether the transition is valid.
	if err := store.ValidTransition(a2av1.TaskState_TASK_STATE_WORKING, u.Task.GetStatus().GetState()); err != nil {
		return TaskRow{}, nil, err
	}
	row, err := EncodeTask(u.Task)
	if err != nil {
		return TaskRow{}, nil, fmt.Errorf("%s: %w", n, err)
	}
	events, err := EncodeEvents(u.Events)
	if err != nil {
		return TaskRow{}, nil, fmt.Errorf("%s: task %q: %w", n, u.Task.GetId(), err)
	}
	return row, events, nil
}
