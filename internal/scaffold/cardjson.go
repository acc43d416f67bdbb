package scaffold

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/fieldbehavior"
	"github.com/a2agen/a2agen/internal/jcs"
)

// CardJSON renders card as the ProtoJSON document a scaffolded agent serves
// and a2a-scaffold card prints: fields in proto order, indented by two
// spaces, with the presence rules A2A §8.4 uses for signing, so that the
// document, minus signatures, canonicalises to exactly the signed payload:
// fields with explicit presence appear iff set (even when false), REQUIRED
// fields always appear (even when empty), other fields only when not at
// their default. The output is byte-stable, unlike protojson's. A card
// with a 0.3 interface is the dual card: the members of a v0.3 card follow
// the v1.0 ones (see dualMembers).
func CardJSON(card *a2av1.AgentCard) ([]byte, error) {
	out, err := cardDocument(card, "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// SigningPayload returns the JWS payload of card (A2A §8.4): the card
// without signatures, with the presence rules of CardJSON (and, for the
// dual card, its v0.3 members), canonicalised with RFC 8785 (JCS).
func SigningPayload(card *a2av1.AgentCard) ([]byte, error) {
	unsigned := proto.CloneOf(card)
	unsigned.Signatures = nil
	compact, err := cardDocument(unsigned, "")
	if err != nil {
		return nil, err
	}
	return jcs.Canonicalize(compact)
}

// cardDocument writes card with the presence rules of CardJSON, indented
// by indent per level (compact when it is empty).
func cardDocument(card *a2av1.AgentCard, indent string) ([]byte, error) {
	v, err := cardValue(card)
	if err != nil {
		return nil, err
	}
	return appendJSON(nil, v, indent)
}

// object is a JSON object that keeps its member order.
type object []member

type member struct {
	name  string
	value any // string, bool, float64, nil, []any, object
}

// presenceValue converts a message to a JSON value with the presence rules
// of CardJSON.
func presenceValue(m protoreflect.Message) (any, error) {
	if wkt, ok := wellKnownValue(m); ok {
		return wkt, nil
	}
	if isOtherWellKnown(m.Descriptor()) {
		return protojsonValue(m.Interface())
	}
	var obj object
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		// Has is false for unset presence fields, empty lists and maps and
		// implicit-presence scalars at their default. A REQUIRED member of a
		// real oneof is not invented: a second member would make the
		// document invalid.
		inOneof := fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic()
		if !m.Has(fd) && (inOneof || !fieldbehavior.Required(fd)) {
			continue
		}
		v, err := fieldValue(m, fd)
		if err != nil {
			return nil, err
		}
		obj = append(obj, member{fd.JSONName(), v})
	}
	return obj, nil
}

func fieldValue(m protoreflect.Message, fd protoreflect.FieldDescriptor) (any, error) {
	v := m.Get(fd)
	switch {
	case fd.IsMap():
		obj := object{}
		var keys []protoreflect.MapKey
		v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
			keys = append(keys, k)
			return true
		})
		slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
			return cmp.Compare(a.String(), b.String())
		})
		for _, k := range keys {
			ev, err := singular(fd.MapValue(), v.Map().Get(k))
			if err != nil {
				return nil, err
			}
			obj = append(obj, member{k.String(), ev})
		}
		return obj, nil
	case fd.IsList():
		list := v.List()
		out := make([]any, 0, list.Len())
		for i := range list.Len() {
			ev, err := singular(fd, list.Get(i))
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
		return out, nil
	}
	return singular(fd, v)
}

// singular converts one scalar or message value as ProtoJSON writes it.
func singular(fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return presenceValue(v.Message())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			if fd.Enum().FullName() == "google.protobuf.NullValue" {
				return nil, nil
			}
			return string(ev.Name()), nil
		}
		return float64(v.Enum()), nil
	case protoreflect.StringKind:
		return v.String(), nil
	case protoreflect.BoolKind:
		return v.Bool(), nil
	case protoreflect.BytesKind:
		return base64.StdEncoding.EncodeToString(v.Bytes()), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return float64(v.Int()), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return float64(v.Uint()), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(v.Int(), 10), nil // ProtoJSON writes 64-bit integers as strings
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(v.Uint(), 10), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return floatValue(v.Float()), nil
	}
	return nil, fmt.Errorf("field %s: unsupported kind %v", fd.FullName(), fd.Kind())
}

