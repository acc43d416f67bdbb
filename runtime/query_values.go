package runtime

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The text form of field values in URLs (path variables and query
// parameters of the HTTP+JSON binding): what ProtoJSON would write inside a
// JSON string, without the quotes. Booleans are true/false, numbers decimal,
// enums by name (a number is accepted on input), bytes base64, and the
// well-known types whose JSON form is a string (Timestamp as RFC 3339,
// Duration as "1.5s", FieldMask) use that form; wrappers use their value's.

// parseScalar converts URL text into a value of the scalar field fd (any
// kind but message and group). The error describes what was expected.
func parseScalar(fd protoreflect.FieldDescriptor, s string) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !utf8.ValidString(s) {
			return protoreflect.Value{}, fmt.Errorf("%q is not valid UTF-8", s)
		}
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BytesKind:
		b, err := decodeBase64(s)
		if err != nil {
			return protoreflect.Value{}, fmt.Errorf("%q is not base64", s)
		}
		return protoreflect.ValueOfBytes(b), nil
	case protoreflect.BoolKind:
		switch {
		case strings.EqualFold(s, "true") || s == "1":
			return protoreflect.ValueOfBool(true), nil
		case strings.EqualFold(s, "false") || s == "0":
			return protoreflect.ValueOfBool(false), nil
		}
		return protoreflect.Value{}, fmt.Errorf("%q is not a boolean (true or false)", s)
	case protoreflect.EnumKind:
		return parseEnum(fd.Enum(), s)
	}
	return parseNumber(fd.Kind(), s)
}

// parseNumber converts URL text into a value of a numeric kind.
func parseNumber(kind protoreflect.Kind, s string) (protoreflect.Value, error) {
	var (
		v    protoreflect.Value
		what string
		err  error
	)
	switch kind {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		v, what = protoreflect.ValueOfInt32(int32(n)), "an int32"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		var n int64
		n, err = strconv.ParseInt(s, 10, 64)
		v, what = protoreflect.ValueOfInt64(n), "an int64"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		var n uint64
		n, err = strconv.ParseUint(s, 10, 32)
		v, what = protoreflect.ValueOfUint32(uint32(n)), "a uint32"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		var n uint64
		n, err = strconv.ParseUint(s, 10, 64)
		v, what = protoreflect.ValueOfUint64(n), "a uint64"
	case protoreflect.FloatKind:
		var f float64
		f, err = strconv.ParseFloat(s, 32)
		v, what = protoreflect.ValueOfFloat32(float32(f)), "a number"
	case protoreflect.DoubleKind:
		var f float64
		f, err = strconv.ParseFloat(s, 64)
		v, what = protoreflect.ValueOfFloat64(f), "a number"
	default:
		return protoreflect.Value{}, fmt.Errorf("a %s field cannot be written in a URL", kind)
	}
	if err != nil {
		return protoreflect.Value{}, numberError(s, what, err)
	}
	return v, nil
}

func numberError(s, what string, err error) error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return fmt.Errorf("%q is out of range for %s", s, what)
	}
	return fmt.Errorf("%q is not %s", s, what)
}

// parseEnum accepts a value name ("TASK_STATE_WORKING") or the decimal
// number of a declared value.
func parseEnum(ed protoreflect.EnumDescriptor, s string) (protoreflect.Value, error) {
	if v := ed.Values().ByName(protoreflect.Name(s)); v != nil {
		return protoreflect.ValueOfEnum(v.Number()), nil
	}
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		if v := ed.Values().ByNumber(protoreflect.EnumNumber(n)); v != nil {
			return protoreflect.ValueOfEnum(v.Number()), nil
		}
		return protoreflect.Value{}, fmt.Errorf("%s has no value numbered %d", ed.FullName(), n)
	}
	return protoreflect.Value{}, fmt.Errorf("%q is not a value of %s (e.g. %s)", s, ed.FullName(), exampleEnumValue(ed))
}

