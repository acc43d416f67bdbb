package runtime

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The JSON decoder of the bindings: ProtoJSON into the generated Go structs
// of a message, without protojson's per-field reflection. protojson sets
// every field through protoreflect, which boxes each string and list element
// into an interface and allocates a token per string; this decoder reads the
// input once, in place, copies out only the strings the message keeps, and
// assigns the struct fields directly, located once per message type from its
// descriptor and the protoc-gen-go struct tags (typeInfo.layoutOf,
// json_typeinfo.go).
//
// It accepts exactly what protojson.UnmarshalOptions{DiscardUnknown: true}
// accepts as unmarshalJSON uses it, or gives up: JSON and proto field names,
// enums by name or number, null for a field (skipped, except for
// google.protobuf.Value), duplicate fields and a second member of a oneof
// refused, unknown members skipped (after checking they are JSON), bytes in
// either base64 alphabet with or without padding, Timestamp, Struct, Value and
// ListValue, integers of every size as a JSON number or a string (the form
// ProtoJSON gives 64-bit ones). Whatever it does not cover — an unknown enum
// name (which the runtime refuses, see unmarshalJSON), floating-point fields,
// maps other than Struct's, integers spelled with a fraction or an exponent
// (1.0, 1e2, "1e2"), extension names, other well-known types, input nested deeper than
// MaxResponseJSONDepth — and every input protojson refuses makes
// decodeProtoJSON report false; unmarshalJSON then decodes with protojson,
// which also gives today's errors. FuzzJSONDecoderMatchesProtojson checks
// the result against protojson's on every request and response message type
// of a2a/v1.

// decodeProtoJSON decodes the ProtoJSON object b into m (reset first) and
// reports whether it did; on false m holds garbage and the caller decodes
// again with protojson. The decoded message shares no memory with b: every
// string it holds is a copy (see jsonDecoder.ownedStr).
func decodeProtoJSON(b []byte, m proto.Message) bool {
	rv := reflect.ValueOf(m)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	ti := typeInfoOf(m.ProtoReflect().Descriptor())
	l := ti.layoutOf(rv.Type())
	if l == nil {
		return false // well-known types at the top level, dynamic messages: left to protojson
	}
	proto.Reset(m)
	// The input is read in place: only the strings the message keeps are
	// copied out of it, each on its own.
	d := jsonDecoder{s: unsafe.String(unsafe.SliceData(b), len(b))}
	d.space()
	if !d.message(ti, l, rv.Elem()) {
		return false
	}
	d.space()
	return d.i == len(d.s)
}

// jsonDecoder reads one JSON document; s is the whole input, read in place
// (it aliases the caller's buffer for the duration of the decode only).
type jsonDecoder struct {
	s     string
	i     int
	depth int
	// copies holds the copies of the short strings the message keeps
	// (see ownedStr); a new block is started when it is full.
	copies []byte
}

