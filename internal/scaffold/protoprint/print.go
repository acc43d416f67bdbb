// Package protoprint writes a .proto source file from a file descriptor, so
// that .proto files known to a Go binary only as compiled descriptors (such
// as googleapis' google/api/*.proto, registered by genproto) can be given to
// protoc. Descriptors carry no comments, so neither does the output; what
// protoc compiles from it is the same descriptor (a test checks this by
// compiling the output again).
//
// It covers proto2 and proto3 files: messages, nested types, map fields,
// oneofs (and proto3 optional), enums, extensions, services, reserved
// ranges and names, extension ranges, default values and options of every
// kind. Editions files are refused.
package protoprint

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// File returns the .proto source of fd, headed by the comment lines of
// header (each written as "// line").
func File(fd protoreflect.FileDescriptor, header string) ([]byte, error) {
	p := &printer{fd: fd, fdp: protodesc.ToFileDescriptorProto(fd)}
	for line := range strings.SplitSeq(strings.TrimRight(header, "\n"), "\n") {
		if header == "" {
			break
		}
		p.line("// " + line)
	}
	if err := p.file(); err != nil {
		return nil, fmt.Errorf("printing %s: %w", fd.Path(), err)
	}
	return []byte(p.b.String()), nil
}

type printer struct {
	fd     protoreflect.FileDescriptor
	fdp    *descriptorpb.FileDescriptorProto
	b      strings.Builder
	indent int
}

func (p *printer) line(s string) {
	if s != "" {
		p.b.WriteString(strings.Repeat("  ", p.indent))
		p.b.WriteString(s)
	}
	p.b.WriteByte('\n')
}

func (p *printer) file() error {
	switch p.fd.Syntax() {
	case protoreflect.Proto2, protoreflect.Proto3:
	default:
		return fmt.Errorf("syntax %v is not supported", p.fd.Syntax())
	}
	if p.b.Len() > 0 {
		p.line("")
	}
	p.line(fmt.Sprintf("syntax = %q;", p.fd.Syntax().String()))
	p.line("")
	if pkg := p.fd.Package(); pkg != "" {
		p.line("package " + string(pkg) + ";")
		p.line("")
	}
	p.imports()
	if n, err := p.optionLines(p.fd.Options(), nil); err != nil {
		return err
	} else if n > 0 {
		p.line("")
	}
	if err := p.extensions(p.fd.Extensions()); err != nil {
		return err
	}
	if err := p.declarations(p.fd.Messages(), p.fd.Enums(), true); err != nil {
		return err
	}
	services := p.fd.Services()
	for i := range services.Len() {
		if err := p.service(services.Get(i)); err != nil {
			return err
		}
		p.line("")
	}
	// One trailing newline only.
	out := strings.TrimRight(p.b.String(), "\n") + "\n"
	p.b.Reset()
	p.b.WriteString(out)
	return nil
}

// imports writes the file's imports, then a blank line if there are any.
func (p *printer) imports() {
	imports := p.fd.Imports()
	for i := range imports.Len() {
		imp := imports.Get(i)
		kind := ""
		if imp.IsPublic {
			kind = "public "
		}
		p.line(fmt.Sprintf("import %s%q;", kind, imp.Path()))
	}
	if imports.Len() > 0 {
		p.line("")
	}
}

// optionLines writes an "option …;" line an option set in opts (those in
// skip apart) and returns how many it wrote.
func (p *printer) optionLines(opts proto.Message, skip map[string]bool) (int, error) {
	lines, err := p.options(opts, skip)
	if err != nil {
		return 0, err
	}
	for _, o := range lines {
		p.line("option " + o + ";")
	}
	return len(lines), nil
}

// declarations writes the messages, then the enums, of a file (each
// followed by a blank line: blank) or of a message.
func (p *printer) declarations(msgs protoreflect.MessageDescriptors, enums protoreflect.EnumDescriptors, blank bool) error {
	for i := range msgs.Len() {
		if err := p.message(msgs.Get(i)); err != nil {
			return err
		}
		if blank {
			p.line("")
		}
	}
	for i := range enums.Len() {
		if err := p.enum(enums.Get(i)); err != nil {
			return err
		}
		if blank {
			p.line("")
		}
	}
	return nil
}

