package runtime

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A stream event's position (A2A 1.1, resumable streams): the task it is
// about and the generation the task reached with it. A2A's StreamResponse
// holds one payload in a oneof; a Task, a TaskStatusUpdateEvent and a
// TaskArtifactUpdateEvent carry a generation (1.1) and their task's id
// (id, task_id), a Message carries neither. The runtime finds both by
// these field names in the descriptors, so that it stays type-agnostic:
// the SSE writer turns the generation into the event's id (sse_stream.go),
// and a client resuming a broken stream names it (client_resume.go).
//
// Every event of a stream is read, so the reading is laid out once per Go
// type (positionPlan) on its protoc-gen-go struct, as version views are
// (version_layout.go): where each oneof's interface lies, the wrapper type
// of each of its message cases, where those messages hold their generation
// and task id. An event then costs a few loads and compares, where
// protoreflect's WhichOneof and Get cost about 1,700 instructions. Messages
// whose layout this does not know (dynamicpb) are read through protoreflect.

// streamPosition returns the task id and generation of a stream event, ok
// false when it has no generation (a Message, a 1.0 view of an event, a
// message of another shape).
func streamPosition(m proto.Message) (taskID string, generation int64, ok bool) {
	if m == nil {
		return "", 0, false
	}
	plan := positionPlanOf(m)
	if plan.reflective {
		return reflectivePosition(m)
	}
	return plan.read((*ifaceWords)(unsafe.Pointer(&m)).data)
}

// positionPlan is where the events of one protoc-gen-go type *T hold their
// position: in the message one of its oneofs holds (the first oneof, in
// declaration order, holding a message), else in the event itself.
type positionPlan struct {
	goType     reflect.Type
	reflective bool           // a layout this does not know: read through protoreflect
	cases      []positionCase // the message cases of the oneofs, oneof by oneof
	self       positionSlots
}

// positionCase is one message case of a oneof: the offset of the oneof's
// interface in the event, the runtime type of the case's wrapper (*W,
// whose first field, at offset 0, points to the message) and where the
// message holds its position.
type positionCase struct {
	oneof   uintptr
	wrapper unsafe.Pointer
	slots   positionSlots
}

// positionSlots are the offsets of a message's int64 generation (has:
// false when its type has none) and of its task id string (hasTaskID).
type positionSlots struct {
	has, hasTaskID     bool
	generation, taskID uintptr
}

// read returns the position of the event at x, a *T of the plan's type.
func (p *positionPlan) read(x unsafe.Pointer) (string, int64, bool) {
	if x == nil {
		return "", 0, false
	}
	for i := range p.cases {
		c := &p.cases[i]
		w := (*ifaceWords)(unsafe.Add(x, c.oneof))
		if w.tab != nil && w.tab.typ == c.wrapper && w.data != nil {
			return c.slots.read(*(*unsafe.Pointer)(w.data))
		}
	}
	return p.self.read(x)
}

// read returns the position of the message at x (nil: none).
func (s positionSlots) read(x unsafe.Pointer) (string, int64, bool) {
	if !s.has || x == nil {
		return "", 0, false
	}
	generation := *(*int64)(unsafe.Add(x, s.generation))
	if generation <= 0 {
		return "", 0, false
	}
	var taskID string
	if s.hasTaskID {
		taskID = *(*string)(unsafe.Add(x, s.taskID))
	}
	return taskID, generation, true
}

// The plans by Go type, and the one used last (most programs stream one
// type of event: a lookup without hashing).
var (
	positionPlans    sync.Map // reflect.Type → *positionPlan
	lastPositionPlan atomic.Pointer[positionPlan]
)

// positionPlanOf returns the plan of m's Go type.
func positionPlanOf(m proto.Message) *positionPlan {
	t := reflect.TypeOf(m)
	if p := lastPositionPlan.Load(); p != nil && p.goType == t {
		return p
	}
	p, ok := positionPlans.Load(t)
	if !ok {
		p, _ = positionPlans.LoadOrStore(t, newPositionPlan(t, m.ProtoReflect().Descriptor()))
	}
	plan := p.(*positionPlan)
	lastPositionPlan.Store(plan)
	return plan
}

