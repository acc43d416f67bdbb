package runtime

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A stream event's position (A2A 1.1, resumable streams): the task it is
// about and the generation the task reached with it. A2A's StreamResponse
// holds one payload in a oneof; a Task, a TaskStatusUpdateEvent and a
// TaskArtifactUpdateEvent carry a generation (1.1) and their task's id
// (id, task_id), a Message carries neither. The runtime reads both through
// protoreflect, by these field names, so that it stays type-agnostic: the
// SSE writer turns the generation into the event's id (sse_stream.go), and
// a client resuming a broken stream names it (client_resume.go).

// streamPosition returns the task id and generation of a stream event, ok
// false when it has no generation (a Message, a 1.0 view of an event, a
// message of another shape).
func streamPosition(m proto.Message) (taskID string, generation int64, ok bool) {
	if m == nil {
		return "", 0, false
	}
	r := m.ProtoReflect()
	if !r.IsValid() {
		return "", 0, false
	}
	payload := positionPayload(r)
	if payload == nil {
		return "", 0, false
	}
	pf := positionFieldsOf(payload.Descriptor())
	if pf.generation == nil {
		return "", 0, false
	}
	generation = payload.Get(pf.generation).Int()
	if generation <= 0 {
		return "", 0, false
	}
	if pf.taskID != nil {
		taskID = payload.Get(pf.taskID).String()
	}
	return taskID, generation, true
}

// positionFields are the fields of a message type that hold a position:
// its generation (nil: the type has none) and its task's id (nil: none).
type positionFields struct {
	generation, taskID protoreflect.FieldDescriptor
}

// positionFieldsByType caches positionFieldsOf: every event of a stream
// looks its type's up (by name, in the descriptor: dearer than the cache).
var positionFieldsByType sync.Map // protoreflect.MessageDescriptor → positionFields

// positionFieldsOf returns where messages of type d hold their position:
// an int64 generation, and the task_id or else id string field.
func positionFieldsOf(d protoreflect.MessageDescriptor) positionFields {
	if v, ok := positionFieldsByType.Load(d); ok {
		return v.(positionFields)
	}
	var pf positionFields
	fields := d.Fields()
	if gen := fields.ByName("generation"); gen != nil && gen.Kind() == protoreflect.Int64Kind && gen.Cardinality() != protoreflect.Repeated {
		pf.generation = gen
		for _, name := range []protoreflect.Name{"task_id", "id"} {
			if f := fields.ByName(name); f != nil && f.Kind() == protoreflect.StringKind && f.Cardinality() != protoreflect.Repeated {
				pf.taskID = f
				break
			}
		}
	}
	positionFieldsByType.Store(d, pf)
	return pf
}

// positionPayload is the message that holds an event's position: the set
// message of the first oneof of m that has one (StreamResponse.payload),
// else m itself.
func positionPayload(r protoreflect.Message) protoreflect.Message {
	oneofs := r.Descriptor().Oneofs()
	for i := range oneofs.Len() {
		o := oneofs.Get(i)
		if o.IsSynthetic() {
			continue
		}
		f := r.WhichOneof(o)
		if f == nil || f.Kind() != protoreflect.MessageKind {
			continue
		}
		return r.Get(f).Message()
	}
	return r
}
