package runtime

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2agen/a2agen/internal/fieldbehavior"
)

// typeInfo is everything the runtime's ProtoJSON code knows about one
// message type: the encoder's member names (json_encode.go), the decoder's
// name index and the Go struct layout it fills (json_decode.go), the
// REQUIRED members a response always carries (codec.go), the depth plan of
// the gRPC nesting check (jsondepth.go) and the tenant field (tenant.go).
// There is one per message descriptor, in one cache, built on first use;
// the parts only some callers need (Go layout, depth plan) are built when
// first asked for, and the types of message fields are looked up when first
// followed, since types refer to each other (Struct and Value recursively).
type typeInfo struct {
	md   protoreflect.MessageDescriptor
	form jsonForm
	// encodable: json_encode.go writes messages of this type itself;
	// decodable: json_decode.go reads plain messages of this type itself
	// (into the generated Go struct described by layout).
	encodable, decodable bool
	fields               []fieldInfo    // declaration order, as protojson writes them
	byName               map[string]int // JSON name, then proto name → index in fields
	required             []requiredDefault
	tenant               protoreflect.FieldDescriptor // the singular string field "tenant", or nil

	size   atomic.Int32 // largest encoding seen so far, capped: the next buffer's size
	layout atomic.Pointer[goLayout]
	// notLaidOut is the last Go type found to have no layout (a dynamicpb
	// message), so that it is not examined again on every call.
	notLaidOut atomic.Pointer[reflect.Type]
	depth      atomic.Pointer[depthPlan]
}

// jsonForm is how a message type is written in ProtoJSON.
type jsonForm uint8

const (
	plainForm          jsonForm = iota // an object of its fields
	timestampForm                      // an RFC 3339 string
	structForm                         // an object of its map
	valueForm                          // any JSON value
	listValueForm                      // an array
	otherWellKnownForm                 // Any, Duration, wrappers, FieldMask: protojson's alone
)

// fieldInfo is what the encoder and decoder know about one field.
type fieldInfo struct {
	fd     protoreflect.FieldDescriptor
	kind   protoreflect.Kind
	member string // `"jsonName":`, as the encoder writes it
	oneof  int    // index of the real oneof the field belongs to, or -1
	// isValue: google.protobuf.Value, for which null is a value, not an
	// absent field.
	isValue bool
	sub     atomic.Pointer[typeInfo] // message fields (map values excluded): the type's info
}

// subInfo is the info of f's message type, looked up on first use.
func (f *fieldInfo) subInfo() *typeInfo {
	if ti := f.sub.Load(); ti != nil {
		return ti
	}
	ti := typeInfoOf(f.fd.Message())
	f.sub.Store(ti)
	return ti
}

// typeInfos maps a protoreflect.MessageDescriptor (an interface holding a
// pointer: no allocation on lookup, unlike a full-name key) to its
// *typeInfo.
var typeInfos sync.Map

func typeInfoOf(md protoreflect.MessageDescriptor) *typeInfo {
	if ti, ok := typeInfos.Load(md); ok {
		return ti.(*typeInfo)
	}
	ti, _ := typeInfos.LoadOrStore(md, newTypeInfo(md))
	return ti.(*typeInfo)
}

func newTypeInfo(md protoreflect.MessageDescriptor) *typeInfo {
	ti := &typeInfo{md: md, form: jsonFormOf(md)}
	fields := md.Fields()
	special := leftToProtojson(md)
	ti.encodable = !special && ti.form != otherWellKnownForm
	ti.decodable = !special && ti.form == plainForm && md.FullName().Parent() != "google.protobuf" && fields.Len() <= 64
	ti.fields = make([]fieldInfo, fields.Len())
	ti.byName = make(map[string]int, 2*fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !ti.fields[i].init(fd) {
			ti.encodable = false // a name protojson refuses to write
		}
		ti.byName[fd.JSONName()] = i
		if fd.Name() == tenantFieldName && fd.Kind() == protoreflect.StringKind && fd.Cardinality() != protoreflect.Repeated {
			ti.tenant = fd
		}
	}
	for i := range fields.Len() { // a JSON name wins over an equal proto name, as in protojson
		if name := string(fields.Get(i).Name()); !hasKey(ti.byName, name) {
			ti.byName[name] = i
		}
	}
	ti.required = requiredDefaultsOf(md)
	return ti
}

// leftToProtojson reports whether messages of type md need what only
// protojson does: extensions, map entries, proto2 required fields (which
// protojson checks are set).
func leftToProtojson(md protoreflect.MessageDescriptor) bool {
	if md.ExtensionRanges().Len() > 0 || md.IsMapEntry() {
		return true
	}
	fields := md.Fields()
	for i := range fields.Len() {
		if fields.Get(i).Cardinality() == protoreflect.Required {
			return true
		}
	}
	return false
}

// init describes fd; false when protojson refuses to write its JSON name.
func (f *fieldInfo) init(fd protoreflect.FieldDescriptor) bool {
	f.fd, f.kind, f.oneof = fd, fd.Kind(), -1
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
		f.oneof = od.Index()
	}
	f.isValue = fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Value"
	name, ok := appendJSONStringChecked(nil, fd.JSONName())
	f.member = string(name) + ":"
	return ok
}

