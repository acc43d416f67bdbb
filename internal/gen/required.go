package gen

import (
	"slices"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// requiredMessage lists the fields of one message annotated
// (google.api.field_behavior) = REQUIRED, in declaration order.
type requiredMessage struct {
	Message protoreflect.FullName
	Fields  []protoreflect.Name
}

// requiredFields walks every message reachable from the request and response
// types of the service's rpcs (through message fields, repeated or not, and
// map values, across files and packages) and returns those with REQUIRED
// fields, sorted by full name so the output is deterministic.
func requiredFields(svc *protogen.Service) []requiredMessage {
	seen := map[protoreflect.FullName]bool{}
	var out []requiredMessage
	var visit func(md protoreflect.MessageDescriptor)
	visit = func(md protoreflect.MessageDescriptor) {
		if md == nil || seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		var names []protoreflect.Name
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if IsRequired(fd) {
				names = append(names, fd.Name())
			}
			switch {
			case fd.IsMap():
				visit(fd.MapValue().Message())
			default:
				visit(fd.Message())
			}
		}
		if len(names) > 0 {
			out = append(out, requiredMessage{Message: md.FullName(), Fields: names})
		}
	}
	for _, m := range svc.Methods {
		visit(m.Input.Desc)
		visit(m.Output.Desc)
	}
	slices.SortFunc(out, func(a, b requiredMessage) int {
		switch {
		case a.Message < b.Message:
			return -1
		case a.Message > b.Message:
			return 1
		}
		return 0
	})
	return out
}

// IsRequired reports whether fd carries (google.api.field_behavior) = REQUIRED.
func IsRequired(fd protoreflect.FieldDescriptor) bool {
	opts := fd.Options()
	if opts == nil {
		return false
	}
	behaviors, _ := proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	return slices.Contains(behaviors, annotations.FieldBehavior_REQUIRED)
}
