package runtime

import (
	"reflect"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The view a caller of an older version gets of an answer (versionPlan.view).
// Since tasks and their events carry a generation, an answer holds
// something a 1.0 caller lacks whenever the server tracks generations: the
// view is on the path of every such call, so it looks and copies as little
// as it can. It works on the Go structs protoc-gen-go generates, as struct
// fields, not through protoreflect (whose Has, Get and Set cost many times
// a struct field's read or write), in one walk: it looks only at the fields
// that can lead to something the version lacks, and copies a message only
// when it is on the way to such a thing — shallowly, its exported fields:
// everything else (a task's history, its artifacts and their parts) is
// shared with the original, which is never modified. Where a list or map
// leads to a lacked element, the copy gets a new list or map holding the
// same elements but the copied ones, and a oneof case gets a new wrapper.
//
// The original may be marshalled on other goroutines at the same time (a
// stream event shared by several subscribers): a marshal writes the
// message's state and size cache, so a copy reads the exported fields only
// (and the unknown fields, which a marshal does not write).
//
// A message of another Go type (dynamicpb), or of a struct this layout does
// not know (extension fields, the opaque API), is deep-copied and stripped
// through protoreflect instead.

// structPlan is a versionPlan laid out on the protoc-gen-go struct of its
// message type.
type structPlan struct {
	goType reflect.Type // *T
	// fallback: the plan cannot be laid out on goType; messages of that
	// type are viewed through protoreflect.
	fallback bool
	exported []int // T's exported fields: what a copy of a T copies
	unknown  int   // T's unknown fields, or -1
	lacked   []goSlot
	enums    []enumSlot
	nested   []nestedSlot
}

// goSlot is where a field of a message lives in its Go struct.
type goSlot struct {
	index int // the struct field; for a oneof case, the oneof's interface
	// wrapper: for a oneof case, the type holding it, *W for a struct W
	// whose first field holds the value.
	wrapper reflect.Type
	// byLen: a list, a map or proto3 bytes, set when not empty.
	byLen bool
}

// enumSlot is the goSlot of an enumPlan's field.
type enumSlot struct {
	goSlot
	list   bool
	lacked map[protoreflect.EnumNumber]bool
}

// nestedSlot is the goSlot of a nestedPlan's field, with the plan of the
// messages it holds.
type nestedSlot struct {
	goSlot
	shape messageShape
	plan  *structPlan
}

// messageShape is how a message field holds its messages.
type messageShape uint8

const (
	oneMessage  messageShape = iota // *M
	messageList                     // []*M
	messageMap                      // map[K]*M
)

// isSet reports whether the field is set in v (a T), as protoreflect's Has
// would; o reads v's oneofs.
func (s *goSlot) isSet(v reflect.Value, o *oneofReader) bool {
	switch {
	case s.wrapper != nil:
		w := o.held(v, s.index)
		return w.IsValid() && w.Type() == s.wrapper
	case s.byLen:
		return v.Field(s.index).Len() > 0
	default:
		return !v.Field(s.index).IsZero()
	}
}

// get is the value of the field, set in v: for a oneof case, its
// wrapper's.
func (s *goSlot) get(v reflect.Value, o *oneofReader) reflect.Value {
	if s.wrapper != nil {
		return o.held(v, s.index).Elem().Field(0)
	}
	return v.Field(s.index)
}

// oneofReader reads what the oneofs of one message hold once for all the
// slots of their cases (a oneof's interface is dearer to read through
// reflect than a field: reflect.Value.Elem of an interface): the last one
// read, which is enough, the slots of a oneof's cases being laid out one
// after the other and most messages having one.
type oneofReader struct {
	index   int           // the struct field of the oneof read last; -1: none yet
	wrapper reflect.Value // what it holds (a *W), the zero Value when unset
}

// held is what the oneof in struct field index of v holds: a *W, or the
// zero Value when unset.
func (o *oneofReader) held(v reflect.Value, index int) reflect.Value {
	if o.index != index {
		o.index, o.wrapper = index, reflect.Value{}
		if f := v.Field(index); !f.IsNil() {
			o.wrapper = f.Elem()
		}
	}
	return o.wrapper
}

// set gives the field of the copy c the value x: a oneof case in a new
// wrapper, since the one c holds is the original's.
func (s *goSlot) set(c, x reflect.Value) {
	if s.wrapper != nil {
		w := reflect.New(s.wrapper.Elem())
		w.Elem().Field(0).Set(x)
		x = w
	}
	c.Field(s.index).Set(x)
}

// view returns the message x (a *T) as the plan's version sees it: x
// itself with changed false when it holds nothing the version lacks,
// otherwise a copy without it. drop reports a oneof case of x removed
// when top is set (a stream event of a kind the version lacks).
func (s *structPlan) view(x reflect.Value, top bool) (out reflect.Value, changed, drop bool) {
	if x.IsNil() {
		return x, false, false
	}
	v := x.Elem()
	var c reflect.Value // the copy's struct, made at the first change
	o := oneofReader{index: -1}
	for i := range s.lacked {
		f := &s.lacked[i]
		if !f.isSet(v, &o) {
			continue
		}
		c = s.copied(c, v)
		drop = drop || top && f.wrapper != nil
		c.Field(f.index).SetZero()
	}
	for i := range s.enums {
		e := &s.enums[i]
		if !e.isSet(v, &o) {
			continue
		}
		if y, ok := e.view(e.get(v, &o)); ok {
			c = s.copied(c, v)
			e.set(c, y)
		}
	}
	for i := range s.nested {
		n := &s.nested[i]
		if !n.isSet(v, &o) {
			continue
		}
		if y, ok := n.view(n.get(v, &o)); ok {
			c = s.copied(c, v)
			n.set(c, y)
		}
	}
	if !c.IsValid() {
		return x, false, false
	}
	return c.Addr(), true, drop
}

// copied is c, the copy of v made so far, or a copy of v when none is.
func (s *structPlan) copied(c, v reflect.Value) reflect.Value {
	if c.IsValid() {
		return c
	}
	return s.copyOf(v)
}

// copyOf is a new T holding the exported and unknown fields of v (a T):
// the values themselves, so that lists, maps, messages and the targets of
// pointers are shared with v.
func (s *structPlan) copyOf(v reflect.Value) reflect.Value {
	c := reflect.New(s.goType.Elem()).Elem()
	for _, i := range s.exported {
		c.Field(i).Set(v.Field(i))
	}
	if s.unknown >= 0 && v.Field(s.unknown).Len() > 0 {
		u := v.Addr().Interface().(proto.Message).ProtoReflect().GetUnknown()
		c.Addr().Interface().(proto.Message).ProtoReflect().SetUnknown(u)
	}
	return c
}

// view returns the enum value or list x with the values the version lacks
// as the zero value, and whether there were any.
func (e *enumSlot) view(x reflect.Value) (reflect.Value, bool) {
	if !e.list {
		if !e.lacked[protoreflect.EnumNumber(x.Int())] {
			return x, false
		}
		return reflect.Zero(x.Type()), true
	}
	var y reflect.Value // made at the first lacked value
	for i := range x.Len() {
		if e.lacked[protoreflect.EnumNumber(x.Index(i).Int())] {
			if !y.IsValid() {
				y = reflect.MakeSlice(x.Type(), x.Len(), x.Len())
				reflect.Copy(y, x)
			}
			y.Index(i).SetInt(0)
		}
	}
	return y, y.IsValid()
}

// view returns the message, list or map of messages x with the messages
// that hold something the version lacks replaced by copies without it, and
// whether there were any.
func (n *nestedSlot) view(x reflect.Value) (reflect.Value, bool) {
	switch n.shape {
	case messageList:
		var y reflect.Value // made at the first message copied
		for i := range x.Len() {
			if m, changed, _ := n.plan.view(x.Index(i), false); changed {
				if !y.IsValid() {
					y = reflect.MakeSlice(x.Type(), x.Len(), x.Len())
					reflect.Copy(y, x)
				}
				y.Index(i).Set(m)
			}
		}
		return y, y.IsValid()
	case messageMap:
		var y reflect.Value
		for it := x.MapRange(); it.Next(); {
			if m, changed, _ := n.plan.view(it.Value(), false); changed {
				if !y.IsValid() {
					y = reflect.MakeMapWithSize(x.Type(), x.Len())
					for all := x.MapRange(); all.Next(); {
						y.SetMapIndex(all.Key(), all.Value())
					}
				}
				y.SetMapIndex(it.Key(), m)
			}
		}
		return y, y.IsValid()
	default:
		m, changed, _ := n.plan.view(x, false)
		return m, changed
	}
}

// layOut is p laid out on t, the Go type of a message of p's type: built on
// first use and kept (for one Go type; a plan's messages have one in a
// program that does not mix generated and dynamic messages of a type).
func (p *versionPlan) layOut(t reflect.Type) *structPlan {
	if s := p.laidOut.Load(); s != nil && s.goType == t {
		return s
	}
	s, ok := layOutPlan(p, t, map[*versionPlan]*structPlan{})
	if !ok {
		s = &structPlan{goType: t, fallback: true}
	}
	p.laidOut.Store(s)
	return s
}

// layOutPlan lays p out on t and, through p's nested plans, every plan
// reachable from it (built: those laid out so far). ok is false when one
// of them cannot be.
func layOutPlan(p *versionPlan, t reflect.Type, built map[*versionPlan]*structPlan) (s *structPlan, ok bool) {
	if s, found := built[p]; found {
		return s, s.goType == t
	}
	if s, ok = newStructPlan(t); !ok {
		return nil, false
	}
	built[p] = s
	fields := newStructFields(t.Elem())
	for _, fd := range p.lacked {
		slot, ok := fields.slotOf(fd)
		if !ok {
			return nil, false
		}
		s.lacked = append(s.lacked, slot)
	}
	for _, e := range p.enums {
		slot, ok := fields.enumSlotOf(e)
		if !ok {
			return nil, false
		}
		s.enums = append(s.enums, slot)
	}
	for _, n := range p.nested {
		slot, ok := fields.nestedSlotOf(n, built)
		if !ok {
			return nil, false
		}
		s.nested = append(s.nested, slot)
	}
	return s, true
}

// newStructPlan is an empty plan on t, when t is a protoc-gen-go struct
// *T whose data a copy of its exported and unknown fields copies whole.
func newStructPlan(t reflect.Type) (*structPlan, bool) {
	if !generatedStruct(t) {
		return nil, false
	}
	st := t.Elem()
	s := &structPlan{goType: t, unknown: -1}
	for i := range st.NumField() {
		switch sf := st.Field(i); {
		case sf.IsExported() && !strings.HasPrefix(sf.Name, "XXX_"):
			s.exported = append(s.exported, i)
		case sf.Name == "unknownFields":
			s.unknown = i
		case sf.Name != "state" && sf.Name != "sizeCache":
			return nil, false // a field a copy of the exported ones would lose
		}
	}
	return s, true
}

// structFields are the fields of a protoc-gen-go struct, indexed by
// structFieldIndexes.
type structFields struct {
	st       reflect.Type
	byNumber map[protoreflect.FieldNumber]int
	oneofs   map[string]int
}

func newStructFields(st reflect.Type) structFields {
	byNumber, oneofs := structFieldIndexes(st)
	return structFields{st: st, byNumber: byNumber, oneofs: oneofs}
}

// slotOf is where fd lives in the struct; ok is false when it is not an
// exported field.
func (f structFields) slotOf(fd protoreflect.FieldDescriptor) (slot goSlot, ok bool) {
	if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
		idx, ok := f.oneofs[string(o.Name())]
		if !ok || !f.st.Field(idx).IsExported() {
			return goSlot{}, false
		}
		w := oneofWrapper(f.st, idx, fd)
		return goSlot{index: idx, wrapper: w}, w != nil && w.Elem().Field(0).IsExported()
	}
	idx, ok := f.byNumber[fd.Number()]
	if !ok || !f.st.Field(idx).IsExported() {
		return goSlot{}, false
	}
	byLen := fd.IsList() || fd.IsMap() || fd.Kind() == protoreflect.BytesKind && !fd.HasPresence()
	return goSlot{index: idx, byLen: byLen}, true
}

