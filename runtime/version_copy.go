package runtime

import (
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The view a caller of an older version gets of an answer (versionPlan.view).
// Since tasks and their events carry a generation, an answer holds
// something a 1.0 caller lacks whenever the server tracks generations: the
// view is on the path of every such call (every event of a stream), so it
// looks and copies as little as it can. It works on the Go structs
// protoc-gen-go generates, at the offsets of their fields, laid out once
// per type (not through protoreflect, whose Has, Get and Set cost many
// times a field's read, nor through reflect.Value, whose Field, Elem and
// Set cost tens of instructions each), in one walk: it looks only at the
// fields that can lead to something the version lacks, and copies a
// message only when it is on the way to such a thing — shallowly, its
// exported fields: everything else (a task's history, its artifacts and
// their parts) is shared with the original, which is never modified. Where
// a list or map leads to a lacked element, the copy gets a new list or map
// holding the same elements but the copied ones, and a oneof case gets a
// new wrapper.
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
	copier   structCopier
	lacked   []goSlot
	enums    []enumSlot
	nested   []nestedSlot
}

// fieldHold is how a struct field holds a field's value, which says how
// its presence is read and how it is cleared.
type fieldHold uint8

const (
	heldScalar    fieldHold = iota // bool, integers, floats, enums: set when not all zero bytes
	heldString                     // string: set when not empty
	heldPointer                    // a pointer (message, optional scalar): set when not nil
	heldSlice                      // a slice with presence (optional bytes): set when not nil
	heldSliceLen                   // a list or proto3 bytes: set when not empty
	heldMap                        // a map: set when not empty
	heldOneofCase                  // a oneof's interface, set to this case's wrapper
)

// goSlot is where a field of a message lives in its Go struct.
type goSlot struct {
	offset uintptr // of the struct field; for a oneof case, the oneof's interface
	hold   fieldHold
	// word: the field is set when the machine word at probe is not zero
	// (a pointer, a slice's data or length, a string's length, a 64-bit
	// scalar): the test of most fields, read inline.
	word   bool
	probe  uintptr
	size   uintptr      // heldScalar: the value's size in bytes
	goType reflect.Type // the struct field's type (the oneof's interface for a case)
	// wrapper: for a oneof case, the type holding it, *W for a struct W
	// whose first field (at offset 0) holds the value; wrapperType is its
	// runtime type, as an interface holding a *W names it.
	wrapper     reflect.Type
	wrapperType unsafe.Pointer
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
	shape     messageShape
	valueType reflect.Type // the value's Go type: *M, []*M or map[K]*M
	plan      *structPlan
	// joint, for a oneMessage: the one allocation that holds the copy of
	// the message, its wrapper for a oneof case and the copy of the
	// message holding it, when the message is what makes the holder
	// copied (a stream event and its generation: one allocation, not
	// three).
	joint *jointCopy
}

// jointCopy is a struct type holding a message M at offset 0, then, for a
// oneof case, M's wrapper W, then the message P holding it.
type jointCopy struct {
	goType        reflect.Type
	wrapperOffset uintptr // for a oneof case
	holderOffset  uintptr
}

// messageShape is how a message field holds its messages.
type messageShape uint8

const (
	oneMessage  messageShape = iota // *M
	messageList                     // []*M
	messageMap                      // map[K]*M
)

// ifaceWords is the layout of a Go interface value with methods: its itab
// and its data word.
type ifaceWords struct {
	tab  *itabHead
	data unsafe.Pointer
}

// itabHead is the start of the runtime's itab: the interface type, then
// the dynamic type of the values it holds.
type itabHead struct {
	_   unsafe.Pointer // the interface type
	typ unsafe.Pointer
}

// efaceWords is the layout of an empty interface value.
type efaceWords struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// sliceWords is the layout of a slice header.
type sliceWords struct {
	data     unsafe.Pointer
	len, cap int
}

