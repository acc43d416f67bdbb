package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The codec is ProtoJSON as the A2A wire wants it: lowerCamelCase member
// names, defaults omitted, enums by name; on input unknown members are ignored
// (A2A §5.7: receivers SHOULD ignore them) and snake_case names are accepted.
var (
	jsonMarshalOptions   = protojson.MarshalOptions{}
	jsonUnmarshalOptions = protojson.UnmarshalOptions{DiscardUnknown: true}
	// strictUnmarshalOptions rejects unknown fields and unknown enum names.
	strictUnmarshalOptions = protojson.UnmarshalOptions{}
)

// MarshalJSON encodes m as ProtoJSON the way this runtime puts messages on the
// wire: lowerCamelCase member names, fields at their default value omitted
// (explicit-presence fields are emitted whenever set), enums as names. Unlike
// the bindings it does not force the REQUIRED fields of the message into the
// output.
//
// The output is not byte-stable: protojson deliberately varies whitespace
// between builds, so never compare or sign the bytes; canonicalise first.
func MarshalJSON(m proto.Message) ([]byte, error) { return marshalJSON(m, false) }

// UnmarshalJSON decodes ProtoJSON into m (resetting it first), ignoring
// unknown members. Empty or whitespace-only input and the literal null decode
// as {}. An unknown enum name (such as a v0.3 "user") is an error, so a bad
// filter value is reported instead of silently meaning "no filter".
// Input nested deeper than MaxResponseJSONDepth is refused before decoding.
func UnmarshalJSON(b []byte, m proto.Message) error {
	if e := responseDepthError(b); e != nil {
		return e
	}
	return unmarshalJSON(b, m)
}

// marshalJSON encodes a message as ProtoJSON (camelCase, defaults omitted),
// except that, with emitRequired, the fields of the top-level message marked
// (google.api.field_behavior) = REQUIRED in its descriptor are always emitted,
// even at their default value (e.g. ListTasksResponse.nextPageToken "").
//
// Only the top level is affected: A2A needs ListTasksResponse to carry
// nextPageToken "", pageSize, totalSize and tasks [] at all times, while nested
// defaults such as Task.artifacts must stay absent, which rules out
// EmitUnpopulated. The missing members are appended to protojson's output.
// Members of a real oneof are never invented, since a second oneof member
// would make the document invalid.
//
// The output is not byte-stable (see MarshalJSON).
func marshalJSON(m proto.Message, emitRequired bool) ([]byte, error) {
	if m == nil {
		return []byte("{}"), nil
	}
	rm := m.ProtoReflect()
	var b []byte
	ok := false
	if useFastJSON {
		b, ok = encodeProtoJSON(rm)
	}
	if !ok { // what only protojson encodes, and what it refuses (json_encode.go)
		var err error
		if b, err = jsonMarshalOptions.Marshal(m); err != nil {
			return nil, fmt.Errorf("encoding %s as JSON: %w", rm.Descriptor().FullName(), err)
		}
	}
	if !emitRequired {
		return b, nil
	}
	d := typeInfoOf(rm.Descriptor()).required
	if len(d) == 0 {
		return b, nil
	}
	return spliceRequiredDefaults(b, rm, d), nil
}

// unmarshalJSON decodes ProtoJSON leniently: unknown fields ignored; empty
// input and "null" are treated as {}; unknown enum names are errors.
func unmarshalJSON(b []byte, m proto.Message) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || string(t) == "null" {
		proto.Reset(m)
		return nil
	}
	if useFastJSON && decodeProtoJSON(b, m) { // json_decode.go; what it leaves, protojson decodes
		return nil
	}
	return unmarshalWithProtojson(b, m)
}

// unmarshalWithProtojson is unmarshalJSON by protojson alone: what the
// bindings' own decoder leaves, and the reference it is tested against.
//
// protojson's DiscardUnknown also swallows unknown enum names, which would
// turn a bad filter value (status "NOPE") into "no filter", while without it
// an unknown member fails the decode. Its errors are text only (one
// unexported type, deliberately unstable wording), so which of the two made
// the strict pass fail cannot be read from the error: after a strict failure
// and a lenient success — the only difference between the two options being
// unknown members and unknown enum names — the input itself is searched for
// an unknown enum name (codec_enums.go), which is then the error.
func unmarshalWithProtojson(b []byte, m proto.Message) error {
	md := m.ProtoReflect().Descriptor()
	err := decodeWithProtojson(b, m)
	if err == nil {
		return nil
	}
	if nb, changed := normalizeWrappedLists(b, md); changed { // codec_lenient.go
		proto.Reset(m)
		if decodeWithProtojson(nb, m) == nil {
			return nil
		}
	}
	proto.Reset(m)
	if ls := findLoneSurrogate(string(b)); ls != nil {
		// protojson reports it as "unexpected EOF"
		return fmt.Errorf("decoding %s: %w", md.FullName(), ls)
	}
	return fmt.Errorf("decoding %s: %w", md.FullName(), err)
}

// decodeWithProtojson is one strict, then lenient protojson decode of b
// into m (see unmarshalWithProtojson).
func decodeWithProtojson(b []byte, m proto.Message) error {
	if strictUnmarshalOptions.Unmarshal(b, m) == nil {
		return nil
	}
	proto.Reset(m)
	if err := jsonUnmarshalOptions.Unmarshal(b, m); err != nil {
		return err
	}
	if e := findUnknownEnumName(b, m.ProtoReflect().Descriptor()); e != nil {
		return e
	}
	return nil
}

