package runtime

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2agen/a2agen/internal/fieldbehavior"
)

// validator checks the fields of request messages that their descriptors
// mark (google.api.field_behavior) = REQUIRED.
//
// Validation runs on every call, so the work per message type is done once: a
// validationPlan lists only the fields that are required and the message
// fields whose subtree holds a requirement. Subtrees without requirements
// (Struct metadata, Part contents, …) are never visited, and a valid message
// is checked without allocating, except that protobuf-go's reflection
// allocates a list view for each non-empty repeated message field that has to
// be descended into (none on A2A's request success paths).
type validator struct {
	// isRequired reads the annotation (fieldbehavior.Required); tests
	// substitute tables for descriptors that cannot carry it.
	isRequired func(protoreflect.FieldDescriptor) bool

	// plans maps a protoreflect.MessageDescriptor to its *validationPlan. It
	// is keyed by the descriptor (an interface holding a pointer) rather than
	// by full name because converting a string to a map key of type any
	// allocates on every lookup.
	plans sync.Map
	// build serialises plan construction, which walks the whole type graph
	// reachable from a message; lookups stay lock-free.
	build sync.Mutex
}

// validationPlan is the precomputed check list of one message type. A plan
// with no checks means the type and everything below it has no requirements.
type validationPlan struct {
	checks []fieldCheck
}

// fieldShape says how a checked field holds its values.
type fieldShape uint8

const (
	shapeSingular fieldShape = iota
	shapeList
	shapeMap
)

// fieldCheck is one field a plan looks at: it is required, or it is
// message-typed (singular, list elements or map values) and its type's plan has
// checks, or both.
type fieldCheck struct {
	fd       protoreflect.FieldDescriptor
	jsonName string
	required bool
	shape    fieldShape
	sub      *validationPlan // nil when the values need not be descended into
}

func newValidator() *validator { return &validator{isRequired: fieldbehavior.Required} }

// validate returns an InvalidParams *Error listing every missing required field
// path (JSON names, e.g. "message.parts"), or nil.
//
// A required field is missing when Has reports false: a singular scalar,
// string, bytes or enum at its zero value (for explicit-presence fields: not
// set), a message field not set, a repeated or map field that is empty.
func (v *validator) validate(m proto.Message) error {
	if v == nil || m == nil {
		return nil
	}
	rm := m.ProtoReflect()
	p := v.plan(rm.Descriptor())
	if len(p.checks) == 0 || p.valid(rm) {
		return nil
	}
	var missing []FieldViolation
	p.collect(rm, nil, &missing)
	if len(missing) == 0 {
		// valid and collect disagree only if the message changed between the
		// two walks (a data race in the caller); report nothing rather than
		// an error without a field.
		return nil
	}
	names := make([]string, len(missing))
	for i, f := range missing {
		names[i] = f.Field
	}
	return InvalidParams("missing required field(s): "+strings.Join(names, ", "), missing...)
}

// valid reports whether m and the checked parts of its subtree have every
// required field. It is the fast path, building no paths; collect explains a
// failure.
func (p *validationPlan) valid(m protoreflect.Message) bool {
	for i := range p.checks {
		c := &p.checks[i]
		if !m.Has(c.fd) {
			if c.required {
				return false
			}
			continue
		}
		if c.sub == nil {
			continue
		}
		switch c.shape {
		case shapeSingular:
			if !c.sub.valid(m.Get(c.fd).Message()) {
				return false
			}
		case shapeList:
			l := m.Get(c.fd).List()
			for j := range l.Len() {
				if !c.sub.valid(l.Get(j).Message()) {
					return false
				}
			}
		case shapeMap:
			ok := true
			m.Get(c.fd).Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				ok = c.sub.valid(v.Message())
				return ok
			})
			if !ok {
				return false
			}
		}
	}
	return true
}

// collect appends a violation for every missing required field under m, whose
// path is prefix. Map entries are visited in key order so that the report is
// deterministic.
func (p *validationPlan) collect(m protoreflect.Message, prefix []byte, out *[]FieldViolation) {
	for i := range p.checks {
		c := &p.checks[i]
		path := appendFieldName(prefix, c.jsonName)
		if !m.Has(c.fd) {
			if c.required {
				*out = append(*out, FieldViolation{Field: string(path), Description: "required"})
			}
			continue
		}
		if c.sub == nil {
			continue
		}
		switch c.shape {
		case shapeSingular:
			c.sub.collect(m.Get(c.fd).Message(), path, out)
		case shapeList:
			l := m.Get(c.fd).List()
			for j := range l.Len() {
				elem := strconv.AppendInt(append(slices.Clip(path), '['), int64(j), 10)
				c.sub.collect(l.Get(j).Message(), append(elem, ']'), out)
			}
		case shapeMap:
			mp := m.Get(c.fd).Map()
			keys := make([]protoreflect.MapKey, 0, mp.Len())
			mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			slices.SortFunc(keys, compareMapKeys)
			for _, k := range keys {
				elem := append(slices.Clip(path), '[')
				elem = strconv.AppendQuote(elem, k.String())
				c.sub.collect(mp.Get(k).Message(), append(elem, ']'), out)
			}
		}
	}
}

// appendFieldName returns prefix + "." + name (or name alone at the top) in a
// fresh slice, so sibling paths never share a backing array.
func appendFieldName(prefix []byte, name string) []byte {
	b := make([]byte, 0, len(prefix)+1+len(name))
	b = append(b, prefix...)
	if len(prefix) > 0 {
		b = append(b, '.')
	}
	return append(b, name...)
}

