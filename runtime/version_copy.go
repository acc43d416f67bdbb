package runtime

import (
	"reflect"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The copy a caller of an older version gets when an answer holds
// something its version lacks (versionPlan.view). Since tasks and their
// events carry a generation, that is every answer a 1.0 caller gets from a
// server that tracks generations: the copy is on the path of every such
// call, so it copies as little as it can. Only the messages on the way to
// a lacked element are copied, each shallowly (its Go struct, one
// allocation); everything else — a task's history, its artifacts and their
// parts — is shared with the original, which is never modified. Where a
// list or map leads to a lacked element, the copy gets a new list or map
// holding the same elements but the copied ones.
//
// A field of a copy is never set in place: protobuf-go's Set writes
// through the pointer a field already holds (an optional scalar, a oneof's
// wrapper), which the copy shares with the original, so every Set on a
// copy comes after a Clear of the field.

// without returns a copy of m without what the plan's version lacks
// (m holds some: the plan's walk found it). drop reports a oneof case of m
// removed when top is set (a stream event of a kind the version lacks).
func (p *versionPlan) without(m protoreflect.Message, top bool) (protoreflect.Message, bool) {
	c := shallowCopy(m)
	drop := false
	for _, fd := range p.lacked {
		if !m.Has(fd) {
			continue
		}
		if top && fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() {
			drop = true
		}
		c.Clear(fd)
	}
	for i := range p.enums {
		p.enums[i].without(m, c)
	}
	for i := range p.nested {
		p.nested[i].without(m, c)
	}
	return c, drop
}

// replace sets fd of the copy c to v (after clearing it: see above).
func replace(c protoreflect.Message, fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	c.Clear(fd)
	c.Set(fd, v)
}

// without gives the copy c of m the enum field's values m holds, those the
// version lacks as the zero value.
func (e *enumPlan) without(m, c protoreflect.Message) {
	if !m.Has(e.fd) {
		return
	}
	if !e.fd.IsList() {
		if e.lacked[m.Get(e.fd).Enum()] {
			replace(c, e.fd, protoreflect.ValueOfEnum(0))
		}
		return
	}
	src := m.Get(e.fd).List()
	var dst protoreflect.List // made at the first lacked value
	for i := range src.Len() {
		v := src.Get(i)
		if e.lacked[v.Enum()] {
			if dst == nil {
				dst = c.NewField(e.fd).List()
				for j := range i {
					dst.Append(src.Get(j))
				}
			}
			v = protoreflect.ValueOfEnum(0)
		}
		if dst != nil {
			dst.Append(v)
		}
	}
	if dst != nil {
		replace(c, e.fd, protoreflect.ValueOfList(dst))
	}
}

// without gives the copy c of m the message field's messages m holds,
// those that hold something the version lacks as copies without it.
func (n *nestedPlan) without(m, c protoreflect.Message) {
	if !m.Has(n.fd) {
		return
	}
	switch {
	case n.fd.IsList():
		src := m.Get(n.fd).List()
		var dst protoreflect.List // made at the first element to copy
		for i := range src.Len() {
			v := src.Get(i)
			if found, _ := n.plan.walk(v.Message(), false, false); found {
				if dst == nil {
					dst = c.NewField(n.fd).List()
					for j := range i {
						dst.Append(src.Get(j))
					}
				}
				sub, _ := n.plan.without(v.Message(), false)
				v = protoreflect.ValueOfMessage(sub)
			}
			if dst != nil {
				dst.Append(v)
			}
		}
		if dst != nil {
			replace(c, n.fd, protoreflect.ValueOfList(dst))
		}
	case n.fd.IsMap():
		src := m.Get(n.fd).Map()
		var dst protoreflect.Map
		src.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			if found, _ := n.plan.walk(v.Message(), false, false); found && dst == nil {
				dst = c.NewField(n.fd).Map()
			}
			return dst == nil
		})
		if dst == nil {
			return
		}
		src.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			if found, _ := n.plan.walk(v.Message(), false, false); found {
				sub, _ := n.plan.without(v.Message(), false)
				v = protoreflect.ValueOfMessage(sub)
			}
			dst.Set(k, v)
			return true
		})
		replace(c, n.fd, protoreflect.ValueOfMap(dst))
	default:
		sub := m.Get(n.fd).Message()
		if found, _ := n.plan.walk(sub, false, false); found {
			cs, _ := n.plan.without(sub, false)
			replace(c, n.fd, protoreflect.ValueOfMessage(cs))
		}
	}
}

// shallowCopy is a new message of m's type holding m's fields: the values
// themselves, so that lists, maps, messages and the targets of pointers
// are shared with m. A protoc-gen-go message is copied as its Go struct's
// exported fields, others field by field.
func shallowCopy(m protoreflect.Message) protoreflect.Message {
	pm := m.Interface()
	if t := reflect.TypeOf(pm); generatedStruct(t) {
		// The exported fields only: the message's state and size cache
		// are written (atomically) by a marshal of m on another goroutine —
		// another subscriber's stream — and must neither be read here
		// without it nor shared; unknown fields go through protoreflect.
		src, dst := reflect.ValueOf(pm).Elem(), reflect.New(t.Elem())
		for i := range src.NumField() {
			if t.Elem().Field(i).IsExported() {
				dst.Elem().Field(i).Set(src.Field(i))
			}
		}
		c := dst.Interface().(protoreflect.ProtoMessage).ProtoReflect()
		if u := m.GetUnknown(); len(u) > 0 {
			c.SetUnknown(u)
		}
		return c
	}
	c := m.New()
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		c.Set(fd, v)
		return true
	})
	if u := m.GetUnknown(); len(u) > 0 {
		c.SetUnknown(u)
	}
	return c
}

// generatedTypes caches generatedStruct: reflect.Type → bool.
var generatedTypes sync.Map

// generatedStruct reports whether t is *T for a struct T that protoc-gen-go
// generated (its first field the MessageState), which a copy of the struct
// copies whole.
func generatedStruct(t reflect.Type) bool {
	if ok, found := generatedTypes.Load(t); found {
		return ok.(bool)
	}
	ok := t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t.Elem().NumField() > 0 && t.Elem().Field(0).Type == messageStateType
	generatedTypes.Store(t, ok)
	return ok
}
