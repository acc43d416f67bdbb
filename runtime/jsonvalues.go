package runtime

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxJSONValues bounds how many values a request message holds: the
// objects, arrays, members and elements of its ProtoJSON form (a part
// {"text":"x"} is two: the object and its member). It is counted before the
// request is decoded — on the bytes of a JSON-RPC request or an HTTP+JSON
// body, and on the protobuf bytes of a gRPC request (GRPCServerCodec) — so
// a request over it costs one pass over its bytes and no decoding. More is
// refused with InvalidRequest (JSON-RPC -32600, HTTP 400, gRPC
// InvalidArgument) whose message and "limit" metadata name MaxJSONValues.
//
// Why: every decoded value costs the server a Go value of its own, 50 to
// 150 bytes of heap however little it carries, so within the 8 MiB body
// limit a request of one-character parts or of a long array of numbers
// decoded into hundreds of MB (issue 26: 5 MB of 350,000 text parts held
// about 35 MB each; a million gRPC parts about 130 MB). 100,000 values are
// at most about 15 MB of heap per request, and far more than an A2A
// message carries (server.DefaultMaxPartsPerMessage is 1,000 parts); data
// larger than that travels as a file (raw bytes or a URL).
const MaxJSONValues = 100_000

// valuesExceeded is the refusal of a request holding more than
// MaxJSONValues values.
func valuesExceeded() *Error {
	return limitExceeded("MaxJSONValues",
		fmt.Sprintf("the request holds more than %d JSON values (objects, arrays, members and elements; MaxJSONValues): send fewer parts, or large data as a file", MaxJSONValues),
		MaxJSONValues)
}

// jsonValuesWithin reports whether the JSON text doc holds at most max
// values, counted as its commas plus its objects and arrays (an upper
// bound of its members and elements, within one per container). Every
// value takes at least one byte, so a document of at most max bytes is not
// read. Like jsonDepthWithin it does not validate doc and does not
// allocate; commas inside strings are not counted.
func jsonValuesWithin(doc []byte, max int) bool {
	if len(doc) <= max {
		return true
	}
	n := 0
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '"':
			i = stringEnd(doc, i)
		case ',', '{', '[':
			if n++; n > max {
				return false
			}
		}
	}
	return true
}

// protoValuesWithin reports whether the protobuf encoding b of a message of
// type md holds at most max values in its ProtoJSON form, counted as
// jsonValuesWithin counts them: every field value (each element of a
// repeated field, packed ones included) and every message. A
// google.protobuf.Value is its content, and a map entry its value, so a
// Struct member counts one as it does in JSON. Like jsonValuesWithin, an
// encoding of at most max bytes is not read; malformed or too deeply
// nested input is left to the decoder.
func protoValuesWithin(md protoreflect.MessageDescriptor, b []byte, max int) bool {
	if len(b) <= max {
		return true
	}
	left := max
	return protoValuesLeft(md, b, &left, 0)
}

// protoValuesLeft counts the values of b, a message of type md nested
// depth levels deep, against *left; false once it goes below zero.
func protoValuesLeft(md protoreflect.MessageDescriptor, b []byte, left *int, depth int) bool {
	if depth > grpcRecursionLimit {
		return true // the decoder refuses it (MaxJSONDepth)
	}
	entry := md.IsMapEntry()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return true
		}
		b = b[n:]
		count, n, within := fieldValueCount(md.Fields().ByNumber(num), num, typ, b, left, depth)
		switch {
		case !within:
			return false
		case n < 0:
			return true // malformed: left to the decoder
		}
		b = b[n:]
		if entry && num == 1 {
			count = 0 // a map key is part of its member
		}
		if *left -= count; *left < 0 {
			return false
		}
	}
	return true
}

// fieldValueCount reads the value of field num (fd, nil when unknown) at the
// start of b: the values it counts itself, its length in bytes (negative
// when malformed), and false when the values of a message inside it took
// *left below zero.
func fieldValueCount(fd protoreflect.FieldDescriptor, num protowire.Number, typ protowire.Type, b []byte, left *int, depth int) (count, n int, within bool) {
	if typ != protowire.BytesType || fd == nil {
		return 1, protowire.ConsumeFieldValue(num, typ, b), true
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, n, true
	}
	if sub := fd.Message(); sub != nil {
		count = 1
		if sub.FullName() == "google.protobuf.Value" || sub.IsMapEntry() {
			count = 0 // its content counts
		}
		return count, n, protoValuesLeft(sub, v, left, depth+1)
	}
	if fd.IsList() && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind {
		return packedLen(fd.Kind(), v), n, true
	}
	return 1, n, true
}

// packedLen is the number of elements of a packed repeated field of kind k
// encoded as v.
func packedLen(k protoreflect.Kind, v []byte) int {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return len(v) / 4
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return len(v) / 8
	}
	n := 0 // varints: one element per byte without the continuation bit
	for _, c := range v {
		if c < 0x80 {
			n++
		}
	}
	return n
}
