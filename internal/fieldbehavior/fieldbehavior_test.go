package fieldbehavior_test

import (
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/fieldbehavior"
)

// REQUIRED is found among other behaviors; a field with other behaviors only,
// or with no options, is not required.
func TestRequired(t *testing.T) {
	withBehaviors := func(b ...annotations.FieldBehavior) *descriptorpb.FieldOptions {
		o := &descriptorpb.FieldOptions{}
		proto.SetExtension(o, annotations.E_FieldBehavior, b)
		return o
	}
	field := func(name string, n int32, o *descriptorpb.FieldOptions) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{
			Name: proto.String(name), Number: proto.Int32(n), Options: o,
			Type:  descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		}
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("fb.proto"), Package: proto.String("fb"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{
			field("req", 1, withBehaviors(annotations.FieldBehavior_IMMUTABLE, annotations.FieldBehavior_REQUIRED)),
			field("out", 2, withBehaviors(annotations.FieldBehavior_OUTPUT_ONLY)),
			field("plain", 3, nil),
		}}},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	fields := fd.Messages().ByName("M").Fields()
	for name, want := range map[string]bool{"req": true, "out": false, "plain": false} {
		if got := fieldbehavior.Required(fields.ByName(protoreflect.Name(name))); got != want {
			t.Errorf("Required(%s) = %v, want %v", name, got, want)
		}
	}
}

// The descriptors protoc-gen-go embeds in a2a/v1 keep the annotations: what
// the runtime validates and encodes with at run time.
func TestRequiredInGeneratedDescriptors(t *testing.T) {
	md := (&a2av1.SendMessageRequest{}).ProtoReflect().Descriptor()
	if !fieldbehavior.Required(md.Fields().ByName("message")) {
		t.Error("SendMessageRequest.message is not REQUIRED")
	}
	if fieldbehavior.Required(md.Fields().ByName("configuration")) {
		t.Error("SendMessageRequest.configuration is REQUIRED")
	}
}