// isSet reports whether the field is set in the T at x, as protoreflect's
// Has would.
func (s *goSlot) isSet(x unsafe.Pointer) bool {
	if s.word {
		return *(*uintptr)(unsafe.Add(x, s.probe)) != 0
	}
	return s.isSetOther(x)
}

// isSetOther is isSet for the fields that are not tested by one word.
func (s *goSlot) isSetOther(x unsafe.Pointer) bool {
	p := unsafe.Add(x, s.offset)
	switch s.hold {
	case heldOneofCase:
		tab := (*ifaceWords)(p).tab
		return tab != nil && tab.typ == s.wrapperType
	case heldScalar:
		switch s.size {
		case 8:
			return *(*uint64)(p) != 0
		case 4:
			return *(*uint32)(p) != 0
		case 1:
			return *(*uint8)(p) != 0
		}
		for _, b := range unsafe.Slice((*byte)(p), s.size) {
			if b != 0 {
				return true
			}
		}
		return false
	case heldString:
		return len(*(*string)(p)) > 0
	case heldPointer:
		return *(*unsafe.Pointer)(p) != nil
	case heldSlice:
		return (*sliceWords)(p).data != nil
	case heldSliceLen:
		return (*sliceWords)(p).len > 0
	default: // heldMap
		return *(*unsafe.Pointer)(p) != nil && reflect.NewAt(s.goType, p).Elem().Len() > 0
	}
}

// value is where the value of the field, set in the T at x, lives: for a
// oneof case, in its wrapper.
func (s *goSlot) value(x unsafe.Pointer) unsafe.Pointer {
	p := unsafe.Add(x, s.offset)
	if s.hold == heldOneofCase {
		return (*ifaceWords)(p).data
	}
	return p
}

// valueInWrapper is valueIn with w, a new wrapper, for a oneof case.
func (s *goSlot) valueInWrapper(c, w unsafe.Pointer) unsafe.Pointer {
	p := unsafe.Add(c, s.offset)
	if s.hold != heldOneofCase {
		return p
	}
	i := (*ifaceWords)(p)
	*i = ifaceWords{tab: i.tab, data: w}
	return w
}

// valueIn is where the value of the field goes in c, a copy that shares
// its fields with the original: for a oneof case, in a new wrapper (the one
// c holds is the original's), which c is given.
func (s *goSlot) valueIn(c unsafe.Pointer) unsafe.Pointer {
	p := unsafe.Add(c, s.offset)
	if s.hold != heldOneofCase {
		return p
	}
	w := reflect.New(s.wrapper.Elem()).UnsafePointer()
	i := (*ifaceWords)(p)
	*i = ifaceWords{tab: i.tab, data: w}
	return w
}

// clear unsets the field in the T at c.
func (s *goSlot) clear(c unsafe.Pointer) {
	p := unsafe.Add(c, s.offset)
	switch s.hold {
	case heldScalar:
		clear(unsafe.Slice((*byte)(p), s.size))
	case heldString:
		*(*string)(p) = ""
	case heldPointer, heldMap:
		*(*unsafe.Pointer)(p) = nil
	case heldSlice, heldSliceLen:
		*(*[]byte)(p) = nil
	default: // heldOneofCase
		*(*ifaceWords)(p) = ifaceWords{}
	}
}

