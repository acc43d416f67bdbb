package runtime

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// VersionTable says which protocol version introduced each element of a
// proto package that several versions share (one Go package, generated
// from the newest). `make generate` writes it from the descriptors of the
// bundled protos (a2a/v1/a2a.versions.go) and attaches it to the
// ServiceDesc; every binding then gives each call the view of its
// negotiated A2A-Version: a call that negotiated an older version never
// receives a field, oneof case or enum value its version lacks (in a
// response, a stream event or an error), its request is read with its
// version's meaning (what its version lacks is ignored), and an rpc its
// version lacks is refused. Nothing per field is written by hand: a new
// version is a new proto and a regeneration.
type VersionTable struct {
	// Versions are the protocol versions (Major.Minor) the table compares,
	// oldest first.
	Versions []string
	// Since maps the full name of each field (oneof cases included), enum
	// value and rpc that the oldest version lacks to the version that
	// introduced it ("lf.a2a.v1.Task.generation": "1.1").
	Since map[string]string
}

// Lacks reports whether a caller of version v (Major.Minor) does not know the
// element named full (a field, enum value or rpc): it was introduced after
// v. A version outside the table's (newer, or "" for none) lacks nothing.
func (t *VersionTable) Lacks(full protoreflect.FullName, v string) bool {
	if t == nil || !t.older(v) {
		return false
	}
	since, ok := t.Since[string(full)]
	return ok && compareVersions(since, v) > 0
}

// older reports whether v is older than the newest version of the table,
// so that a call of version v may have something to strip.
func (t *VersionTable) older(v string) bool {
	if t == nil || v == "" || len(t.Versions) == 0 || len(t.Since) == 0 {
		return false
	}
	return compareVersions(v, t.Versions[len(t.Versions)-1]) < 0
}

// View returns m as a caller of version v may see it: m itself when it
// holds nothing v lacks (the common case, found by a walk of only the
// fields that can lead to such a thing, without copying), otherwise a
// copy without it; m is never modified, so a message shared between
// callers of several versions (a stream event of several subscribers) stays
// whole. Enum values v lacks become the enum's zero value. drop is true
// when a oneof case of m itself is what v lacks: m is a stream event of a
// kind v does not know, which is then not sent at all.
func (t *VersionTable) View(m proto.Message, v string) (out proto.Message, drop bool) {
	if t == nil || v == "" || m == nil {
		return m, false
	}
	return t.planOf(v, m.ProtoReflect().Descriptor()).view(m)
}

// Strip removes from m, in place, what a caller of version v lacks: how a
// request of an older version is read with that version's meaning.
func (t *VersionTable) Strip(m proto.Message, v string) {
	if t == nil || v == "" || m == nil {
		return
	}
	t.planOf(v, m.ProtoReflect().Descriptor()).strip(m)
}

// versionPlan is what to look at in messages of one type for one version:
// the fields the version lacks, the enum fields whose enum has values it
// lacks, and the message fields whose type has a plan. Types without
// anything to look at have no plan (nil).
type versionPlan struct {
	lacked []protoreflect.FieldDescriptor
	enums  []enumPlan
	nested []nestedPlan
	// laidOut is the plan on the Go struct of the messages viewed last
	// (version_copy.go), made at the first view.
	laidOut atomic.Pointer[structPlan]
}

type enumPlan struct {
	fd     protoreflect.FieldDescriptor
	lacked map[protoreflect.EnumNumber]bool
}

type nestedPlan struct {
	fd   protoreflect.FieldDescriptor
	plan *versionPlan
}

// view is VersionTable.View with p the plan of m's type (nil: nothing to
// look at).
func (p *versionPlan) view(m proto.Message) (proto.Message, bool) {
	if p == nil || m == nil {
		return m, false
	}
	if s := p.layOut(reflect.TypeOf(m)); !s.fallback {
		out, changed, drop := s.view(messagePointer(m), true, nil)
		if !changed {
			return m, false
		}
		return messageAt(m, out), drop
	}
	r := m.ProtoReflect()
	if !r.IsValid() {
		return m, false
	}
	if found, _ := p.walk(r, false, true); !found {
		return m, false
	}
	c := proto.Clone(m)
	_, drop := p.walk(c.ProtoReflect(), true, true)
	return c, drop
}

// messagePointer is the *T that m, a message of a generated struct T,
// holds.
func messagePointer(m proto.Message) unsafe.Pointer {
	return (*ifaceWords)(unsafe.Pointer(&m)).data
}