func (p *printer) message(md protoreflect.MessageDescriptor) error {
	if md.IsMapEntry() {
		return nil // written as map<K, V> fields
	}
	return p.block("message "+string(md.Name()), md.Options(), map[string]bool{"map_entry": true}, func() error {
		if err := p.fields(md.Fields()); err != nil {
			return err
		}
		if err := p.extensions(md.Extensions()); err != nil {
			return err
		}
		if err := p.declarations(md.Messages(), md.Enums(), false); err != nil {
			return err
		}
		if err := p.extensionRanges(md); err != nil {
			return err
		}
		p.reserved(md.ReservedRanges(), md.ReservedNames(), 536870911)
		return nil
	})
}

// fields writes a message's fields in order, a oneof's where its first
// field stands.
func (p *printer) fields(fields protoreflect.FieldDescriptors) error {
	printedOneofs := map[protoreflect.OneofDescriptor]bool{}
	for i := range fields.Len() {
		f := fields.Get(i)
		if od := f.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if printedOneofs[od] {
				continue
			}
			printedOneofs[od] = true
			if err := p.oneof(od); err != nil {
				return err
			}
			continue
		}
		s, err := p.field(f, true)
		if err != nil {
			return err
		}
		p.line(s)
	}
	return nil
}

// extensionRanges writes a message's extension ranges with their options.
func (p *printer) extensionRanges(md protoreflect.MessageDescriptor) error {
	ranges := md.ExtensionRanges()
	for i := range ranges.Len() {
		r := ranges.Get(i)
		opt, err := p.inlineOptions(md.ExtensionRangeOptions(i))
		if err != nil {
			return err
		}
		p.line("extensions " + rangeText(r[0], r[1]-1, 536870911) + opt + ";")
	}
	return nil
}

// inlineOptions renders first, then the options set in opts, as the
// bracketed options of a declaration (" [a = 1, b = 2]"); "" when there
// are none.
func (p *printer) inlineOptions(opts proto.Message, first ...string) (string, error) {
	more, err := p.options(opts, nil)
	if err != nil {
		return "", err
	}
	all := append(first, more...)
	if len(all) == 0 {
		return "", nil
	}
	return " [" + strings.Join(all, ", ") + "]", nil
}

func (p *printer) oneof(od protoreflect.OneofDescriptor) error {
	return p.block("oneof "+string(od.Name()), od.Options(), nil, func() error {
		fields := od.Fields()
		for i := range fields.Len() {
			s, err := p.field(fields.Get(i), false)
			if err != nil {
				return err
			}
			p.line(s)
		}
		return nil
	})
}

// block writes a declaration with a body: "head {", the options set in
// opts (skip apart), then what body writes, one level deeper, then "}".
func (p *printer) block(head string, opts proto.Message, skip map[string]bool, body func() error) error {
	p.line(head + " {")
	p.indent++
	defer func() { p.indent--; p.line("}") }()
	if _, err := p.optionLines(opts, skip); err != nil {
		return err
	}
	return body()
}

func rangeText(start, end, max protoreflect.FieldNumber) string {
	switch {
	case start == end:
		return strconv.Itoa(int(start))
	case end >= max:
		return fmt.Sprintf("%d to max", start)
	}
	return fmt.Sprintf("%d to %d", start, end)
}

type reservedRanges interface {
	Len() int
	Get(int) [2]protoreflect.FieldNumber
}

func (p *printer) reserved(ranges reservedRanges, names protoreflect.Names, max protoreflect.FieldNumber) {
	var parts []string
	for i := range ranges.Len() {
		r := ranges.Get(i)
		parts = append(parts, rangeText(r[0], r[1]-1, max))
	}
	if len(parts) > 0 {
		p.line("reserved " + strings.Join(parts, ", ") + ";")
	}
	var quoted []string
	for i := range names.Len() {
		quoted = append(quoted, strconv.Quote(string(names.Get(i))))
	}
	if len(quoted) > 0 {
		p.line("reserved " + strings.Join(quoted, ", ") + ";")
	}
}

// field returns the declaration of a field; withLabel is false inside a
// oneof, where labels are not written.
func (p *printer) field(f protoreflect.FieldDescriptor, withLabel bool) (string, error) {
	typ, err := fieldType(f, withLabel)
	if err != nil {
		return "", err
	}
	var first []string
	if f.HasDefault() {
		first = append(first, "default = "+defaultText(f))
	}
	if !f.IsExtension() && f.HasJSONName() && f.JSONName() != jsonCamelCase(string(f.Name())) {
		first = append(first, "json_name = "+strconv.Quote(f.JSONName()))
	}
	opts, err := p.inlineOptions(f.Options(), first...)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s%s = %d%s;", typ, f.Name(), f.Number(), opts), nil
}

