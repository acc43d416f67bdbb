package runtime

// EncodeProtoJSON exposes the bindings' JSON encoder to the external tests.
var EncodeProtoJSON = encodeProtoJSON