func exampleEnumValue(ed protoreflect.EnumDescriptor) string {
	vals := ed.Values()
	if vals.Len() > 1 {
		return string(vals.Get(1).Name())
	}
	if vals.Len() == 1 {
		return string(vals.Get(0).Name())
	}
	return "a value name"
}

// decodeBase64 accepts the standard and URL-safe alphabets, padded or not.
func decodeBase64(s string) ([]byte, error) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
		s = strings.TrimRight(s, "=")
	}
	return enc.DecodeString(s)
}

// urlMessageKind says how a message-typed field can be written in a URL.
type urlMessageKind uint8

const (
	urlMessageNone    urlMessageKind = iota // not at all: nested fields are used instead
	urlMessageString                        // its ProtoJSON form is a string
	urlMessageWrapper                       // a wrapper: the text of its value field
)

// urlMessageKindOf classifies a message type for URL text.
func urlMessageKindOf(md protoreflect.MessageDescriptor) urlMessageKind {
	switch md.FullName() {
	case "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask":
		return urlMessageString
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return urlMessageWrapper
	}
	return urlMessageNone
}

// parseMessageText decodes URL text into dst, a message of a kind
// urlMessageKindOf accepts.
func parseMessageText(dst protoreflect.Message, s string) error {
	md := dst.Descriptor()
	switch urlMessageKindOf(md) {
	case urlMessageWrapper:
		fd := md.Fields().ByNumber(1)
		v, err := parseScalar(fd, s)
		if err != nil {
			return err
		}
		dst.Set(fd, v)
		return nil
	case urlMessageString:
		err := protojson.Unmarshal(appendJSONString(nil, s), dst.Interface())
		if err != nil && md.FullName() == "google.protobuf.Timestamp" && strings.IndexByte(s, ' ') >= 0 {
			// An unescaped "+01:00" offset arrives as " 01:00": '+' means
			// space in a query string. Take it back.
			err = protojson.Unmarshal(appendJSONString(nil, strings.ReplaceAll(s, " ", "+")), dst.Interface())
		}
		if err != nil {
			switch md.FullName() {
			case "google.protobuf.Timestamp":
				return fmt.Errorf("%q is not an RFC 3339 timestamp (e.g. 2025-11-09T10:30:00Z)", s)
			case "google.protobuf.Duration":
				return fmt.Errorf("%q is not a duration in seconds (e.g. 1.5s)", s)
			}
			return fmt.Errorf("%q is not a valid %s", s, md.FullName())
		}
		return nil
	}
	return fmt.Errorf("a %s cannot be written in a URL; set its fields instead", md.FullName())
}

// formatScalar renders a scalar value as URL text (the inverse of
// parseScalar): enums by name when the number is declared.
func formatScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BytesKind:
		return base64.URLEncoding.EncodeToString(v.Bytes())
	case protoreflect.BoolKind:
		return strconv.FormatBool(v.Bool())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.FormatInt(int64(v.Enum()), 10)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(v.Uint(), 10)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		bits := 64
		if fd.Kind() == protoreflect.FloatKind {
			bits = 32
		}
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	return ""
}

// formatMessageText renders a message of a kind urlMessageKindOf accepts as
// URL text (the inverse of parseMessageText).
func formatMessageText(m protoreflect.Message) (string, error) {
	md := m.Descriptor()
	switch urlMessageKindOf(md) {
	case urlMessageWrapper:
		fd := md.Fields().ByNumber(1)
		return formatScalar(fd, m.Get(fd)), nil
	case urlMessageString:
		b, err := protojson.Marshal(m.Interface())
		if err != nil {
			return "", fmt.Errorf("encoding %s: %w", md.FullName(), err)
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", fmt.Errorf("encoding %s: %s is not a JSON string", md.FullName(), b)
		}
		return s, nil
	}
	return "", fmt.Errorf("a %s cannot be written in a URL", md.FullName())
}