// Short strings the message keeps share blocks of at most copyBlockSize
// bytes: one allocation for a request's ids, names and short texts instead
// of one each. A kept string keeps its block alive, so no string keeps more
// than copyBlockSize bytes of other strings, and never the input.
const (
	copyBlockSize = 256
	maxSharedCopy = 64 // longer strings get a copy of their own
)

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next returns the next byte after white space, or 0 at the end.
func (d *jsonDecoder) next() byte {
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// enter counts one level of nesting and refuses more than the clients allow.
func (d *jsonDecoder) enter() bool {
	d.depth++
	return d.depth <= MaxResponseJSONDepth
}

// afterElement consumes what follows a member of an object or an element
// of an array, which end closes: a comma (more: another one follows) or
// end, which leaves the container. ok is false for anything else.
func (d *jsonDecoder) afterElement(end byte) (more, ok bool) {
	switch d.next() {
	case ',':
		d.i++
		return true, true
	case end:
		d.i++
		d.depth--
		return false, true
	}
	return false, false
}

// begin consumes the opening open of an object or an array, counting one
// level of nesting, and an end that follows at once: more says whether a
// first member or element comes; ok is false when the container does not
// start here or nests too deep. With afterElement it makes the loop
//
//	for more, ok := d.begin('{', '}'); more; more, ok = d.afterElement('}') { … }
func (d *jsonDecoder) begin(open, end byte) (more, ok bool) {
	if !d.enter() || d.next() != open {
		return false, false
	}
	d.i++
	if d.next() == end {
		d.i++
		d.depth--
		return false, true
	}
	return true, true
}

// memberName consumes an object member's name and the colon after it.
func (d *jsonDecoder) memberName() (string, bool) {
	if d.next() != '"' {
		return "", false
	}
	name, ok := d.str()
	if !ok || d.next() != ':' {
		return "", false
	}
	d.i++
	return name, true
}

// literal consumes lit (true, false, null) when it comes next.
func (d *jsonDecoder) literal(lit string) bool {
	if strings.HasPrefix(d.s[d.i:], lit) {
		d.i += len(lit)
		return true
	}
	return false
}

// message decodes a JSON object into the struct rv, of type ti laid out as l.
func (d *jsonDecoder) message(ti *typeInfo, l *goLayout, rv reflect.Value) bool {
	var seen fieldsSeen
	more, ok := d.begin('{', '}')
	for ; more; more, ok = d.afterElement('}') {
		name, named := d.memberName()
		if !named {
			return false
		}
		idx, known := ti.byName[name]
		if !known {
			// An extension name ([…]) is left to protojson, which resolves it.
			if strings.HasPrefix(name, "[") || !d.skipValue() {
				return false
			}
			continue
		}
		if !d.member(&ti.fields[idx], &l.fields[idx], idx, &seen, rv) {
			return false
		}
	}
	return ok
}

// fieldsSeen records the fields (by index) and oneofs a message object has
// set so far: protojson refuses a second value for either.
type fieldsSeen struct{ fields, oneofs uint64 }

// member decodes the value of the known field f (number idx in its message),
// held as g says, into its field of rv; null leaves the field absent.
func (d *jsonDecoder) member(f *fieldInfo, g *goField, idx int, seen *fieldsSeen, rv reflect.Value) bool {
	if seen.fields&(1<<idx) != 0 {
		return false // duplicate field
	}
	seen.fields |= 1 << idx
	if d.next() == 'n' && !f.isValue {
		return d.literal("null")
	}
	if f.oneof >= 0 {
		if seen.oneofs&(1<<f.oneof) != 0 {
			return false
		}
		seen.oneofs |= 1 << f.oneof
	}
	return g.shape != holdUnsupported && d.field(f, g, rv.Field(g.goIndex))
}

// field decodes the value of f, held as g says, into its struct field dst.
func (d *jsonDecoder) field(f *fieldInfo, g *goField, dst reflect.Value) bool {
	switch g.shape {
	case holdValue:
		return d.value(f, g, dst)
	case holdPointer:
		v := reflect.New(g.elem)
		if !d.value(f, g, v.Elem()) {
			return false
		}
		dst.Set(v)
		return true
	case holdOneof:
		w := reflect.New(g.wrapper.Elem())
		if !d.value(f, g, w.Elem().Field(0)) {
			return false
		}
		dst.Set(w)
		return true
	case holdList:
		more, ok := d.begin('[', ']')
		for ; more; more, ok = d.afterElement(']') {
			n := dst.Len()
			dst.Grow(1)
			dst.SetLen(n + 1)
			if !d.value(f, g, dst.Index(n)) {
				return false
			}
		}
		return ok
	}
	return false
}

// value decodes one value of f's kind into dst (a settable value of the
// field's Go type, or of its element type for lists).
func (d *jsonDecoder) value(f *fieldInfo, g *goField, dst reflect.Value) bool {
	switch f.kind {
	case protoreflect.StringKind:
		if d.next() != '"' {
			return false
		}
		s, ok := d.ownedStr()
		dst.SetString(s)
		return ok
	case protoreflect.BoolKind:
		d.space()
		isTrue := d.literal("true")
		dst.SetBool(isTrue)
		return isTrue || d.literal("false")
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, ok := d.signed(32)
		dst.SetInt(n)
		return ok
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, ok := d.signed(64)
		dst.SetInt(n)
		return ok
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, ok := d.unsigned(32)
		dst.SetUint(n)
		return ok
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, ok := d.unsigned(64)
		dst.SetUint(n)
		return ok
	case protoreflect.EnumKind:
		n, ok := d.enum(f)
		dst.SetInt(int64(n))
		return ok
	case protoreflect.BytesKind:
		b, ok := d.bytes()
		dst.SetBytes(b)
		return ok
	case protoreflect.MessageKind:
		return d.subMessage(f.subInfo(), g.elem, dst)
	}
	return false
}

// enum reads an enum value by name or by number.
func (d *jsonDecoder) enum(f *fieldInfo) (protoreflect.EnumNumber, bool) {
	if d.next() != '"' {
		n, ok := d.int32()
		return protoreflect.EnumNumber(n), ok
	}
	s, ok := d.str()
	if !ok {
		return 0, false
	}
	ev := f.fd.Enum().Values().ByName(protoreflect.Name(s))
	if ev == nil {
		return 0, false // unknown names are the runtime's error (unmarshalJSON)
	}
	return ev.Number(), true
}

// bytes reads a bytes field's base64 string.
func (d *jsonDecoder) bytes() ([]byte, bool) {
	if d.next() != '"' {
		return nil, false
	}
	s, ok := d.str()
	if !ok {
		return nil, false
	}
	return protojsonBase64(s)
}

// subMessage decodes a message-typed value of type sub into dst, whose Go
// type is the pointer elem: a plain message through its layout, a
// well-known type by its own reader (elem is its Go type: valueTypeFits).
func (d *jsonDecoder) subMessage(sub *typeInfo, elem reflect.Type, dst reflect.Value) bool {
	if sub.form == plainForm {
		l := sub.layoutOf(elem)
		if l == nil {
			return false
		}
		m := reflect.New(l.st)
		if !d.message(sub, l, m.Elem()) {
			return false
		}
		dst.Set(m)
		return true
	}
	var v any
	ok := false
	switch sub.form {
	case timestampForm:
		v, ok = d.timestamp()
	case structForm:
		v, ok = d.structValue()
	case valueForm:
		v, ok = d.knownValue()
	case listValueForm:
		v, ok = d.listValue()
	}
	if !ok {
		return false
	}
	dst.Set(reflect.ValueOf(v))
	return true
}

// protojsonBase64 decodes bytes as protojson does: the URL alphabet when the
// text has - or _, padding optional.
func protojsonBase64(s string) ([]byte, bool) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	return b, err == nil
}