// view returns the T at x as the plan's version sees it: x itself with
// changed false when it holds nothing the version lacks, otherwise a copy
// without it. drop reports a oneof case of x removed when top is set (a
// stream event of a kind the version lacks). The copy is made in an
// allocation of joint when there is one (at its start).
func (s *structPlan) view(x unsafe.Pointer, top bool, joint *jointCopy) (out unsafe.Pointer, changed, drop bool) {
	if x == nil {
		return x, false, false
	}
	var c unsafe.Pointer // the copy, made at the first change
	for i := range s.lacked {
		f := &s.lacked[i]
		if !f.isSet(x) {
			continue
		}
		if c == nil {
			c = s.copier.copyOf(x, joint)
		}
		drop = drop || top && f.hold == heldOneofCase
		f.clear(c)
	}
	for i := range s.enums {
		e := &s.enums[i]
		if !e.isSet(x) || !e.lacks(e.value(x)) {
			continue
		}
		if c == nil {
			c = s.copier.copyOf(x, joint)
		}
		e.viewInto(e.valueIn(c), e.value(x))
	}
	for i := range s.nested {
		n := &s.nested[i]
		if !n.isSet(x) {
			continue
		}
		switch src := n.value(x); n.shape {
		case oneMessage:
			if c != nil {
				if m, changed, _ := n.plan.view(*(*unsafe.Pointer)(src), false, nil); changed {
					*(*unsafe.Pointer)(n.valueIn(c)) = m
				}
				continue
			}
			m, changed, _ := n.plan.view(*(*unsafe.Pointer)(src), false, n.joint)
			if !changed {
				continue
			}
			// m is the start of n.joint's allocation, which has room for
			// this copy and the wrapper.
			if joint != nil {
				c = s.copier.copyOf(x, joint)
			} else {
				c = unsafe.Add(m, n.joint.holderOffset)
				s.copier.fill(c, x)
			}
			*(*unsafe.Pointer)(n.valueInWrapper(c, unsafe.Add(m, n.joint.wrapperOffset))) = m
		case messageList:
			if y := n.viewList(*(*[]unsafe.Pointer)(src)); y != nil {
				if c == nil {
					c = s.copier.copyOf(x, joint)
				}
				*(*[]unsafe.Pointer)(n.valueIn(c)) = y
			}
		default:
			if y, ok := n.viewMap(src); ok {
				if c == nil {
					c = s.copier.copyOf(x, joint)
				}
				reflect.NewAt(n.valueType, n.valueIn(c)).Elem().Set(y)
			}
		}
	}
	if c == nil {
		return x, false, false
	}
	return c, true, drop
}

// lacks reports whether the enum value or list at p holds a value the
// version lacks.
func (e *enumSlot) lacks(p unsafe.Pointer) bool {
	if !e.list {
		return e.lacked[protoreflect.EnumNumber(*(*int32)(p))]
	}
	for _, n := range *(*[]int32)(p) {
		if e.lacked[protoreflect.EnumNumber(n)] {
			return true
		}
	}
	return false
}

// viewInto writes at dst the enum value or list at src with the values the
// version lacks as the zero value.
func (e *enumSlot) viewInto(dst, src unsafe.Pointer) {
	if !e.list {
		*(*int32)(dst) = 0 // lacks said this value is lacked
		return
	}
	y := append([]int32(nil), *(*[]int32)(src)...)
	for i, n := range y {
		if e.lacked[protoreflect.EnumNumber(n)] {
			y[i] = 0
		}
	}
	*(*[]int32)(dst) = y
}

// viewList returns a new list of the messages of list (each a *M) with
// those that hold something the version lacks replaced by copies without
// it, or nil when there are none.
func (n *nestedSlot) viewList(list []unsafe.Pointer) []unsafe.Pointer {
	var y []unsafe.Pointer // made at the first message copied
	for i, m := range list {
		if c, changed, _ := n.plan.view(m, false, nil); changed {
			if y == nil {
				y = append([]unsafe.Pointer(nil), list...)
			}
			y[i] = c
		}
	}
	return y
}

// viewMap is viewList for the map of messages at p (rare: through
// reflect): a new map, and whether there is one.
func (n *nestedSlot) viewMap(p unsafe.Pointer) (reflect.Value, bool) {
	x := reflect.NewAt(n.valueType, p).Elem()
	var y reflect.Value
	for it := x.MapRange(); it.Next(); {
		if m, changed, _ := n.plan.view(it.Value().UnsafePointer(), false, nil); changed {
			if !y.IsValid() {
				y = reflect.MakeMapWithSize(x.Type(), x.Len())
				for all := x.MapRange(); all.Next(); {
					y.SetMapIndex(all.Key(), all.Value())
				}
			}
			y.SetMapIndex(it.Key(), reflect.NewAt(n.plan.goType.Elem(), m))
		}
	}
	return y, y.IsValid()
}

