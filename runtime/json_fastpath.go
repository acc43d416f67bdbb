//go:build !a2a_protojson

package runtime

// useFastJSON routes the bindings' ProtoJSON through the runtime's own
// encoder and decoder (json_encode.go, json_decode.go), with protojson for
// what they leave. Building with the tag a2a_protojson turns it off
// (json_reference.go), so that every encode and decode goes through
// google.golang.org/protobuf/encoding/protojson alone: CI runs the runtime's
// and the server's tests that way once (make test-protojson), which checks
// the behaviour the fast path must keep against the reference implementation.
const useFastJSON = true
