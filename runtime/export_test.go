package runtime

import (
	"reflect"

	"google.golang.org/protobuf/proto"
)

// EncodeProtoJSON exposes the bindings' JSON encoder to the external tests.
var EncodeProtoJSON = encodeProtoJSON

// DecodeProtoJSON exposes the bindings' JSON decoder, and
// UnmarshalWithProtojson the protojson path it must agree with.
var (
	DecodeProtoJSON        = decodeProtoJSON
	UnmarshalWithProtojson = unmarshalWithProtojson
)

// HasGoLayout reports whether the decoder can fill m's Go type itself.
func HasGoLayout(m proto.Message) bool {
	return typeInfoOf(m.ProtoReflect().Descriptor()).layoutOf(reflect.TypeOf(m)) != nil
}

// StreamPosition exposes streamPosition to the tests of this package.
var StreamPosition = streamPosition