func jsonFormOf(md protoreflect.MessageDescriptor) jsonForm {
	if md.FullName().Parent() != "google.protobuf" {
		return plainForm
	}
	switch md.Name() {
	case "Timestamp":
		return timestampForm
	case "Struct":
		return structForm
	case "Value":
		return valueForm
	case "ListValue":
		return listValueForm
	case "Any", "Duration", "FieldMask", "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return otherWellKnownForm
	}
	return plainForm // Empty and the descriptor types have no special form
}

func hasKey(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// requiredDefaultsOf renders the `"jsonName":default` member of each field
// of md marked REQUIRED (fieldbehavior.Required) outside a real oneof.
func requiredDefaultsOf(md protoreflect.MessageDescriptor) []requiredDefault {
	var out []requiredDefault
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !fieldbehavior.Required(fd) {
			continue
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue
		}
		member := appendJSONString(nil, fd.JSONName())
		member = append(member, ':')
		member = append(member, defaultJSONValue(fd)...)
		out = append(out, requiredDefault{fd: fd, member: member})
	}
	return out
}

// depthPlan returns the plan of the gRPC nesting check (jsondepth.go),
// built on first use.
func (ti *typeInfo) depthPlan() *depthPlan {
	if p := ti.depth.Load(); p != nil {
		return p
	}
	p, _ := buildDepthPlan(ti.md, map[protoreflect.FullName]bool{})
	ti.depth.Store(p)
	return p
}

// goLayout is where the fields of a decodable type live in its generated
// Go struct.
type goLayout struct {
	goType reflect.Type // *T
	st     reflect.Type // T
	fields []goField    // parallel to typeInfo.fields
}

// goShape is how a field is held in its Go struct.
type goShape uint8

const (
	holdUnsupported goShape = iota // present in the input: left to protojson
	holdValue                      // the struct field holds the value
	holdPointer                    // explicit presence: *T
	holdList                       // []T
	holdOneof                      // an interface holding *Wrapper{Value}
)

type goField struct {
	shape   goShape
	goIndex int          // index of the struct field (the oneof's interface for holdOneof)
	wrapper reflect.Type // holdOneof: the *Wrapper type, its first field holds the value
	elem    reflect.Type // holdPointer: T; message kinds: *T of the value or element
}

var (
	timestampType    = reflect.TypeFor[*timestamppb.Timestamp]()
	structType       = reflect.TypeFor[*structpb.Struct]()
	valueType        = reflect.TypeFor[*structpb.Value]()
	listValueType    = reflect.TypeFor[*structpb.ListValue]()
	bytesType        = reflect.TypeFor[[]byte]()
	messageStateType = reflect.TypeFor[protoimpl.MessageState]()
)

// layoutOf returns the layout of t, the Go type of a message of this type,
// or nil when the decoder cannot fill it: the type is not decodable, t is
// not a protoc-gen-go struct (dynamicpb), or t is another Go type than the
// one the layout was built for.
func (ti *typeInfo) layoutOf(t reflect.Type) *goLayout {
	if l := ti.layout.Load(); l != nil {
		if l.goType == t {
			return l
		}
		return nil
	}
	if !ti.decodable {
		return nil
	}
	if nt := ti.notLaidOut.Load(); nt != nil && *nt == t {
		return nil
	}
	l := buildGoLayout(ti, t)
	if l == nil {
		ti.rememberNotLaidOut(t)
		return nil
	}
	ti.layout.CompareAndSwap(nil, l)
	if l = ti.layout.Load(); l.goType == t {
		return l
	}
	return nil
}

// rememberNotLaidOut stores t in notLaidOut (a function of its own, so that
// only this slow path moves t to the heap).
func (ti *typeInfo) rememberNotLaidOut(t reflect.Type) { ti.notLaidOut.Store(&t) }

// buildGoLayout locates the fields of ti in the generated struct *T = t,
// from the protoc-gen-go struct tags.
func buildGoLayout(ti *typeInfo, t reflect.Type) (l *goLayout) {
	defer func() {
		if recover() != nil { // a Go type this layout cannot read
			l = nil
		}
	}()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	st := t.Elem()
	if sf, ok := st.FieldByName("state"); !ok || sf.Type != messageStateType {
		return nil // not generated by protoc-gen-go
	}
	pm, ok := reflect.Zero(t).Interface().(proto.Message)
	if !ok || pm.ProtoReflect().Descriptor() != ti.md {
		return nil
	}
	byNumber, oneofs := structFieldIndexes(st)
	l = &goLayout{goType: t, st: st, fields: make([]goField, len(ti.fields))}
	for i := range ti.fields {
		planField(&l.fields[i], &ti.fields[i], st, byNumber, oneofs)
	}
	return l
}

