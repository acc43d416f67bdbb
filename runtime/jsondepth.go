package runtime

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// MaxJSONDepth bounds the nesting of a request message: the number of JSON
// objects and arrays nested in its ProtoJSON form, the message's own object
// counting as one. It is the same on every binding — counted on the bytes of
// a JSON-RPC params member or an HTTP+JSON body before they are decoded, and
// on the decoded message of a gRPC call — so a message accepted on one
// binding can be stored and served on all of them. A deeper request is
// refused with InvalidRequest (JSON-RPC -32600, HTTP 400, gRPC
// InvalidArgument) whose message and "limit" metadata name MaxJSONDepth.
//
// A2A's own messages nest at most 7 levels deep (SendMessageRequest →
// message → parts → part → data); the rest is the caller's
// google.protobuf.Struct and Value data (metadata, data parts), which keeps
// more than 50 levels. The bound is what keeps deep input cheap: decoders
// recurse once per level, and a JSON document within the 8 MiB body limit can
// nest millions of levels, each of which costs a goroutine stack frame.
const MaxJSONDepth = 64

// MaxResponseJSONDepth bounds the nesting of what clients decode: responses,
// stream events, error bodies and agent cards. A response wraps a stored
// request message in a few levels of its own (a task in a list in a JSON-RPC
// result), and an agent may produce deeper data than it accepts, so clients
// allow twice MaxJSONDepth. A deeper answer is InvalidAgentResponse.
const MaxResponseJSONDepth = 2 * MaxJSONDepth

// grpcRecursionLimit is the protobuf recursion limit of request decoding on
// gRPC (GRPCServerCodec). ProtoJSON and protobuf count levels differently:
// every JSON object inside a Struct is three protobuf messages (Struct, its
// map entry, Value), so a message within MaxJSONDepth nests at most three
// times as deep in protobuf. The exact check is jsonDepthWithin afterwards.
const grpcRecursionLimit = 3*MaxJSONDepth + 8

// depthExceeded is the refusal of a request nested deeper than MaxJSONDepth.
func depthExceeded() *Error {
	return limitExceeded("MaxJSONDepth",
		fmt.Sprintf("the request nests JSON objects and arrays more than %d levels deep (MaxJSONDepth)", MaxJSONDepth),
		MaxJSONDepth)
}

// jsonDepthWithin reports whether the JSON text doc nests objects and arrays
// at most max levels deep. It reads doc once, stops at the first level too
// deep, and does not allocate; it does not validate doc (malformed input is
// left to the decoder), it only bounds what the decoder will be asked to do.
// Brackets inside strings are not counted.
func jsonDepthWithin(doc []byte, max int) bool {
	depth := 0
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '"':
			i = stringEnd(doc, i)
		case '{', '[':
			if depth++; depth > max {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// stringEnd returns the offset of the quote closing the JSON string that
// opens at doc[open] (len(doc) when it is not closed). It jumps from quote to
// quote and counts the backslashes before each, so long strings (base64
// file bytes) cost one IndexByte.
func stringEnd(doc []byte, open int) int {
	i := open + 1
	for {
		j := bytes.IndexByte(doc[i:], '"')
		if j < 0 {
			return len(doc)
		}
		q := i + j
		backslashes := 0
		for k := q - 1; k > open && doc[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// responseDepthError is the refusal, by a client, of an answer nested deeper
// than MaxResponseJSONDepth (nil when it is not).
func responseDepthError(doc []byte) *Error {
	if jsonDepthWithin(doc, MaxResponseJSONDepth) {
		return nil
	}
	e := NewError(CodeInvalidAgentResponse, fmt.Sprintf(
		"the answer nests JSON objects and arrays more than %d levels deep (MaxResponseJSONDepth)", MaxResponseJSONDepth))
	e.metadata = map[string]string{"limit": "MaxResponseJSONDepth", "limitValue": fmt.Sprint(MaxResponseJSONDepth)}
	return e
}

// messageDepthWithin reports whether the ProtoJSON form of m nests at most
// budget levels deep (m's own object is one level, a list or a map one
// more). It is the gRPC side of MaxJSONDepth: the count jsonDepthWithin
// makes on the JSON bindings, taken on a decoded message. Only fields whose
// type can nest without bound (Struct, Value, ListValue, recursive messages)
// are walked; the depth of the others is a property of the type, computed
// once.
func messageDepthWithin(m protoreflect.Message, budget int) bool {
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Value":
		// The generated well-known types that nest without bound are
		// walked as Go values: the same count as through reflection (which
		// dynamic messages still take), without its map iteration and
		// closures.
		if v, ok := m.Interface().(*structpb.Value); ok {
			return structValueDepthWithin(v, budget)
		}
		return valueDepthWithin(m, budget)
	case "google.protobuf.Struct":
		if v, ok := m.Interface().(*structpb.Struct); ok {
			return structDepthWithin(v, budget)
		}
		// One JSON object; its map is that object, not a level of its own.
		if budget < 1 {
			return false
		}
		ok := true
		m.Get(md.Fields().ByName("fields")).Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
			ok = valueDepthWithin(v.Message(), budget-1)
			return ok
		})
		return ok
	case "google.protobuf.ListValue":
		if v, ok := m.Interface().(*structpb.ListValue); ok {
			return listValueDepthWithin(v, budget)
		}
		if budget < 1 {
			return false
		}
		l := m.Get(md.Fields().ByName("values")).List()
		for i := 0; i < l.Len(); i++ {
			if !valueDepthWithin(l.Get(i).Message(), budget-1) {
				return false
			}
		}
		return true
	}
	if md.FullName().Parent() == "google.protobuf" {
		return budget >= flatWellKnownDepth(md)
	}
	if budget < 1 {
		return false
	}
	plan := typeInfoOf(md).depthPlan()
	if plan.static > budget {
		// Only when all set could the other fields be too deep: measure
		// them too (never for A2A's types, whose static depth is small).
		return childrenWithin(m, plan.nesting, budget-1)
	}
	return childrenWithin(m, plan.deep, budget-1)
}

// structDepthWithin is messageDepthWithin for a generated Struct: one JSON
// object, whose map is that object, not a level of its own.
func structDepthWithin(s *structpb.Struct, budget int) bool {
	if budget < 1 {
		return false
	}
	for _, v := range s.GetFields() {
		if !structValueDepthWithin(v, budget-1) {
			return false
		}
	}
	return true
}

// listValueDepthWithin is messageDepthWithin for a generated ListValue.
func listValueDepthWithin(l *structpb.ListValue, budget int) bool {
	if budget < 1 {
		return false
	}
	for _, v := range l.GetValues() {
		if !structValueDepthWithin(v, budget-1) {
			return false
		}
	}
	return true
}

// structValueDepthWithin is valueDepthWithin for a generated Value: it is
// its struct, list or scalar.
func structValueDepthWithin(v *structpb.Value, budget int) bool {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StructValue:
		return structDepthWithin(k.StructValue, budget)
	case *structpb.Value_ListValue:
		return listValueDepthWithin(k.ListValue, budget)
	}
	return true
}

// valueDepthWithin is depthWithin for a google.protobuf.Value, which has no
// level of its own in JSON: it is its struct, list or scalar.
func valueDepthWithin(m protoreflect.Message, budget int) bool {
	od := m.Descriptor().Oneofs().ByName("kind")
	fd := m.WhichOneof(od)
	if fd == nil || fd.Kind() != protoreflect.MessageKind {
		return true
	}
	return messageDepthWithin(m.Get(fd).Message(), budget)
}

// childrenWithin checks the deep fields of m against the budget left for
// m's members.
func childrenWithin(m protoreflect.Message, deep []protoreflect.FieldDescriptor, budget int) bool {
	for _, fd := range deep {
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		switch {
		case fd.IsList():
			l := v.List()
			if budget < 1 {
				return false
			}
			if !isMessageField(fd) {
				continue
			}
			for i := 0; i < l.Len(); i++ {
				if !messageDepthWithin(l.Get(i).Message(), budget-1) {
					return false
				}
			}
		case fd.IsMap():
			if budget < 1 {
				return false
			}
			if fd.MapValue().Kind() != protoreflect.MessageKind {
				continue
			}
			ok := true
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				ok = messageDepthWithin(mv.Message(), budget-1)
				return ok
			})
			if !ok {
				return false
			}
		default:
			if !messageDepthWithin(v.Message(), budget) {
				return false
			}
		}
	}
	return true
}