// int32 reads an enum's number: a JSON integer without fraction or
// exponent (a string is an enum's name, see enum); other spellings protojson
// accepts (1e2) are left to it.
func (d *jsonDecoder) int32() (int32, bool) {
	d.space()
	raw, ok := d.number()
	if !ok || !plainInteger(raw) {
		return 0, false
	}
	n, err := strconv.ParseInt(raw, 10, 32)
	return int32(n), err == nil
}

// signed reads the value of an integer field of the given size: a JSON
// number, or a string holding one (ProtoJSON's form of 64-bit integers,
// which protojson accepts for every size), in the plain spelling
// -?(0|[1-9][0-9]*) and within range. The other spellings protojson accepts
// (1e2, 1.0, "1e2") and every value out of range are left to it, which also
// gives its error for what it refuses.
func (d *jsonDecoder) signed(bits int) (int64, bool) {
	raw, ok := d.integerText()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(raw, 10, bits)
	return n, err == nil
}

// unsigned is signed for unsigned fields; a minus sign (which protojson
// accepts on a zero) is left to protojson.
func (d *jsonDecoder) unsigned(bits int) (uint64, bool) {
	raw, ok := d.integerText()
	if !ok || raw[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(raw, 10, bits)
	return n, err == nil
}

// integerText consumes an integer field's value, a JSON number or a string,
// and returns its text when it is a plain integer (see signed).
func (d *jsonDecoder) integerText() (string, bool) {
	var raw string
	ok := false
	if d.next() == '"' {
		raw, ok = d.str()
	} else {
		raw, ok = d.number()
	}
	return raw, ok && plainInteger(raw)
}

// plainInteger reports whether s is -?(0|[1-9][0-9]*): the spelling of an
// integer strconv and protojson read alike (strconv also takes a leading +
// and leading zeros, which protojson refuses).
func plainInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && (s[0] != '0' || len(s) == 1) && digits(s, 0) == len(s)
}