// messageAt is the message p, a *T of the same Go type as like's.
func messageAt(like proto.Message, p unsafe.Pointer) proto.Message {
	(*ifaceWords)(unsafe.Pointer(&like)).data = p
	return like
}

// strip is VersionTable.Strip with p the plan of m's type.
func (p *versionPlan) strip(m proto.Message) {
	if p == nil || m == nil {
		return
	}
	// Look first, clear only when found: a request seldom carries what its
	// version lacks. The look goes through the Go struct where the plan
	// lays out on it (the view's walk, version_copy.go: what it would copy
	// is what is there to clear; it copies nothing when there is none), the
	// clearing through protoreflect (Mutable, Clear), as does the look for
	// other messages.
	if s := p.layOut(reflect.TypeOf(m)); !s.fallback {
		if _, found, _ := s.view(messagePointer(m), false, nil); !found {
			return
		}
	} else if r := m.ProtoReflect(); !r.IsValid() {
		return
	} else if found, _ := p.walk(r, false, false); !found {
		return
	}
	p.walk(m.ProtoReflect(), true, false)
}

// walk looks for what the plan's version lacks in m; with clear it removes
// it (and goes on), without it stops at the first. drop reports a oneof case
// of m removed when top is set.
func (p *versionPlan) walk(m protoreflect.Message, clear, top bool) (found, drop bool) {
	for _, fd := range p.lacked {
		if !m.Has(fd) {
			continue
		}
		if !clear {
			return true, false
		}
		found = true
		if top && fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() {
			drop = true
		}
		m.Clear(fd)
	}
	// By index: a method call on a range copy would move it to the heap.
	for i := range p.enums {
		if p.enums[i].walk(m, clear) {
			if !clear {
				return true, false
			}
			found = true
		}
	}
	for i := range p.nested {
		if p.nested[i].walk(m, clear) {
			if !clear {
				return true, false
			}
			found = true
		}
	}
	return found, drop
}

// walk is versionPlan.walk for one enum field (singular or repeated).
func (e *enumPlan) walk(m protoreflect.Message, clear bool) bool {
	if !m.Has(e.fd) {
		return false
	}
	if !e.fd.IsList() {
		if !e.lacked[m.Get(e.fd).Enum()] {
			return false
		}
		if clear {
			m.Set(e.fd, protoreflect.ValueOfEnum(0))
		}
		return true
	}
	list, found := valueOf(m, e.fd, clear).List(), false
	for i := range list.Len() {
		if e.lacked[list.Get(i).Enum()] {
			if !clear {
				return true
			}
			found = true
			list.Set(i, protoreflect.ValueOfEnum(0))
		}
	}
	return found
}

// walk is versionPlan.walk for one message field (singular, repeated or a
// map of messages).
func (n *nestedPlan) walk(m protoreflect.Message, clear bool) bool {
	if !m.Has(n.fd) {
		return false
	}
	found := false
	switch {
	case n.fd.IsList():
		list := valueOf(m, n.fd, clear).List()
		for i := range list.Len() {
			if f, _ := n.plan.walk(list.Get(i).Message(), clear, false); f {
				if !clear {
					return true
				}
				found = true
			}
		}
	case n.fd.IsMap():
		valueOf(m, n.fd, clear).Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
			if f, _ := n.plan.walk(v.Message(), clear, false); f {
				found = true
				return clear
			}
			return true
		})
	default:
		found, _ = n.plan.walk(valueOf(m, n.fd, clear).Message(), clear, false)
	}
	return found
}

// valueOf is the value of a set field of m: mutable when the walk clears.
func valueOf(m protoreflect.Message, fd protoreflect.FieldDescriptor, mutable bool) protoreflect.Value {
	if mutable {
		return m.Mutable(fd)
	}
	return m.Get(fd)
}

// versionPlans caches the plans of every table, version and message type.
var versionPlans sync.Map // planKey → *versionPlan (nil: nothing to look at)

type planKey struct {
	t *VersionTable
	v string
	d protoreflect.MessageDescriptor
}

// planOf is the plan of messages of type d for version v, or nil when
// there is nothing to look at, v being no older than the table's newest
// included: for a version the table names, the comparison of versions is
// made once, at the first lookup, and remembered in versionPlans as that
// nil (other strings are compared each time, so that what is remembered
// stays bounded).
func (t *VersionTable) planOf(v string, d protoreflect.MessageDescriptor) *versionPlan {
	if !slices.Contains(t.Versions, v) {
		if !t.older(v) {
			return nil
		}
		return t.plan(v, d)
	}
	key := planKey{t, v, d}
	if p, ok := versionPlans.Load(key); ok {
		return p.(*versionPlan)
	}
	if !t.older(v) {
		versionPlans.LoadOrStore(key, (*versionPlan)(nil))
		return nil
	}
	return t.plan(v, d)
}

