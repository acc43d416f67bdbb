package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fields := md.Fields()
	for _, key := range keys {
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
		val := obj[key]
		switch {
		case fd.IsMap():
			m, _ := val.(map[string]any)
			mkeys := make([]string, 0, len(m))
			for k := range m {
				mkeys = append(mkeys, k)
			}
			slices.Sort(mkeys)
			for _, k := range mkeys {
				if e := unknownEnumInValue(m[k], fd.MapValue(), at+"["+strconv.Quote(k)+"]"); e != nil {
					return e
				}
			}
		case fd.IsList():
			l, _ := val.([]any)
			for i, elem := range l {
				if e := unknownEnumInValue(elem, fd, at+"["+strconv.Itoa(i)+"]"); e != nil {
					return e
				}
			}
		default:
			if e := unknownEnumInValue(val, fd, at); e != nil {
				return e
			}
		}
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