// number consumes a JSON number and returns its text.
func (d *jsonDecoder) number() (string, bool) {
	s, start := d.s, d.i
	i := start
	if i < len(s) && s[i] == '-' {
		i++
	}
	// The integer part: 0 alone, or digits not starting with 0.
	if i < len(s) && s[i] == '0' {
		i++
	} else if i = digits(s, i); i < 0 {
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		if i = digits(s, i+1); i < 0 {
			return "", false
		}
	}
	if i = exponent(s, i); i < 0 {
		return "", false
	}
	d.i = i
	return s[start:i], true
}

// exponent returns the end of the exponent (e or E, a sign, digits) that
// may follow a number's digits at s[i:]: i when there is none, -1 when it
// is malformed.
func exponent(s string, i int) int {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	return digits(s, i)
}

// digits returns the end of the one or more decimal digits at s[i:], or -1
// when there is none.
func digits(s string, i int) int {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// ownedStr consumes a JSON string that the decoded message keeps: a copy,
// so that the message shares no memory with the input (which the caller
// may reuse, and which a stored message would otherwise keep alive whole).
// A short string is copied into the decoder's current block of copies, a
// long one on its own; a string with escapes is already a new one.
func (d *jsonDecoder) ownedStr() (string, bool) {
	start := d.i
	s, ok := d.str()
	switch {
	case !ok:
		return "", false
	case len(s) == 0:
		return "", true // no pointer into the input
	case len(s) != d.i-start-2: // escaped: already a new string
		return s, true
	}
	if len(s) > maxSharedCopy {
		return strings.Clone(s), true
	}
	if cap(d.copies)-len(d.copies) < len(s) {
		// The strings still to come are within the rest of the input.
		d.copies = make([]byte, 0, min(copyBlockSize, len(s)+len(d.s)-d.i))
	}
	n := len(d.copies)
	d.copies = append(d.copies, s...)
	// The block's bytes up to len(d.copies) are never written again.
	return unsafe.String(&d.copies[n], len(s)), true
}

// str consumes a JSON string (d.s[d.i] is '"'). Without escapes the result
// is a slice of the input, for what the decoder only looks at (member and
// enum names, base64, timestamps); ownedStr for what the message keeps.
func (d *jsonDecoder) str() (string, bool) {
	s := d.s
	start := d.i + 1
	for j := start; j < len(s); {
		c := s[j]
		switch {
		case c == '"':
			d.i = j + 1
			return s[start:j], true
		case c == '\\':
			return d.escapedString(start, j)
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			n := runeWidth(s, j)
			if n == 0 {
				return "", false
			}
			j += n
		default:
			j++
		}
	}
	return "", false
}

// runeWidth returns the length of the UTF-8 sequence at s[j], or 0 when it
// is not valid UTF-8 (which protojson refuses).
func runeWidth(s string, j int) int {
	r, n := utf8.DecodeRuneInString(s[j:])
	if r == utf8.RuneError && n == 1 {
		return 0
	}
	return n
}

// escapedString finishes a string whose first escape is at j, decoding
// escapes as protojson does (a surrogate must be followed by its pair).
func (d *jsonDecoder) escapedString(start, j int) (string, bool) {
	s := d.s
	out := make([]byte, 0, j-start+16)
	out = append(out, s[start:j]...)
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			d.i = j + 1
			return string(out), true
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			n := runeWidth(s, j)
			if n == 0 {
				return "", false
			}
			out = append(out, s[j:j+n]...)
			j += n
		case c != '\\':
			out = append(out, c)
			j++
		default:
			var ok bool
			if out, j, ok = appendEscape(out, s, j); !ok {
				return "", false
			}
		}
	}
	return "", false
}