// floatValue writes non-finite numbers as ProtoJSON's strings.
func floatValue(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// wellKnownValue converts google.protobuf.Struct, Value and ListValue (the
// free-form JSON in extension params and signature headers) to plain JSON,
// with object members sorted so output is stable.
func wellKnownValue(m protoreflect.Message) (any, bool) {
	switch msg := m.Interface().(type) {
	case *structpb.Struct:
		return structValue(msg), true
	case *structpb.Value:
		return valueOf(msg), true
	case *structpb.ListValue:
		return listValue(msg), true
	}
	return nil, false
}

func structValue(s *structpb.Struct) object {
	keys := slices.Sorted(maps.Keys(s.GetFields()))
	obj := object{}
	for _, k := range keys {
		obj = append(obj, member{k, valueOf(s.GetFields()[k])})
	}
	return obj
}

func listValue(l *structpb.ListValue) []any {
	out := make([]any, 0, len(l.GetValues()))
	for _, v := range l.GetValues() {
		out = append(out, valueOf(v))
	}
	return out
}

func valueOf(v *structpb.Value) any {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return k.StringValue
	case *structpb.Value_NumberValue:
		return floatValue(k.NumberValue)
	case *structpb.Value_BoolValue:
		return k.BoolValue
	case *structpb.Value_StructValue:
		return structValue(k.StructValue)
	case *structpb.Value_ListValue:
		return listValue(k.ListValue)
	}
	return nil
}

// isOtherWellKnown reports the well-known types with a special ProtoJSON
// form (Timestamp, Duration, wrappers, Any, FieldMask, Empty), which are
// delegated to protojson.
func isOtherWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}

func protojsonValue(m proto.Message) (any, error) {
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return fromGeneric(v), nil
}

// fromGeneric turns encoding/json values into the ordered form, sorting
// object members.
func fromGeneric(v any) any {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		obj := object{}
		for _, k := range keys {
			obj = append(obj, member{k, fromGeneric(v[k])})
		}
		return obj
	case []any:
		for i := range v {
			v[i] = fromGeneric(v[i])
		}
		return v
	}
	return v
}

// appendJSON writes v; a non-empty indent unit pretty-prints it (two
// spaces per level), an empty one writes it compactly.
func appendJSON(dst []byte, v any, indent string) ([]byte, error) {
	return appendIndented(dst, v, indent, 0)
}

func appendIndented(dst []byte, v any, unit string, depth int) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return jcs.AppendString(dst, v), nil
	case float64:
		return jcs.AppendNumber(dst, v)
	case []any:
		return appendList(dst, "[]", len(v), unit, depth, func(dst []byte, i int) ([]byte, error) {
			return appendIndented(dst, v[i], unit, depth+1)
		})
	case object:
		return appendList(dst, "{}", len(v), unit, depth, func(dst []byte, i int) ([]byte, error) {
			dst = append(jcs.AppendString(dst, v[i].name), ':')
			if unit != "" {
				dst = append(dst, ' ')
			}
			return appendIndented(dst, v[i].value, unit, depth+1)
		})
	}
	return dst, fmt.Errorf("unexpected JSON value %T", v)
}

// appendList writes n elements (elem) between the brackets, comma
// separated, each on a line of its own one level deeper when unit is not
// empty; no elements are just the brackets.
func appendList(dst []byte, brackets string, n int, unit string, depth int, elem func(dst []byte, i int) ([]byte, error)) ([]byte, error) {
	if n == 0 {
		return append(dst, brackets...), nil
	}
	dst = append(dst, brackets[0])
	var err error
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendNewline(dst, unit, depth+1)
		if dst, err = elem(dst, i); err != nil {
			return dst, err
		}
	}
	return append(appendNewline(dst, unit, depth), brackets[1]), nil
}

// appendNewline starts a line indented depth units; nothing when unit is
// empty (compact JSON).
func appendNewline(dst []byte, unit string, depth int) []byte {
	if unit == "" {
		return dst
	}
	return append(append(dst, '\n'), strings.Repeat(unit, depth)...)
}
