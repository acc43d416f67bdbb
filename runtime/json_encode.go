package runtime

import (
	"cmp"
	"encoding/base64"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The JSON encoder of the bindings: ProtoJSON exactly as protojson's
// MarshalOptions{} writes it (members in declaration order, lowerCamelCase
// names, populated fields only, enums by name, 64-bit integers as strings,
// bytes in standard base64, Timestamp in RFC 3339 with 0, 3, 6 or 9
// fractional digits, Struct/Value/ListValue as plain JSON with map keys
// sorted), without the random space protojson inserts after commas, and
// without protojson's per-message allocations: the order of a message's
// members is computed once per message type, not sorted on every call.
//
// It covers what A2A messages hold. Anything else — a message type with
// extension ranges or proto2 required fields, a well-known type other than Timestamp, Struct, Value
// and ListValue (Any, Duration, wrappers, FieldMask), and every input
// protojson refuses (invalid UTF-8, a Timestamp out of range, a Value with
// no kind or a non-finite number) — makes appendProtoJSON report false, and
// marshalJSON encodes the message with protojson instead, which also gives
// the error. FuzzJSONEncoderMatchesProtojson checks the output against
// protojson's on every message type of a2a/v1.

// maxSizeHint caps the remembered encoding size of a type.
const maxSizeHint = 64 << 10

// encodeProtoJSON encodes m, or reports false where protojson must (see
// above).
func encodeProtoJSON(m protoreflect.Message) ([]byte, bool) {
	ti := typeInfoOf(m.Descriptor())
	b, ok := appendMessageJSON(make([]byte, 0, max(64, ti.size.Load())), m, ti)
	if ok && int32(len(b)) > ti.size.Load() && len(b) <= maxSizeHint {
		ti.size.Store(int32(len(b)))
	}
	return b, ok
}

// appendMessageJSON writes m, of type ti (nil: looked up).
func appendMessageJSON(b []byte, m protoreflect.Message, ti *typeInfo) ([]byte, bool) {
	if ti == nil || ti.md != m.Descriptor() { // a field's type is the value's, unless descriptors were built apart
		ti = typeInfoOf(m.Descriptor())
	}
	switch {
	case !ti.encodable:
		return b, false
	case ti.form != plainForm:
		return appendWellKnownJSON(b, m, ti.form)
	}
	var l *goLayout // where the lists are, in m's Go struct
	b = append(b, '{')
	first := true
	for i := range ti.fields {
		f := &ti.fields[i]
		if !m.Has(f.fd) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.member...)
		var ok bool
		if b, ok = appendFieldJSON(b, m, ti, &l, i); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendFieldJSON writes the value of field number i of m, of type ti; *l
// is as appendGoListJSON needs it.
func appendFieldJSON(b []byte, m protoreflect.Message, ti *typeInfo, l **goLayout, i int) ([]byte, bool) {
	f := &ti.fields[i]
	switch {
	case f.fd.IsList():
		b, ok, done := appendGoListJSON(b, m, ti, l, i, f)
		if done {
			return b, ok
		}
		return appendListJSON(b, m.Get(f.fd).List(), f.fd)
	case f.fd.IsMap():
		return appendMapJSON(b, m.Get(f.fd).Map(), f.fd)
	case f.kind == protoreflect.MessageKind:
		return appendMessageJSON(b, m.Get(f.fd).Message(), f.subInfo())
	}
	return appendSingularJSON(b, m.Get(f.fd), f.fd)
}

// appendWellKnownJSON writes m, a well-known type of the given form, as
// plain JSON.
func appendWellKnownJSON(b []byte, m protoreflect.Message, form jsonForm) ([]byte, bool) {
	switch form {
	case timestampForm:
		return appendTimestampJSON(b, m)
	case structForm:
		fd := m.Descriptor().Fields().ByNumber(1) // fields
		return appendMapJSON(b, m.Get(fd).Map(), fd)
	case valueForm:
		return appendValueJSON(b, m)
	case listValueForm:
		fd := m.Descriptor().Fields().ByNumber(1) // values
		return appendListJSON(b, m.Get(fd).List(), fd)
	}
	return b, false
}

// appendGoListJSON writes the list field number i of a generated message
// from its Go slice, which protoreflect would wrap in a new List on every
// Get; done is false when m's Go type has no layout that holds the field
// (the caller then goes through protoreflect). *layout is m's layout, looked
// up on the first list of the message.
func appendGoListJSON(b []byte, m protoreflect.Message, ti *typeInfo, layout **goLayout, i int, f *fieldInfo) (_ []byte, ok, done bool) {
	fd := f.fd
	gm := m.Interface()
	if *layout == nil {
		if *layout = ti.layoutOf(reflect.TypeOf(gm)); *layout == nil {
			return b, false, false
		}
	}
	g := &(*layout).fields[i]
	if g.shape != holdList {
		return b, false, false
	}
	var sub *typeInfo
	if f.kind == protoreflect.MessageKind {
		sub = f.subInfo()
	}
	l := reflect.ValueOf(gm).Elem().Field(g.goIndex)
	b = append(b, '[')
	for j := range l.Len() {
		if j > 0 {
			b = append(b, ',')
		}
		e := l.Index(j)
		if fd.Kind() == protoreflect.MessageKind {
			if e.IsNil() {
				return b, false, true // not a valid message: protojson says so
			}
			b, ok = appendMessageJSON(b, e.Interface().(proto.Message).ProtoReflect(), sub)
		} else {
			b, ok = appendGoScalarJSON(b, e, fd)
		}
		if !ok {
			return b, false, true
		}
	}
	return append(b, ']'), true, true
}

// appendGoScalarJSON writes e, a Go list element of fd's scalar kind.
func appendGoScalarJSON(b []byte, e reflect.Value, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	var v protoreflect.Value
	switch fd.Kind() {
	case protoreflect.StringKind:
		v = protoreflect.ValueOfString(e.String())
	case protoreflect.EnumKind:
		v = protoreflect.ValueOfEnum(protoreflect.EnumNumber(e.Int()))
	case protoreflect.BoolKind:
		v = protoreflect.ValueOfBool(e.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		v = protoreflect.ValueOfInt32(int32(e.Int()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		v = protoreflect.ValueOfInt64(e.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		v = protoreflect.ValueOfUint32(uint32(e.Uint()))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		v = protoreflect.ValueOfUint64(e.Uint())
	case protoreflect.BytesKind:
		v = protoreflect.ValueOfBytes(e.Bytes())
	default:
		return b, false
	}
	return appendSingularJSON(b, v, fd)
}

func appendListJSON(b []byte, l protoreflect.List, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	b = append(b, '[')
	for i := range l.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendSingularJSON(b, l.Get(i), fd); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendMapJSON writes the entries in protojson's order: false before true,
// numbers ascending, strings by byte value.
func appendMapJSON(b []byte, mp protoreflect.Map, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	switch fd.MapKey().Kind() {
	case protoreflect.BoolKind:
		slices.SortFunc(keys, func(x, y protoreflect.MapKey) int {
			return cmp.Compare(boolInt(x.Bool()), boolInt(y.Bool()))
		})
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		slices.SortFunc(keys, func(x, y protoreflect.MapKey) int { return cmp.Compare(x.Uint(), y.Uint()) })
	case protoreflect.StringKind:
		slices.SortFunc(keys, func(x, y protoreflect.MapKey) int { return cmp.Compare(x.String(), y.String()) })
	default: // signed integers
		slices.SortFunc(keys, func(x, y protoreflect.MapKey) int { return cmp.Compare(x.Int(), y.Int()) })
	}
	b = append(b, '{')
	vd := fd.MapValue()
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendJSONStringChecked(b, k.String()); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendSingularJSON(b, mp.Get(k), vd); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

func appendSingularJSON(b []byte, v protoreflect.Value, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), true
	case protoreflect.StringKind:
		return appendJSONStringChecked(b, v.String())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int(), 10), '"'), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendUint(b, v.Uint(), 10), '"'), true
	case protoreflect.FloatKind:
		return appendJSONFloat(b, v.Float(), 32), true
	case protoreflect.DoubleKind:
		return appendJSONFloat(b, v.Float(), 64), true
	case protoreflect.BytesKind:
		raw := v.Bytes()
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, raw)
		return append(b, '"'), true
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return append(b, "null"...), true
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			b = append(b, '"')
			return append(append(b, ev.Name()...), '"'), true // identifiers need no escaping
		}
		return strconv.AppendInt(b, int64(v.Enum()), 10), true
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return appendMessageJSON(b, v.Message(), nil)
	}
	return b, false
}

// appendJSONStringChecked appends s as protojson quotes it: ", \ and the
// control characters escaped (\b \f \n \r \t, else \u00XX), everything
// else, U+2028 and U+2029 included, as it is. It reports false for invalid
// UTF-8, which protojson refuses.
func appendJSONStringChecked(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return b, false
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

const hexDigits = "0123456789abcdef"

// appendJSONFloat writes a float as protojson does (encoding/json's
// format; NaN and the infinities as strings).
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	if name := nonFiniteJSON(f); name != "" {
		return append(b, name...)
	}
	format := floatFormat(f, bits)
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 → e-7
		b = b[:n-1]
	}
	return b
}

