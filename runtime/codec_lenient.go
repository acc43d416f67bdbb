package runtime

import (
	"bytes"
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Liberal input shapes. Some peers put a bare JSON array where ProtoJSON has
// a message whose only field is that array — the official Go SDK (v2.3.1)
// writes a SecurityRequirement as {"schemes":{"bearer":["read"]}} instead of
// {"schemes":{"bearer":{"list":["read"]}}}. When strict
// decoding fails, the decoder rewrites such arrays into the wrapper object and
// tries once more (unmarshalWithProtojson). The rule is generic — any message with exactly one field,
// a repeated non-map field — so no message type is special-cased, and the
// rewrite runs only on input that failed to decode, never on the hot path.

// normalizeWrappedLists returns b with bare arrays wrapped for md, and
// whether anything changed. Input that is not JSON is returned unchanged.
func normalizeWrappedLists(b []byte, md protoreflect.MessageDescriptor) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b, false
	}
	v, changed := wrapLists(v, md)
	if !changed {
		return b, false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return out, true
}

// soleListField returns the only field of md when it is a repeated, non-map
// field, else nil. Well-known types have their own JSON forms and are skipped.
func soleListField(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") || md.Fields().Len() != 1 {
		return nil
	}
	if f := md.Fields().Get(0); f.IsList() {
		return f
	}
	return nil
}

// wrapLists walks v (decoded JSON) along md and wraps bare arrays found where
// a single-list message is expected.
func wrapLists(v any, md protoreflect.MessageDescriptor) (any, bool) {
	obj, ok := v.(map[string]any)
	if !ok || strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return v, false
	}
	changed := false
	for key, val := range obj {
		fd := md.Fields().ByJSONName(key)
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(key))
		}
		if fd == nil {
			continue
		}
		var c bool
		if obj[key], c = wrapField(val, fd); c {
			changed = true
		}
	}
	return obj, changed
}

// wrapField wraps the bare arrays in val, the value of field fd: in each
// message value of a map, each message element of a list, or the one
// message.
func wrapField(val any, fd protoreflect.FieldDescriptor) (any, bool) {
	changed := false
	wrapIn := func(md protoreflect.MessageDescriptor, v any) any {
		v, c := wrapMessage(v, md)
		changed = changed || c
		return v
	}
	switch {
	case fd.IsMap():
		m, ok := val.(map[string]any)
		if vd := fd.MapValue(); ok && vd.Kind() == protoreflect.MessageKind {
			for k, mv := range m {
				m[k] = wrapIn(vd.Message(), mv)
			}
		}
	case fd.Kind() != protoreflect.MessageKind:
	case fd.IsList():
		list, _ := val.([]any)
		for i, e := range list {
			list[i] = wrapIn(fd.Message(), e)
		}
	default:
		return wrapMessage(val, fd.Message())
	}
	return val, changed
}

// wrapMessage handles one value expected to be a message of type md.
func wrapMessage(v any, md protoreflect.MessageDescriptor) (any, bool) {
	if list, ok := v.([]any); ok {
		if f := soleListField(md); f != nil {
			return map[string]any{f.JSONName(): list}, true
		}
		return v, false
	}
	return wrapLists(v, md)
}
