package runtime

// EncodeProtoJSON exposes the bindings' JSON encoder to the external tests.
var EncodeProtoJSON = encodeProtoJSON

// DecodeProtoJSON exposes the bindings' JSON decoder, and
// UnmarshalWithProtojson the protojson path it must agree with.
var (
	DecodeProtoJSON        = decodeProtoJSON
	UnmarshalWithProtojson = unmarshalWithProtojson
)