// fieldType is what a field's declaration starts with: map<K, V>, or its
// label (withLabel) and type, followed by a space.
func fieldType(f protoreflect.FieldDescriptor, withLabel bool) (string, error) {
	if f.IsMap() {
		return fmt.Sprintf("map<%s, %s> ", typeName(f.MapKey()), typeName(f.MapValue())), nil
	}
	if f.Kind() == protoreflect.GroupKind {
		return "", fmt.Errorf("field %s: groups are not supported", f.FullName())
	}
	return label(f, withLabel) + typeName(f) + " ", nil
}

// label is a field's label as written before its type; none inside a
// oneof (!withLabel) and for proto3 fields without the optional keyword.
func label(f protoreflect.FieldDescriptor, withLabel bool) string {
	switch {
	case !withLabel:
		return ""
	case f.Cardinality() == protoreflect.Repeated:
		return "repeated "
	case f.Cardinality() == protoreflect.Required:
		return "required "
	case f.Syntax() == protoreflect.Proto2 || f.HasOptionalKeyword():
		return "optional "
	}
	return ""
}

// typeName is the type of a field as written in a declaration; message and
// enum types are fully qualified with a leading dot, which protoc resolves
// without looking at scopes.
func typeName(f protoreflect.FieldDescriptor) string {
	switch f.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "." + string(f.Message().FullName())
	case protoreflect.EnumKind:
		return "." + string(f.Enum().FullName())
	}
	return f.Kind().String()
}

func defaultText(f protoreflect.FieldDescriptor) string {
	v := f.Default()
	switch f.Kind() {
	case protoreflect.StringKind:
		return quoteBytes([]byte(v.String()))
	case protoreflect.BytesKind:
		return quoteBytes(v.Bytes())
	case protoreflect.EnumKind:
		return string(f.DefaultEnumValue().Name())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return floatText(v.Float())
	}
	return fmt.Sprint(v.Interface())
}

func floatText(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// quoteBytes writes a proto string literal: printable ASCII as itself,
// everything else as octal escapes, which every protoc version reads.
func quoteBytes(s []byte) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonCamelCase is protoc's default json_name of a field name.
func jsonCamelCase(s string) string {
	var b strings.Builder
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			upper = true
		case upper && 'a' <= c && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			upper = false
		default:
			b.WriteByte(c)
			upper = false
		}
	}
	return b.String()
}

func (p *printer) enum(ed protoreflect.EnumDescriptor) error {
	return p.block("enum "+string(ed.Name()), ed.Options(), nil, func() error {
		values := ed.Values()
		for i := range values.Len() {
			v := values.Get(i)
			opts, err := p.inlineOptions(v.Options())
			if err != nil {
				return err
			}
			p.line(fmt.Sprintf("%s = %d%s;", v.Name(), v.Number(), opts))
		}
		p.reserved(enumRanges{ed.ReservedRanges()}, ed.ReservedNames(), math.MaxInt32)
		return nil
	})
}

// enumRanges adapts enum reserved ranges (inclusive ends) to the
// exclusive-end form of field ranges.
type enumRanges struct{ r protoreflect.EnumRanges }

func (e enumRanges) Len() int { return e.r.Len() }
func (e enumRanges) Get(i int) [2]protoreflect.FieldNumber {
	r := e.r.Get(i)
	return [2]protoreflect.FieldNumber{protoreflect.FieldNumber(r[0]), protoreflect.FieldNumber(r[1]) + 1}
}

// extensions writes extension declarations grouped into one extend block
// per extendee, in declaration order.
func (p *printer) extensions(exts protoreflect.ExtensionDescriptors) error {
	var extendees []protoreflect.FullName
	byExtendee := map[protoreflect.FullName][]protoreflect.ExtensionDescriptor{}
	for i := range exts.Len() {
		x := exts.Get(i)
		name := x.ContainingMessage().FullName()
		if byExtendee[name] == nil {
			extendees = append(extendees, name)
		}
		byExtendee[name] = append(byExtendee[name], x)
	}
	for _, name := range extendees {
		p.line("extend ." + string(name) + " {")
		p.indent++
		for _, x := range byExtendee[name] {
			s, err := p.field(x, true)
			if err != nil {
				return err
			}
			p.line(s)
		}
		p.indent--
		p.line("}")
		p.line("")
	}
	return nil
}