// singleEscapes maps the letter after a backslash to the byte it stands
// for, for every escape but \u.
var singleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendEscape decodes the escape at s[j] (a backslash) onto out and
// returns the index after it; a \u surrogate must be followed by its pair.
func appendEscape(out []byte, s string, j int) ([]byte, int, bool) {
	if j+1 >= len(s) {
		return out, j, false
	}
	if e := s[j+1]; e != 'u' {
		b := singleEscapes[e]
		return append(out, b), j + 2, b != 0
	}
	r, ok := hex4(s, j+2)
	if !ok {
		return out, j, false
	}
	j += 6
	if utf16.IsSurrogate(r) {
		if j+6 > len(s) || s[j] != '\\' || s[j+1] != 'u' {
			return out, j, false
		}
		r2, ok := hex4(s, j+2)
		r = utf16.DecodeRune(r, r2)
		if !ok || r == unicode.ReplacementChar {
			return out, j, false
		}
		j += 6
	}
	return utf8.AppendRune(out, r), j, true
}

// hex4 reads the four hexadecimal digits of a \u escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i:i+4], 16, 16)
	return rune(v), err == nil
}

// skipValue consumes any JSON value (an unknown member's), checking it.
func (d *jsonDecoder) skipValue() bool {
	switch d.next() {
	case '"':
		_, ok := d.str()
		return ok
	case '{':
		more, ok := d.begin('{', '}')
		for ; more; more, ok = d.afterElement('}') {
			if _, ok := d.memberName(); !ok || !d.skipValue() {
				return false
			}
		}
		return ok
	case '[':
		more, ok := d.begin('[', ']')
		for ; more; more, ok = d.afterElement(']') {
			if !d.skipValue() {
				return false
			}
		}
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	_, ok := d.number()
	return ok
}

// timestamp reads an RFC 3339 string as protojson does.
func (d *jsonDecoder) timestamp() (*timestamppb.Timestamp, bool) {
	if d.next() != '"' {
		return nil, false
	}
	s, ok := d.str()
	if !ok {
		return nil, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, false
	}
	secs := t.Unix()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds {
		return nil, false
	}
	i := strings.LastIndexByte(s, '.')
	j := strings.LastIndexAny(s, "Z-+")
	if i >= 0 && j >= i && j-i > len(".999999999") {
		return nil, false
	}
	return &timestamppb.Timestamp{Seconds: secs, Nanos: int32(t.Nanosecond())}, true
}

// structValue reads a JSON object as a google.protobuf.Struct.
func (d *jsonDecoder) structValue() (*structpb.Struct, bool) {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	more, ok := d.begin('{', '}')
	for ; more; more, ok = d.afterElement('}') {
		if d.next() != '"' {
			return nil, false
		}
		key, ok := d.ownedStr()
		if !ok || d.next() != ':' {
			return nil, false
		}
		d.i++
		if _, dup := s.Fields[key]; dup {
			return nil, false
		}
		v, ok := d.knownValue()
		if !ok {
			return nil, false
		}
		s.Fields[key] = v
	}
	return s, ok
}

// listValue reads a JSON array as a google.protobuf.ListValue.
func (d *jsonDecoder) listValue() (*structpb.ListValue, bool) {
	l := &structpb.ListValue{}
	more, ok := d.begin('[', ']')
	for ; more; more, ok = d.afterElement(']') {
		v, ok := d.knownValue()
		if !ok {
			return nil, false
		}
		l.Values = append(l.Values, v)
	}
	return l, ok
}

// knownValue reads any JSON value as a google.protobuf.Value.
func (d *jsonDecoder) knownValue() (*structpb.Value, bool) {
	switch d.next() {
	case '"':
		s, ok := d.ownedStr()
		return &structpb.Value{Kind: &structpb.Value_StringValue{StringValue: s}}, ok
	case '{':
		s, ok := d.structValue()
		return &structpb.Value{Kind: &structpb.Value_StructValue{StructValue: s}}, ok
	case '[':
		l, ok := d.listValue()
		return &structpb.Value{Kind: &structpb.Value_ListValue{ListValue: l}}, ok
	case 't':
		return &structpb.Value{Kind: &structpb.Value_BoolValue{BoolValue: true}}, d.literal("true")
	case 'f':
		return &structpb.Value{Kind: &structpb.Value_BoolValue{BoolValue: false}}, d.literal("false")
	case 'n':
		return &structpb.Value{Kind: &structpb.Value_NullValue{}}, d.literal("null")
	}
	raw, ok := d.number()
	if !ok {
		return nil, false
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return nil, false
	}
	return &structpb.Value{Kind: &structpb.Value_NumberValue{NumberValue: f}}, true
}
