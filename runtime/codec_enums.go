package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// UnknownEnumNameError is the refusal of a JSON string that names no value
// of the enum its field holds, such as a v0.3 "user" for a v1.0 role or
// "NOPE" for a task state filter. ProtoJSON decoders that ignore unknown
// members commonly ignore unknown enum names too, which would turn a bad
// filter into no filter; the runtime refuses them instead.
type UnknownEnumNameError struct {
	Field string                // path of the field in JSON names, e.g. "message.role" or "tasks[2].status.state"
	Enum  protoreflect.FullName // the enum type, e.g. lf.a2a.v1.Role
	Name  string                // the name as sent
}

func (e *UnknownEnumNameError) Error() string {
	return fmt.Sprintf("field %s: %s is not a value of %s; send one of its value names (or its number)",
		e.Field, strconv.Quote(e.Name), e.Enum)
}

// findUnknownEnumName returns the first string in the JSON text b, read as
// a message of type md, that stands where an enum value belongs and names
// none of the enum's values (members in name order), or nil. It is only
// asked after protojson accepted b while discarding unknown names
// (unmarshalWithProtojson), so b is valid ProtoJSON and the walk can be
// simple: members are found by JSON or proto name, unknown ones and the
// well-known types (which hold no enum fields A2A uses) are not entered.
func findUnknownEnumName(b []byte, md protoreflect.MessageDescriptor) *UnknownEnumNameError {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return unknownEnumInMessage(v, md, "")
}

func unknownEnumInMessage(v any, md protoreflect.MessageDescriptor, path string) *UnknownEnumNameError {
	obj, ok := v.(map[string]any)
	if !ok || md.FullName().Parent() == "google.protobuf" {
		return nil
	}
	fields := md.Fields()
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		fd := fields.ByJSONName(key)
		if fd == nil {
			fd = fields.ByTextName(key)
		}
		if fd == nil {
			continue
		}
		at := fd.JSONName()
		if path != "" {
			at = path + "." + at
		}
		if e := unknownEnumInField(obj[key], fd, at); e != nil {
			return e
		}
	}
	return nil
}

// unknownEnumInField checks the value of field fd found at path: each
// value of a map (keys in order), each element of a list, or the one value.
func unknownEnumInField(val any, fd protoreflect.FieldDescriptor, path string) *UnknownEnumNameError {
	switch {
	case fd.IsMap():
		m, _ := val.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if e := unknownEnumInValue(m[k], fd.MapValue(), path+"["+strconv.Quote(k)+"]"); e != nil {
				return e
			}
		}
	case fd.IsList():
		l, _ := val.([]any)
		for i, elem := range l {
			if e := unknownEnumInValue(elem, fd, path+"["+strconv.Itoa(i)+"]"); e != nil {
				return e
			}
		}
	default:
		return unknownEnumInValue(val, fd, path)
	}
	return nil
}

// unknownEnumInValue checks one value of fd's kind (a singular value, a
// list element or a map value).
func unknownEnumInValue(v any, fd protoreflect.FieldDescriptor, path string) *UnknownEnumNameError {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		name, ok := v.(string)
		if ok && fd.Enum().Values().ByName(protoreflect.Name(name)) == nil {
			return &UnknownEnumNameError{Field: path, Enum: fd.Enum().FullName(), Name: name}
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return unknownEnumInMessage(v, fd.Message(), path)
	}
	return nil
}