// enumSlotOf is the enumSlot of e: ok is false unless its field holds an
// enum (int32) or a list of them.
func (f structFields) enumSlotOf(e enumPlan) (enumSlot, bool) {
	slot, ok := f.slotOf(e.fd)
	if !ok {
		return enumSlot{}, false
	}
	gt := slot.valueType(f.st)
	if e.fd.IsList() {
		if gt.Kind() != reflect.Slice {
			return enumSlot{}, false
		}
		gt = gt.Elem()
	}
	return enumSlot{goSlot: slot, list: e.fd.IsList(), lacked: e.lacked}, gt.Kind() == reflect.Int32
}

// nestedSlotOf is the nestedSlot of n, its plan laid out on the Go type of
// the messages the field holds.
func (f structFields) nestedSlotOf(n nestedPlan, built map[*versionPlan]*structPlan) (nestedSlot, bool) {
	slot, ok := f.slotOf(n.fd)
	if !ok {
		return nestedSlot{}, false
	}
	ns, gt := nestedSlot{goSlot: slot}, slot.valueType(f.st)
	switch {
	case n.fd.IsMap():
		ns.shape, ok = messageMap, gt.Kind() == reflect.Map
	case n.fd.IsList():
		ns.shape, ok = messageList, gt.Kind() == reflect.Slice
	}
	if !ok {
		return nestedSlot{}, false
	}
	if ns.shape != oneMessage {
		gt = gt.Elem()
	}
	ns.plan, ok = layOutPlan(n.plan, gt, built)
	return ns, ok
}

// valueType is the Go type of the slot's value in st.
func (s *goSlot) valueType(st reflect.Type) reflect.Type {
	if s.wrapper != nil {
		return s.wrapper.Elem().Field(0).Type
	}
	return st.Field(s.index).Type
}

// generatedStruct reports whether t is *T for a struct T that protoc-gen-go
// generated (its first field the MessageState).
func generatedStruct(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t.Elem().NumField() > 0 && t.Elem().Field(0).Type == messageStateType
}