// plan is the plan of messages of type d for version v (older than the
// table's newest), built on first use
// for d and every type reachable from it.
func (t *VersionTable) plan(v string, d protoreflect.MessageDescriptor) *versionPlan {
	key := planKey{t, v, d}
	if p, ok := versionPlans.Load(key); ok {
		return p.(*versionPlan)
	}
	for md, p := range t.buildPlans(v, d) {
		versionPlans.LoadOrStore(planKey{t, v, md}, p)
	}
	p, _ := versionPlans.Load(key)
	return p.(*versionPlan)
}

// buildPlans makes the plans of d and of every message type reachable from
// it: a type has one when it has a field or enum value v lacks, or a message
// field whose type has one (found by iterating to a fixed point, since
// types may be recursive).
func (t *VersionTable) buildPlans(v string, d protoreflect.MessageDescriptor) map[protoreflect.MessageDescriptor]*versionPlan {
	var types []protoreflect.MessageDescriptor
	seen := map[protoreflect.MessageDescriptor]bool{}
	var visit func(protoreflect.MessageDescriptor)
	visit = func(md protoreflect.MessageDescriptor) {
		if seen[md] {
			return
		}
		seen[md] = true
		types = append(types, md)
		fields := md.Fields()
		for i := range fields.Len() {
			if sub := messageOf(fields.Get(i)); sub != nil {
				visit(sub)
			}
		}
	}
	visit(d)
	plans := make(map[protoreflect.MessageDescriptor]*versionPlan, len(types))
	for _, md := range types {
		plans[md] = t.directPlan(v, md)
	}
	for changed := true; changed; {
		changed = false
		for _, md := range types {
			if plans[md] != nil {
				continue
			}
			fields := md.Fields()
			for i := range fields.Len() {
				if sub := messageOf(fields.Get(i)); sub != nil && plans[sub] != nil {
					plans[md], changed = &versionPlan{}, true
					break
				}
			}
		}
	}
	for _, md := range types {
		p := plans[md]
		if p == nil {
			continue
		}
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if sub := messageOf(fd); sub != nil && plans[sub] != nil && !t.Lacks(fd.FullName(), v) {
				p.nested = append(p.nested, nestedPlan{fd: fd, plan: plans[sub]})
			}
		}
	}
	return plans
}

// directPlan is the plan of md's own fields and enum fields for version v,
// or nil when it has none.
func (t *VersionTable) directPlan(v string, md protoreflect.MessageDescriptor) *versionPlan {
	var p *versionPlan
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if t.Lacks(fd.FullName(), v) {
			if p == nil {
				p = &versionPlan{}
			}
			p.lacked = append(p.lacked, fd)
			continue
		}
		if fd.Kind() != protoreflect.EnumKind || fd.IsMap() {
			continue
		}
		var lacked map[protoreflect.EnumNumber]bool
		values := fd.Enum().Values()
		for j := range values.Len() {
			if t.Lacks(values.Get(j).FullName(), v) {
				if lacked == nil {
					lacked = map[protoreflect.EnumNumber]bool{}
				}
				lacked[values.Get(j).Number()] = true
			}
		}
		if lacked != nil {
			if p == nil {
				p = &versionPlan{}
			}
			p.enums = append(p.enums, enumPlan{fd: fd, lacked: lacked})
		}
	}
	return p
}

// messageOf is the message type a field holds (its map value's for a map),
// or nil.
func messageOf(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return fd.Message()
	}
	return nil
}

// compareVersions orders two protocol versions (Major.Minor, a patch
// ignored): -1, 0 or 1. A version that does not parse sorts before every
// other.
func compareVersions(a, b string) int {
	if a == b {
		return 0
	}
	am, an, aok := splitVersion(a)
	bm, bn, bok := splitVersion(b)
	switch {
	case !aok || !bok:
		if aok == bok {
			return strings.Compare(a, b)
		}
		if !aok {
			return -1
		}
		return 1
	case am != bm:
		return cmp.Compare(am, bm)
	default:
		return cmp.Compare(an, bn)
	}
}

func splitVersion(v string) (major, minor uint64, ok bool) {
	n, ok := ParseVersion(v)
	if !ok {
		return 0, 0, false
	}
	maj, mnr, _ := strings.Cut(n, ".")
	a, err1 := strconv.ParseUint(maj, 10, 64)
	b, err2 := strconv.ParseUint(mnr, 10, 64)
	return a, b, err1 == nil && err2 == nil
}
