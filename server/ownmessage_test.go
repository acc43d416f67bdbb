package server

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestOwnMessageKeepsEveryField: the task's copy of a request's message
// (ownMessage) has every field of the message — set here through
// reflection, so that a field a later proto adds fails this test until
// ownMessage copies it — and the task's ids, and the original is not
// touched.
func TestOwnMessageKeepsEveryField(t *testing.T) {
	msg := &a2av1.Message{}
	m := msg.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := m.Mutable(fd).List()
			l.Append(l.NewElement())
		case fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfString("x"))
		case fd.Kind() == protoreflect.MessageKind:
			m.Mutable(fd)
		case fd.Kind() == protoreflect.EnumKind:
			m.Set(fd, protoreflect.ValueOfEnum(1))
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString("set-"+string(fd.Name())))
		default:
			t.Fatalf("field %s of kind %v: teach this test (and check ownMessage copies it)", fd.Name(), fd.Kind())
		}
	}
	m.SetUnknown(protoreflect.RawFields{0xa8, 0x1f, 0x01}) // field 500, varint 1
	before := proto.Clone(msg)

	var own a2av1.Message
	got := ownMessage(&own, msg, "task-1", "ctx-1")
	if !proto.Equal(msg, before) {
		t.Fatalf("ownMessage changed its input: %v", msg)
	}
	want := proto.CloneOf(msg)
	want.TaskId, want.ContextId = "task-1", "ctx-1"
	if !proto.Equal(got, want) {
		t.Fatalf("ownMessage:\n got %v\nwant %v", got, want)
	}
}