// structCopier makes the shallow copies of one protoc-gen-go struct T: a
// new T holding the exported and unknown fields of the original, the values
// themselves, so that lists, maps, messages and the targets of pointers are
// shared with it.
type structCopier struct {
	elem reflect.Type // T
	// exported is a struct of T's exported fields laid out as they are in
	// T from offset, copied in one move; nil when they are not one run
	// (fields are then copied one by one).
	exported reflect.Type
	// exportedPointer is the runtime type of *exported, as an interface
	// names it: a reflect.Value of the run is made from it without
	// reflect.NewAt, which looks *exported up in a map each time (a type
	// made by reflect.StructOf knows no pointer type of its own).
	exportedPointer unsafe.Pointer
	offset          uintptr
	// pointerWords says, for each machine word of the run from offset,
	// whether it holds a pointer: the run is copied a word at a time, a
	// pointer word with a pointer's store (and its write barrier), the
	// others as plain words; nil when a field's words are not known this
	// way (the run is then moved through reflect).
	pointerWords []bool
	fields       []copiedField
	// unknown is the offset of T's unknown fields (a []byte); hasUnknown:
	// T has them.
	unknown    uintptr
	hasUnknown bool
}

// copiedField is one exported field of T, for a copy field by field.
type copiedField struct {
	offset uintptr
	goType reflect.Type
}

// copyOf is a shallow copy of the T at x: a new T, or the start of a new
// joint allocation.
func (k *structCopier) copyOf(x unsafe.Pointer, joint *jointCopy) unsafe.Pointer {
	var c unsafe.Pointer
	if joint != nil {
		c = reflect.New(joint.goType).UnsafePointer()
	} else {
		c = reflect.New(k.elem).UnsafePointer()
	}
	k.fill(c, x)
	return c
}

// fill makes the zero T at c a shallow copy of the T at x.
func (k *structCopier) fill(c, x unsafe.Pointer) {
	if k.pointerWords != nil {
		dst, src := unsafe.Add(c, k.offset), unsafe.Add(x, k.offset)
		for i, pointer := range k.pointerWords {
			o := uintptr(i) * wordSize
			if pointer {
				*(*unsafe.Pointer)(unsafe.Add(dst, o)) = *(*unsafe.Pointer)(unsafe.Add(src, o))
			} else {
				*(*uintptr)(unsafe.Add(dst, o)) = *(*uintptr)(unsafe.Add(src, o))
			}
		}
	} else if k.exported != nil {
		valueAt(k.exportedPointer, unsafe.Add(c, k.offset)).Set(valueAt(k.exportedPointer, unsafe.Add(x, k.offset)))
	} else {
		for _, f := range k.fields {
			reflect.NewAt(f.goType, unsafe.Add(c, f.offset)).Elem().Set(reflect.NewAt(f.goType, unsafe.Add(x, f.offset)).Elem())
		}
	}
	if k.hasUnknown {
		*(*[]byte)(unsafe.Add(c, k.unknown)) = *(*[]byte)(unsafe.Add(x, k.unknown))
	}
}

// valueAt is the addressable value at p of the type whose pointer type
// pointer is (a runtime type, as an interface names it).
func valueAt(pointer, p unsafe.Pointer) reflect.Value {
	var e any
	*(*efaceWords)(unsafe.Pointer(&e)) = efaceWords{typ: pointer, data: p}
	return reflect.ValueOf(e).Elem()
}

