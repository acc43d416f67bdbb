package runtime

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// tenantFieldName is the request field that carries the tenant in every A2A
// request message (JSON-RPC params.tenant; REST fills it from the /{tenant}
// path segment; gRPC reads it from the message).
const tenantFieldName protoreflect.Name = "tenant"

// tenantField is the singular string field named tenant of md, or nil
// (typeInfo.tenant, json_typeinfo.go).
func tenantField(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	return typeInfoOf(md).tenant
}

// TenantOf returns the value of m's tenant field, or "" when m has none.
func TenantOf(m proto.Message) string {
	if m == nil {
		return ""
	}
	rm := m.ProtoReflect()
	fd := tenantField(rm.Descriptor())
	if fd == nil {
		return ""
	}
	return rm.Get(fd).String()
}

// SetTenant sets m's tenant field to t and reports whether m has one (a
// singular string field named tenant). It also reports false, changing
// nothing, for a nil message.
func SetTenant(m proto.Message, t string) bool {
	if m == nil {
		return false
	}
	rm := m.ProtoReflect()
	fd := tenantField(rm.Descriptor())
	if fd == nil || !rm.IsValid() {
		return false
	}
	rm.Set(fd, protoreflect.ValueOfString(t))
	return true
}

// applyTenant reconciles the request's tenant field (if the message has one)
// with the interface tenant c.tenant (WithTenant) and records the outcome in
// info.Tenant:
//
//   - a message without a tenant field gets the interface tenant in info;
//   - an empty request tenant is filled in with the interface tenant;
//   - a request tenant that differs from a set interface tenant is refused with
//     InvalidParams and a FieldViolation on "tenant" (the spec leaves the code
//     open; it is a client error in a request field, and TaskNotFound would
//     wrongly suggest the task id was at fault). The message does not echo the
//     interface's tenant;
//   - without an interface tenant, whatever the request carries is accepted.
func (c *handlerConfig) applyTenant(info *CallInfo, req proto.Message) *Error {
	tenant := c.tenant
	if req != nil {
		rm := req.ProtoReflect()
		if fd := tenantField(rm.Descriptor()); fd != nil {
			got := rm.Get(fd).String()
			switch {
			case got == "" && c.tenant != "":
				if rm.IsValid() {
					rm.Set(fd, protoreflect.ValueOfString(c.tenant))
				}
			case got != "" && c.tenant != "" && got != c.tenant:
				return InvalidParams(fmt.Sprintf("tenant %q is not served by this interface", got),
					FieldViolation{Field: "tenant", Description: "does not match the interface tenant"})
			default:
				tenant = got
			}
		}
	}
	if info != nil {
		info.Tenant = tenant
	}
	return nil
}
