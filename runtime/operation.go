package runtime

import "google.golang.org/protobuf/reflect/protoreflect"

// Binding names as they appear in AgentInterface.protocolBinding.
const (
	BindingJSONRPC = "JSONRPC"
	BindingREST    = "HTTP+JSON"
	BindingGRPC    = "GRPC"
)

// HTTPRule is one google.api.http binding of an rpc: the verb, the path
// template exactly as written in the proto, the body selector ("" for no
// body, "*" for the whole request, or a field name) and the template
// compiled by protoc-gen-a2a, which the HTTP+JSON router and client use.
type HTTPRule struct {
	Method  string // "GET", "POST", "PUT", "PATCH" or "DELETE"
	Path    string // e.g. "/tasks/{id=*}:cancel" or "/{tenant}/tasks/{id=*}:cancel"
	Body    string
	Pattern PathPattern
}

// Operation describes one rpc of a service as the generator saw it in the
// descriptors. Generated code publishes a table of them per service so that
// routers, clients and tools can inspect the wire shape at run time.
type Operation struct {
	// Name is the rpc name; it is also the JSON-RPC method name.
	Name string
	// Procedure is the gRPC full method name, "/<package>.<Service>/<Name>".
	Procedure string
	// Request and Response are the full names of the message types.
	Request  protoreflect.FullName
	Response protoreflect.FullName
	// ServerStreaming is true for rpcs that return a stream of responses.
	ServerStreaming bool
	// HTTPRules lists the primary google.api.http rule first and then every
	// additional binding, in declaration order.
	HTTPRules []HTTPRule
}

// RequiredFields lists, per message full name, the proto names of the fields
// annotated (google.api.field_behavior) = REQUIRED. The generator emits only
// the messages reachable from a request type.
type RequiredFields map[protoreflect.FullName][]protoreflect.Name

// ServiceDesc describes a service: its full name, its operations in
// declaration order and the required fields of its request messages.
type ServiceDesc struct {
	Name       protoreflect.FullName
	Operations []Operation
	Required   RequiredFields
}

// Operation returns the operation with the given rpc name, or nil.
func (d *ServiceDesc) Operation(name string) *Operation {
	for i := range d.Operations {
		if d.Operations[i].Name == name {
			return &d.Operations[i]
		}
	}
	return nil
}