// compareMapKeys orders map keys of one map (all of the same kind):
// strings lexically, integers numerically, false before true.
func compareMapKeys(a, b protoreflect.MapKey) int {
	switch a.Interface().(type) {
	case string:
		return strings.Compare(a.String(), b.String())
	case int32, int64:
		return cmp.Compare(a.Int(), b.Int())
	case uint32, uint64:
		return cmp.Compare(a.Uint(), b.Uint())
	case bool:
		return cmp.Compare(boolRank(a.Bool()), boolRank(b.Bool()))
	}
	return 0
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// plan returns the cached plan of md, building the plans of every message type
// reachable from md on first use.
func (v *validator) plan(md protoreflect.MessageDescriptor) *validationPlan {
	if p, ok := v.plans.Load(md); ok {
		return p.(*validationPlan)
	}
	v.build.Lock()
	defer v.build.Unlock()
	if p, ok := v.plans.Load(md); ok {
		return p.(*validationPlan)
	}
	return v.buildPlans(md)
}

// buildPlans builds the plans of md and of every message type reachable from
// it. Recursive types make the type graph cyclic, so it is done in three
// passes: collect the graph, find which types have requirements in their
// subtree (a fixpoint), then fill in the plans, whose pointers may form cycles.
// It is called with v.build held.
func (v *validator) buildPlans(root protoreflect.MessageDescriptor) *validationPlan {
	b := planBuilder{v: v, nodes: map[protoreflect.MessageDescriptor]*planNode{}}
	b.collect(root)
	b.propagateRequirements()
	for _, n := range b.nodes {
		if n.hasReq {
			b.fill(n)
		}
	}
	for md, n := range b.nodes {
		v.plans.Store(md, n.plan)
	}
	return b.nodes[root].plan
}

// planBuilder holds one buildPlans run: the message types whose plans are
// not cached yet, each a planNode.
type planBuilder struct {
	v     *validator
	nodes map[protoreflect.MessageDescriptor]*planNode
}

// planNode is a message type whose plan is being built.
type planNode struct {
	md       protoreflect.MessageDescriptor
	plan     *validationPlan
	children []protoreflect.MessageDescriptor // value types of message fields
	hasReq   bool                             // requirements in its own fields or below
}

// cached returns md's plan from an earlier run.
func (b *planBuilder) cached(md protoreflect.MessageDescriptor) (*validationPlan, bool) {
	p, ok := b.v.plans.Load(md)
	if !ok {
		return nil, false
	}
	return p.(*validationPlan), true
}

// collect makes a node of every message type reachable from root whose plan
// is not cached (pass 1), noting which have required fields of their own.
func (b *planBuilder) collect(root protoreflect.MessageDescriptor) {
	queue := []protoreflect.MessageDescriptor{root}
	for len(queue) > 0 {
		md := queue[0]
		queue = queue[1:]
		if _, seen := b.nodes[md]; seen {
			continue
		}
		n := &planNode{md: md, plan: &validationPlan{}}
		b.nodes[md] = n
		fields := md.Fields()
		for i := range fields.Len() {
			n.hasReq = n.hasReq || b.v.isRequired(fields.Get(i))
			child := messageValueType(fields.Get(i))
			if child == nil {
				continue
			}
			n.children = append(n.children, child)
			if _, done := b.cached(child); !done {
				queue = append(queue, child)
			}
		}
	}
}

// hasReq reports whether md has requirements in its subtree, as known so far.
func (b *planBuilder) hasReq(md protoreflect.MessageDescriptor) bool {
	if n, ok := b.nodes[md]; ok {
		return n.hasReq
	}
	p, _ := b.cached(md)
	return p != nil && len(p.checks) > 0
}

// propagateRequirements marks each type that has requirements below it, from
// a child type that has some (pass 2). It iterates until nothing changes:
// cycles converge because hasReq only ever flips to true.
func (b *planBuilder) propagateRequirements() {
	for changed := true; changed; {
		changed = false
		for _, n := range b.nodes {
			if !n.hasReq && slices.ContainsFunc(n.children, b.hasReq) {
				n.hasReq, changed = true, true
			}
		}
	}
}

// subPlan is the plan a field of message type md refers to: nil when md
// has no requirements in its subtree.
func (b *planBuilder) subPlan(md protoreflect.MessageDescriptor) *validationPlan {
	if !b.hasReq(md) {
		return nil
	}
	if n, ok := b.nodes[md]; ok {
		return n.plan
	}
	p, _ := b.cached(md)
	return p
}

// fill gives n's plan a check for each field that is required or leads to
// requirements (pass 3).
func (b *planBuilder) fill(n *planNode) {
	fields := n.md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		c := fieldCheck{fd: fd, jsonName: fd.JSONName(), required: b.v.isRequired(fd), shape: shapeOf(fd)}
		if child := messageValueType(fd); child != nil {
			c.sub = b.subPlan(child)
		}
		if c.required || c.sub != nil {
			n.plan.checks = append(n.plan.checks, c)
		}
	}
}

// shapeOf says whether fd is a map, a list or a singular field.
func shapeOf(fd protoreflect.FieldDescriptor) fieldShape {
	switch {
	case fd.IsMap():
		return shapeMap
	case fd.IsList():
		return shapeList
	}
	return shapeSingular
}

// messageValueType returns the message type of a field's values (the field's
// own type, the element type of a list, the value type of a map), or nil when
// the values are not messages.
func messageValueType(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return fd.Message()
	}
	return nil
}
