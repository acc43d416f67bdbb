package runtime

import (
	"reflect"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// How a versionPlan is laid out on the Go struct of its messages
// (structPlan, version_copy.go): the offset and the way of holding of each
// field it looks at, found once per Go type from the protoc-gen-go struct
// tags; a struct this does not know is left to protoreflect.

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
	copier, ok := newStructCopier(t)
	if !ok {
		return nil, false
	}
	s = &structPlan{goType: t, copier: copier}
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
// exported field of a Go type this layout reads.
func (f structFields) slotOf(fd protoreflect.FieldDescriptor) (slot goSlot, ok bool) {
	if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
		idx, ok := f.oneofs[string(o.Name())]
		if !ok || !f.st.Field(idx).IsExported() {
			return goSlot{}, false
		}
		sf := f.st.Field(idx)
		w := oneofWrapper(f.st, idx, fd)
		if w == nil || !w.Elem().Field(0).IsExported() || w.Elem().Field(0).Offset != 0 {
			return goSlot{}, false
		}
		wt, ok := wrapperTypeOf(sf.Type, w)
		return goSlot{offset: sf.Offset, hold: heldOneofCase, goType: sf.Type, wrapper: w, wrapperType: wt}, ok
	}
	idx, ok := f.byNumber[fd.Number()]
	if !ok || !f.st.Field(idx).IsExported() {
		return goSlot{}, false
	}
	sf := f.st.Field(idx)
	slot = goSlot{offset: sf.Offset, goType: sf.Type, size: sf.Type.Size()}
	byLen := fd.IsList() || fd.IsMap() || fd.Kind() == protoreflect.BytesKind && !fd.HasPresence()
	switch k := sf.Type.Kind(); {
	case k == reflect.Map:
		slot.hold = heldMap
	case k == reflect.Slice && byLen:
		slot.hold = heldSliceLen
	case k == reflect.Slice:
		slot.hold = heldSlice
	case k == reflect.Pointer:
		slot.hold = heldPointer
	case k == reflect.String:
		slot.hold = heldString
	case k == reflect.Bool || k >= reflect.Int && k <= reflect.Uint64 || k == reflect.Float32 || k == reflect.Float64:
		slot.hold = heldScalar
	default:
		return goSlot{}, false
	}
	switch slot.hold {
	case heldPointer, heldSlice:
		slot.word, slot.probe = true, slot.offset
	case heldString, heldSliceLen:
		slot.word, slot.probe = true, slot.offset+wordSize // the length
	case heldScalar:
		slot.word, slot.probe = slot.size == wordSize, slot.offset
	}
	return slot, true
}

// wrapperTypeOf is the runtime type of w as an interface of type iface
// holding a *W names it (the second word of its itab), the same as an empty
// interface names it; ok is false when the two differ (a runtime whose
// interfaces this layout does not know).
func wrapperTypeOf(iface, w reflect.Type) (unsafe.Pointer, bool) {
	held := reflect.New(iface)
	held.Elem().Set(reflect.New(w.Elem()))
	tab := (*ifaceWords)(held.UnsafePointer()).tab
	typ := runtimeTypeOf(w)
	return typ, tab != nil && tab.typ == typ
}

// enumSlotOf is the enumSlot of e: ok is false unless its field holds an
// enum (int32) or a list of them.
func (f structFields) enumSlotOf(e enumPlan) (enumSlot, bool) {
	slot, ok := f.slotOf(e.fd)
	if !ok {
		return enumSlot{}, false
	}
	gt := slot.valueType()
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
	gt := slot.valueType()
	ns := nestedSlot{goSlot: slot, valueType: gt}
	switch {
	case n.fd.IsMap():
		ns.shape, ok = messageMap, gt.Kind() == reflect.Map
	case n.fd.IsList():
		ns.shape, ok = messageList, gt.Kind() == reflect.Slice
	default:
		ok = gt.Kind() == reflect.Pointer
	}
	if !ok {
		return nestedSlot{}, false
	}
	if ns.shape != oneMessage {
		gt = gt.Elem()
	}
	ns.plan, ok = layOutPlan(n.plan, gt, built)
	if ok && ns.shape == oneMessage {
		ns.joint = newJointCopy(gt.Elem(), slot.wrapper, f.st)
	}
	return ns, ok
}

// newJointCopy is the jointCopy of a message m held by a message of struct
// holder, in a oneof case's wrapper w (nil: none).
func newJointCopy(m, w, holder reflect.Type) *jointCopy {
	fields := []reflect.StructField{{Name: "Message", Type: m}}
	if w != nil {
		fields = append(fields, reflect.StructField{Name: "Wrapper", Type: w.Elem()})
	}
	fields = append(fields, reflect.StructField{Name: "Holder", Type: holder})
	t := reflect.StructOf(fields)
	j := &jointCopy{goType: t, holderOffset: t.Field(len(fields) - 1).Offset}
	if w != nil {
		j.wrapperOffset = t.Field(1).Offset
	}
	return j
}

// valueType is the Go type of the slot's value.
func (s *goSlot) valueType() reflect.Type {
	if s.wrapper != nil {
		return s.wrapper.Elem().Field(0).Type
	}
	return s.goType
}

// generatedStruct reports whether t is *T for a struct T that protoc-gen-go
// generated (its first field the MessageState).
func generatedStruct(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t.Elem().NumField() > 0 && t.Elem().Field(0).Type == messageStateType
}