// structFieldIndexes indexes the fields of a protoc-gen-go struct st: the
// struct field of each field number, and the interface field of each oneof
// by the oneof's name.
func structFieldIndexes(st reflect.Type) (byNumber map[protoreflect.FieldNumber]int, oneofs map[string]int) {
	byNumber, oneofs = map[protoreflect.FieldNumber]int{}, map[string]int{}
	for i := range st.NumField() {
		sf := st.Field(i)
		if name, ok := sf.Tag.Lookup("protobuf_oneof"); ok {
			oneofs[name] = i
			continue
		}
		if n, ok := tagNumber(sf.Tag); ok {
			byNumber[n] = i
		}
	}
	return byNumber, oneofs
}

// tagNumber reads the field number of a protoc-gen-go struct tag,
// `protobuf:"bytes,1,opt,name=message_id,..."`.
func tagNumber(tag reflect.StructTag) (protoreflect.FieldNumber, bool) {
	v, ok := tag.Lookup("protobuf")
	if !ok {
		return 0, false
	}
	parts := strings.Split(v, ",")
	if len(parts) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, false
	}
	return protoreflect.FieldNumber(n), true
}

// planField fills in how f is held in the struct st, or leaves the field
// holdUnsupported.
func planField(g *goField, f *fieldInfo, st reflect.Type, byNumber map[protoreflect.FieldNumber]int, oneofs map[string]int) {
	fd := f.fd
	if fd.IsMap() || fd.IsExtension() {
		return
	}
	if f.oneof >= 0 {
		planOneofField(g, f, st, oneofs)
		return
	}
	idx, ok := byNumber[fd.Number()]
	if !ok {
		return
	}
	gt := st.Field(idx).Type
	g.goIndex = idx
	switch {
	case fd.IsList():
		if gt.Kind() == reflect.Slice && gt != bytesType && valueTypeFits(g, f, gt.Elem()) {
			g.shape = holdList
		}
	case fd.HasPresence() && fd.Message() == nil:
		if gt.Kind() == reflect.Pointer && valueTypeFits(g, f, gt.Elem()) {
			g.elem, g.shape = gt.Elem(), holdPointer
		}
	default:
		if valueTypeFits(g, f, gt) {
			g.shape = holdValue
		}
	}
}

// planOneofField fills in how f, a member of a real oneof, is held in the
// struct st: in the oneof's interface field, as the single field of a
// wrapper struct.
func planOneofField(g *goField, f *fieldInfo, st reflect.Type, oneofs map[string]int) {
	fd := f.fd
	idx, ok := oneofs[string(fd.ContainingOneof().Name())]
	if !ok {
		return
	}
	w := oneofWrapper(st, idx, fd)
	if w == nil || !valueTypeFits(g, f, w.Elem().Field(0).Type) {
		return
	}
	g.goIndex, g.wrapper, g.shape = idx, w, holdOneof
}

// oneofWrapper is the Go type that holds fd, a case of the oneof whose
// interface is field idx of the protoc-gen-go struct st: *W for a struct W
// whose first field holds the value. Nil when it is not such a type.
func oneofWrapper(st reflect.Type, idx int, fd protoreflect.FieldDescriptor) reflect.Type {
	// Set the case on a scratch message and look.
	scratch := reflect.New(st)
	sm := scratch.Interface().(proto.Message).ProtoReflect()
	sm.Set(fd, sm.NewField(fd))
	iface := scratch.Elem().Field(idx)
	if iface.IsNil() {
		return nil
	}
	w := iface.Elem().Type()
	if w.Kind() != reflect.Pointer || w.Elem().Kind() != reflect.Struct || w.Elem().NumField() < 1 {
		return nil
	}
	if n, ok := tagNumber(w.Elem().Field(0).Tag); !ok || n != fd.Number() {
		return nil
	}
	return w
}

// valueTypeFits reports whether a value of f's kind can be stored in gt, and
// records gt as the Go type of message fields. A well-known type must be
// its generated Go type, which the decoder's own readers build.
func valueTypeFits(g *goField, f *fieldInfo, gt reflect.Type) bool {
	switch f.kind {
	case protoreflect.StringKind:
		return gt.Kind() == reflect.String
	case protoreflect.BoolKind:
		return gt.Kind() == reflect.Bool
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return gt.Kind() == reflect.Int32
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return gt.Kind() == reflect.Int64
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return gt.Kind() == reflect.Uint32
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return gt.Kind() == reflect.Uint64
	case protoreflect.EnumKind:
		return gt.Kind() == reflect.Int32 && f.fd.Enum().FullName() != "google.protobuf.NullValue"
	case protoreflect.BytesKind:
		return gt == bytesType
	case protoreflect.MessageKind:
		if gt.Kind() != reflect.Pointer {
			return false
		}
		pm, ok := reflect.Zero(gt).Interface().(proto.Message)
		if !ok || pm.ProtoReflect().Descriptor().FullName() != f.fd.Message().FullName() {
			return false
		}
		switch jsonFormOf(f.fd.Message()) {
		case timestampForm:
			ok = gt == timestampType
		case structForm:
			ok = gt == structType
		case valueForm:
			ok = gt == valueType
		case listValueForm:
			ok = gt == listValueType
		}
		g.elem = gt
		return ok
	}
	return false // floating point, groups: protojson
}