// depthPlan is what messageDepthWithin needs to know about a message type.
type depthPlan struct {
	// static is the JSON depth of the message counting only the fields that
	// are not in deep (at most, when all of them are set).
	static int
	// deep lists the message-typed fields whose depth depends on the value:
	// they reach Struct, Value, ListValue or a recursive message.
	deep []protoreflect.FieldDescriptor
	// nesting lists every field that adds a level: messages, lists, maps.
	nesting []protoreflect.FieldDescriptor
}

func isMessageField(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
}

// flatWellKnownDepth is the JSON depth of a well-known type other than
// Struct, Value and ListValue: Timestamp, Duration, wrappers and FieldMask
// are strings or numbers, Empty is {}, and Any is an object (whose payload
// A2A does not use; it is counted as one level).
func flatWellKnownDepth(md protoreflect.MessageDescriptor) int {
	switch md.Name() {
	case "Empty", "Any":
		return 1
	}
	return 0
}

// unboundedTypes are the well-known types whose JSON nests without bound.
var unboundedTypes = map[protoreflect.FullName]bool{
	"google.protobuf.Value": true, "google.protobuf.Struct": true, "google.protobuf.ListValue": true,
}

// buildDepthPlan computes md's plan; unbounded reports whether md's depth
// depends on its value. onPath holds the types being planned, so that a
// recursive type is found unbounded instead of looping.
func buildDepthPlan(md protoreflect.MessageDescriptor, onPath map[protoreflect.FullName]bool) (p *depthPlan, unbounded bool) {
	p = &depthPlan{static: 1}
	if md.FullName().Parent() == "google.protobuf" && !unboundedTypes[md.FullName()] {
		p.static = flatWellKnownDepth(md)
		return p, false
	}
	onPath[md.FullName()] = true
	defer delete(onPath, md.FullName())
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		var sub protoreflect.MessageDescriptor
		if fd.IsMap() {
			sub = fd.MapValue().Message()
		} else if isMessageField(fd) {
			sub = fd.Message()
		}
		extra := 0
		if fd.IsList() || fd.IsMap() {
			extra = 1
		}
		if sub != nil || extra > 0 {
			p.nesting = append(p.nesting, fd)
		}
		if sub == nil {
			p.static = max(p.static, 1+extra)
			continue
		}
		if unboundedTypes[sub.FullName()] || onPath[sub.FullName()] {
			p.deep = append(p.deep, fd)
			continue
		}
		subPlan, subUnbounded := buildDepthPlan(sub, onPath)
		if subUnbounded {
			p.deep = append(p.deep, fd)
			continue
		}
		p.static = max(p.static, 1+extra+subPlan.static)
	}
	return p, unboundedTypes[md.FullName()] || len(p.deep) > 0
}
