package a2av03grpc

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// sameShape converts src into dst, a message v0.3 and v1.0 declare alike
// in different packages (security schemes and their OAuth flows, security
// requirements): every field src sets that dst has under the same name and
// of the same kind is copied, messages, lists and maps field by field. What
// dst lacks (v1.0's device-code flow and PKCE, in v0.3) is dropped; Lossy
// lists it.
func sameShape[T proto.Message](dst T, src proto.Message) T {
	copySameShape(dst.ProtoReflect(), src.ProtoReflect())
	return dst
}

func copySameShape(dst, src protoreflect.Message) {
	fields := dst.Descriptor().Fields()
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		to := fields.ByName(fd.Name())
		if to == nil || to.Kind() != fd.Kind() || to.Cardinality() != fd.Cardinality() || to.IsMap() != fd.IsMap() {
			return true
		}
		switch {
		case fd.IsMap():
			m := dst.Mutable(to).Map()
			v.Map().Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
				m.Set(k, sameShapeValue(m.NewValue, to.MapValue(), fd.MapValue(), e))
				return true
			})
		case fd.IsList():
			l, from := dst.Mutable(to).List(), v.List()
			for i := range from.Len() {
				l.Append(sameShapeValue(l.NewElement, to, fd, from.Get(i)))
			}
		case fd.Message() != nil:
			copySameShape(dst.Mutable(to).Message(), v.Message())
		default:
			dst.Set(to, sameShapeValue(nil, to, fd, v))
		}
		return true
	})
}

// sameShapeValue is a value of the field from as one of the field to: a
// message copied into a new one (newValue), an enum value by its name,
// anything else as it is.
func sameShapeValue(newValue func() protoreflect.Value, to, from protoreflect.FieldDescriptor, v protoreflect.Value) protoreflect.Value {
	switch from.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		nv := newValue()
		copySameShape(nv.Message(), v.Message())
		return nv
	case protoreflect.EnumKind:
		if ev := from.Enum().Values().ByNumber(v.Enum()); ev != nil {
			if tv := to.Enum().Values().ByName(ev.Name()); tv != nil {
				return protoreflect.ValueOfEnum(tv.Number())
			}
		}
		return protoreflect.ValueOfEnum(0)
	}
	return v
}