// floatFormat is encoding/json's choice for a float of the given bits:
// exponent form ('e') below 1e-6 and from 1e21 on, compared at that
// precision, plain ('f') otherwise and for zero.
func floatFormat(f float64, bits int) byte {
	abs := math.Abs(f)
	small, large := abs < 1e-6, abs >= 1e21
	if bits == 32 {
		small, large = float32(abs) < 1e-6, float32(abs) >= 1e21
	}
	if abs != 0 && (small || large) {
		return 'e'
	}
	return 'f'
}

// The range of a Timestamp protojson writes.
const (
	minTimestampSeconds = -62135596800 // 0001-01-01T00:00:00Z
	maxTimestampSeconds = 253402300799 // 9999-12-31T23:59:59Z
)

func appendTimestampJSON(b []byte, m protoreflect.Message) ([]byte, bool) {
	fields := m.Descriptor().Fields()
	secs, nanos := m.Get(fields.ByNumber(1)).Int(), m.Get(fields.ByNumber(2)).Int()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds || nanos < 0 || nanos > 999_999_999 {
		return b, false
	}
	b = append(b, '"')
	b = time.Unix(secs, nanos).UTC().AppendFormat(b, "2006-01-02T15:04:05")
	if nanos != 0 { // 3, 6 or 9 digits
		var frac [10]byte
		digits := strconv.AppendInt(frac[:0], 1_000_000_000+nanos, 10)[1:] // 9 digits
		n := 9
		for n > 3 && string(digits[n-3:n]) == "000" {
			n -= 3
		}
		b = append(append(b, '.'), digits[:n]...)
	}
	return append(b, 'Z', '"'), true
}

// appendValueJSON writes a google.protobuf.Value: its kind as plain JSON.
func appendValueJSON(b []byte, m protoreflect.Message) ([]byte, bool) {
	fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("kind"))
	if fd == nil {
		return b, false // protojson: none of the oneof fields is set
	}
	v := m.Get(fd)
	if fd.Kind() == protoreflect.DoubleKind {
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return b, false // protojson: invalid number_value
		}
	}
	return appendSingularJSON(b, v, fd)
}
