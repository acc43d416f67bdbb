// Package fieldbehavior reads the (google.api.field_behavior) annotations of
// proto fields from their descriptors. It is the one reader of these facts:
// protoc-gen-a2a, a2a-scaffold's card encoder and the runtime's validation and
// encoding all call it, so a field is REQUIRED in exactly one sense everywhere.
// It imports only protobuf and genproto's annotations, so the runtime may
// import it.
package fieldbehavior

import (
	"slices"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Required reports whether fd carries (google.api.field_behavior) = REQUIRED.
//
// The descriptors protoc-gen-go embeds keep every field option, and importing
// this package registers the extension, so the answer is the same for
// generated messages, dynamic ones and the descriptors a plugin receives.
func Required(fd protoreflect.FieldDescriptor) bool {
	opts := fd.Options()
	if opts == nil {
		return false
	}
	behaviors, _ := proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	return slices.Contains(behaviors, annotations.FieldBehavior_REQUIRED)
}