// runtimeTypeOf is the runtime type of t, a pointer type, as an interface
// holding a value of type t names it.
func runtimeTypeOf(t reflect.Type) unsafe.Pointer {
	e := reflect.Zero(t).Interface()
	return (*efaceWords)(unsafe.Pointer(&e)).typ
}

// newStructCopier is the copier of t, a protoc-gen-go struct *T, when a
// copy of its exported and unknown fields copies its data whole.
func newStructCopier(t reflect.Type) (structCopier, bool) {
	if !generatedStruct(t) {
		return structCopier{}, false
	}
	st := t.Elem()
	k := structCopier{elem: st}
	var exported []reflect.StructField
	run := true // the exported fields are one run of struct fields
	last := -1
	for i := range st.NumField() {
		switch sf := st.Field(i); {
		case sf.IsExported() && !strings.HasPrefix(sf.Name, "XXX_"):
			if last >= 0 && last != i-1 {
				run = false
			}
			last = i
			k.fields = append(k.fields, copiedField{offset: sf.Offset, goType: sf.Type})
			exported = append(exported, sf)
		case sf.Name == "unknownFields":
			if sf.Type.Kind() != reflect.Slice || sf.Type.Elem().Kind() != reflect.Uint8 {
				return structCopier{}, false
			}
			k.unknown, k.hasUnknown = sf.Offset, true
		case sf.Name != "state" && sf.Name != "sizeCache":
			return structCopier{}, false // a field a copy of the exported ones would lose
		}
	}
	if run && len(exported) > 0 {
		k.exported, k.offset = exportedRun(st, exported)
	}
	if k.exported != nil {
		k.exportedPointer = runtimeTypeOf(reflect.PointerTo(k.exported))
		k.pointerWords = pointerWordsOf(exported, k.offset, k.exported.Size())
	}
	return k, true
}

// wordSize is the size of a machine word, a pointer's.
const wordSize = unsafe.Sizeof(uintptr(0))

// pointerWords is, for each word of the size bytes from offset that the
// fields run lie in, whether it holds a pointer, or nil when a field is of
// a kind whose words this does not know (a struct, an array) or the run is
// not whole words.
func pointerWordsOf(run []reflect.StructField, offset, size uintptr) []bool {
	if offset%wordSize != 0 || size%wordSize != 0 {
		return nil
	}
	words := make([]bool, size/wordSize)
	for _, sf := range run {
		var pointers []bool // the field's words, from its offset; nil: no pointer
		switch sf.Type.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			pointers = []bool{true}
		case reflect.String:
			pointers = []bool{true, false}
		case reflect.Slice:
			pointers = []bool{true, false, false}
		case reflect.Interface:
			pointers = []bool{true, true}
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
			continue
		default:
			return nil
		}
		rel := sf.Offset - offset
		if rel%wordSize != 0 || uintptr(len(pointers))*wordSize != sf.Type.Size() {
			return nil
		}
		for i, p := range pointers {
			words[rel/wordSize+uintptr(i)] = p
		}
	}
	return words
}

// exportedRun is a struct type of the fields run (one run of st's fields)
// whose layout is theirs in st from the first one's offset, or nil when
// there is none: a move of it copies those fields and nothing else.
func exportedRun(st reflect.Type, run []reflect.StructField) (reflect.Type, uintptr) {
	fields := make([]reflect.StructField, len(run))
	for i, sf := range run {
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: sf.Type}
	}
	rt := reflect.StructOf(fields)
	base := run[0].Offset
	for i, sf := range run {
		if rt.Field(i).Offset+base != sf.Offset {
			return nil, 0
		}
	}
	end := base + rt.Size()
	last := run[len(run)-1].Offset
	for i := range st.NumField() {
		if sf := st.Field(i); sf.Offset > last && sf.Offset < end {
			return nil, 0 // the run's padding would cover a field after it
		}
	}
	if end > st.Size() {
		return nil, 0
	}
	return rt, base
}