func (p *printer) service(sd protoreflect.ServiceDescriptor) error {
	return p.block("service "+string(sd.Name()), sd.Options(), nil, func() error {
		methods := sd.Methods()
		for i := range methods.Len() {
			if err := p.method(methods.Get(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// method writes an rpc, its options (if any) in a block of its own.
func (p *printer) method(m protoreflect.MethodDescriptor) error {
	opts, err := p.options(m.Options(), nil)
	if err != nil {
		return err
	}
	decl := fmt.Sprintf("rpc %s(%s%s) returns (%s%s)", m.Name(),
		streamKeyword(m.IsStreamingClient()), "."+string(m.Input().FullName()),
		streamKeyword(m.IsStreamingServer()), "."+string(m.Output().FullName()))
	if len(opts) == 0 {
		p.line(decl + ";")
		return nil
	}
	p.line(decl + " {")
	p.indent++
	for _, o := range opts {
		p.line("option " + o + ";")
	}
	p.indent--
	p.line("}")
	return nil
}

// streamKeyword is what precedes a streamed rpc input or output.
func streamKeyword(streaming bool) string {
	if streaming {
		return "stream "
	}
	return ""
}

// options renders the set fields of an options message as name = value
// assignments, known fields first in field order, then extensions by name.
// skip names known fields written elsewhere (such as map_entry).
func (p *printer) options(opts proto.Message, skip map[string]bool) ([]string, error) {
	if opts == nil {
		return nil, nil
	}
	m := opts.ProtoReflect()
	if !m.IsValid() {
		return nil, nil
	}
	if len(m.GetUnknown()) > 0 {
		return nil, fmt.Errorf("options %s hold fields this binary does not know", m.Descriptor().FullName())
	}
	var known, exts []entry
	for _, e := range setFields(m) {
		switch {
		case e.fd.IsExtension():
			exts = append(exts, e)
		case !skip[string(e.fd.Name())]:
			known = append(known, e)
		}
	}
	slices.SortFunc(known, byNumber)
	slices.SortFunc(exts, func(a, b entry) int { return strings.Compare(string(a.fd.FullName()), string(b.fd.FullName())) })
	var out []string
	for _, e := range append(known, exts...) {
		if e.fd.IsMap() {
			return nil, fmt.Errorf("map-valued option %s is not supported", e.fd.FullName())
		}
		name := string(e.fd.Name())
		if e.fd.IsExtension() {
			name = "(" + string(e.fd.FullName()) + ")"
		}
		values, err := e.values()
		if err != nil {
			return nil, err
		}
		for _, v := range values {
			out = append(out, name+" = "+v)
		}
	}
	return out, nil
}

// entry is a field set in a message, with its value.
type entry struct {
	fd protoreflect.FieldDescriptor
	v  protoreflect.Value
}

// setFields are the fields set in m, in the order Range visits them.
func setFields(m protoreflect.Message) []entry {
	var out []entry
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		out = append(out, entry{fd, v})
		return true
	})
	return out
}

func byNumber(a, b entry) int { return int(a.fd.Number()) - int(b.fd.Number()) }

// values renders the value of e as option values: one for a singular
// field, one per element of a list.
func (e entry) values() ([]string, error) {
	if !e.fd.IsList() {
		s, err := optionValue(e.fd, e.v)
		return []string{s}, err
	}
	list := e.v.List()
	out := make([]string, 0, list.Len())
	for i := range list.Len() {
		s, err := optionValue(e.fd, list.Get(i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func optionValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) (string, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return quoteBytes([]byte(v.String())), nil
	case protoreflect.BytesKind:
		return quoteBytes(v.Bytes()), nil
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name()), nil
		}
		return strconv.Itoa(int(v.Enum())), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return floatText(v.Float()), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return aggregate(v.Message())
	}
	return fmt.Sprint(v.Interface()), nil
}

// aggregate writes a message-valued option in the text format protoc
// accepts ({ name: value ... }). It is written here rather than with
// prototext, whose output deliberately varies between builds.
func aggregate(m protoreflect.Message) (string, error) {
	entries := setFields(m)
	slices.SortFunc(entries, byNumber)
	var parts []string
	for _, e := range entries {
		if e.fd.IsMap() {
			return "", fmt.Errorf("map field %s in an option value is not supported", e.fd.FullName())
		}
		name := string(e.fd.Name())
		if e.fd.IsExtension() {
			name = "[" + string(e.fd.FullName()) + "]"
		}
		values, err := e.values()
		if err != nil {
			return "", err
		}
		for _, v := range values {
			parts = append(parts, name+": "+v)
		}
	}
	if len(m.GetUnknown()) > 0 {
		return "", fmt.Errorf("option value %s holds fields this binary does not know", m.Descriptor().FullName())
	}
	if len(parts) == 0 {
		return "{}", nil
	}
	return "{ " + strings.Join(parts, " ") + " }", nil
}