// spliceRequiredDefaults appends a member for every field of defaults that rm
// does not have to the JSON object b. It returns b unchanged when nothing is
// missing or b is not an object (well-known types with special JSON forms).
func spliceRequiredDefaults(b []byte, rm protoreflect.Message, defaults []requiredDefault) []byte {
	object := bytes.Trim(b, jsonSpaces)
	if len(object) < 2 || object[0] != '{' || object[len(object)-1] != '}' {
		return b
	}
	end := len(b) - len(bytes.TrimLeft(b, jsonSpaces)) + len(object) - 1 // the closing brace
	empty := len(bytes.Trim(object[1:len(object)-1], jsonSpaces)) == 0
	// Members overwrite the closing brace (and any trailing space) in place;
	// the brace is written again at the end. b is only returned unchanged
	// when nothing was appended.
	out := b[:end]
	added := false
	for i := range defaults {
		d := &defaults[i]
		if rm.Has(d.fd) {
			continue
		}
		if !empty || added {
			out = append(out, ',')
		}
		out = append(out, d.member...)
		added = true
	}
	if !added {
		return b
	}
	return append(out, '}')
}

// jsonSpaces are the white-space bytes JSON allows between tokens.
const jsonSpaces = " \t\n\r"

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// requiredDefault is the `"jsonName":default` member of a REQUIRED field
// outside a real oneof, rendered once per type (typeInfo.required).
type requiredDefault struct {
	fd     protoreflect.FieldDescriptor
	member []byte
}

// defaultJSONValue renders the ProtoJSON form of a field at its default value:
// [] for lists, {} for maps and messages (or the well-known type's own form),
// the name of the default enum value, "" for strings and bytes, false, 0, and
// "0" for 64-bit integers (which ProtoJSON writes as strings).
func defaultJSONValue(fd protoreflect.FieldDescriptor) []byte {
	switch {
	case fd.IsList():
		return []byte("[]")
	case fd.IsMap():
		return []byte("{}")
	}
	def := fd.Default()
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return defaultMessageJSON(fd.Message())
	case protoreflect.EnumKind:
		return defaultEnumJSON(fd.Enum(), def.Enum())
	case protoreflect.BoolKind:
		return strconv.AppendBool(nil, def.Bool())
	case protoreflect.StringKind:
		return appendJSONString(nil, def.String())
	case protoreflect.BytesKind:
		return appendJSONString(nil, base64.StdEncoding.EncodeToString(def.Bytes()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(nil, def.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(nil, def.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return appendJSONString(nil, strconv.FormatInt(def.Int(), 10))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return appendJSONString(nil, strconv.FormatUint(def.Uint(), 10))
	case protoreflect.FloatKind:
		return defaultFloatJSON(def.Float(), 32)
	case protoreflect.DoubleKind:
		return defaultFloatJSON(def.Float(), 64)
	}
	return []byte("null")
}

// defaultEnumJSON renders the default n of the enum ed: its value's name,
// its number when it has none, null for google.protobuf.NullValue.
func defaultEnumJSON(ed protoreflect.EnumDescriptor, n protoreflect.EnumNumber) []byte {
	if ed.FullName() == "google.protobuf.NullValue" {
		return []byte("null")
	}
	if ev := ed.Values().ByNumber(n); ev != nil {
		return appendJSONString(nil, string(ev.Name()))
	}
	return strconv.AppendInt(nil, int64(n), 10)
}

// defaultFloatJSON renders a float field's default: NaN and the
// infinities as strings (nonFiniteJSON), else in the shortest form.
func defaultFloatJSON(f float64, bits int) []byte {
	if name := nonFiniteJSON(f); name != "" {
		return []byte(name)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, bits)
}

// nonFiniteJSON is ProtoJSON's string for NaN and the infinities, or ""
// for a finite number.
func nonFiniteJSON(f float64) string {
	switch {
	case math.IsNaN(f):
		return `"NaN"`
	case math.IsInf(f, 1):
		return `"Infinity"`
	case math.IsInf(f, -1):
		return `"-Infinity"`
	}
	return ""
}

// defaultMessageJSON renders an empty message of type md: {} for ordinary
// messages; well-known types with their own JSON form (Timestamp, Duration,
// wrappers, ListValue, …) are rendered by protojson, and null where protojson
// has no form for an empty value (google.protobuf.Value).
func defaultMessageJSON(md protoreflect.MessageDescriptor) []byte {
	if md.FullName().Parent() != "google.protobuf" {
		return []byte("{}")
	}
	b, err := jsonMarshalOptions.Marshal(dynamicpb.NewMessage(md))
	if err != nil {
		return []byte("null")
	}
	return bytes.TrimSpace(b)
}

// plainJSONString reports whether encoding/json writes s between quotes as
// it is: printable ASCII without the characters it escapes (" \ < > &).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < ' ' || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	if plainJSONString(s) { // as encoding/json quotes it, without its allocation
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, err := json.Marshal(s)
	if err != nil { // cannot happen for a string
		return append(b, `""`...)
	}
	return append(b, q...)
}
