//go:build a2a_protojson

package runtime

// useFastJSON is off in builds with the tag a2a_protojson: every encode and
// decode of the bindings goes through protojson alone (see json_fastpath.go).
const useFastJSON = false