// newPositionPlan lays out the plan of Go type t, of message type d.
func newPositionPlan(t reflect.Type, d protoreflect.MessageDescriptor) *positionPlan {
	reflective := &positionPlan{goType: t, reflective: true}
	if !generatedStruct(t) { // one Go type per message type, unlike dynamicpb's
		return reflective
	}
	fields := newStructFields(t.Elem())
	self, ok := positionSlotsOf(fields, d)
	if !ok {
		return reflective
	}
	p := &positionPlan{goType: t, self: self}
	oneofs := d.Oneofs()
	for i := range oneofs.Len() {
		if oneofs.Get(i).IsSynthetic() {
			continue
		}
		cases := oneofs.Get(i).Fields()
		for j := range cases.Len() {
			fd := cases.Get(j)
			if fd.Kind() != protoreflect.MessageKind {
				continue
			}
			c, ok := positionCaseOf(fields, fd)
			if !ok {
				return reflective
			}
			p.cases = append(p.cases, c)
		}
	}
	return p
}

// positionCaseOf lays out fd, a message case of a oneof of the struct
// fields.
func positionCaseOf(fields structFields, fd protoreflect.FieldDescriptor) (positionCase, bool) {
	slot, ok := fields.slotOf(fd)
	if !ok || slot.hold != heldOneofCase || slot.wrapper.Elem().Field(0).Type.Kind() != reflect.Pointer {
		return positionCase{}, false
	}
	mt := slot.wrapper.Elem().Field(0).Type
	if !generatedStruct(mt) {
		return positionCase{}, false
	}
	slots, ok := positionSlotsOf(newStructFields(mt.Elem()), fd.Message())
	return positionCase{oneof: slot.offset, wrapper: slot.wrapperType, slots: slots}, ok
}

// positionSlotsOf lays out where the messages of type d, with the struct
// fields, hold their position; ok is false when a field is not held as a
// plain int64 or string.
func positionSlotsOf(fields structFields, d protoreflect.MessageDescriptor) (positionSlots, bool) {
	pf := positionFieldsOf(d)
	if pf.generation == nil {
		return positionSlots{}, true
	}
	gen, ok := fields.slotOf(pf.generation)
	if !ok || gen.hold != heldScalar || gen.goType.Kind() != reflect.Int64 {
		return positionSlots{}, false
	}
	s := positionSlots{has: true, generation: gen.offset}
	if pf.taskID != nil {
		id, ok := fields.slotOf(pf.taskID)
		if !ok || id.hold != heldString {
			return positionSlots{}, false
		}
		s.hasTaskID, s.taskID = true, id.offset
	}
	return s, true
}

// positionFields are the fields of a message type that hold a position:
// its generation (nil: the type has none) and its task's id (nil: none).
type positionFields struct {
	generation, taskID protoreflect.FieldDescriptor
}

// positionFieldsOf returns where messages of type d hold their position:
// an int64 generation, and the task_id or else id string field.
func positionFieldsOf(d protoreflect.MessageDescriptor) positionFields {
	var pf positionFields
	fields := d.Fields()
	gen := fields.ByName("generation")
	if gen == nil || gen.Kind() != protoreflect.Int64Kind || gen.Cardinality() == protoreflect.Repeated {
		return pf
	}
	pf.generation = gen
	for _, name := range []protoreflect.Name{"task_id", "id"} {
		if f := fields.ByName(name); f != nil && f.Kind() == protoreflect.StringKind && f.Cardinality() != protoreflect.Repeated {
			pf.taskID = f
			break
		}
	}
	return pf
}

// reflectivePosition is streamPosition through protoreflect, for messages
// whose layout positionPlan does not know.
func reflectivePosition(m proto.Message) (string, int64, bool) {
	r := m.ProtoReflect()
	if !r.IsValid() {
		return "", 0, false
	}
	payload := positionPayload(r)
	pf := positionFieldsOf(payload.Descriptor())
	if pf.generation == nil {
		return "", 0, false
	}
	generation := payload.Get(pf.generation).Int()
	if generation <= 0 {
		return "", 0, false
	}
	var taskID string
	if pf.taskID != nil {
		taskID = payload.Get(pf.taskID).String()
	}
	return taskID, generation, true
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
