package runtime

import "google.golang.org/protobuf/reflect/protoreflect"

// HTTPRule is one google.api.http binding of an rpc: the verb, the path
// template exactly as written in the proto and the body selector ("" for no
// body, "*" for the whole request, or a field name). protoc-gen-a2a checked
// the template with the parser the HTTP+JSON router and client use
// (internal/pathtemplate), so the string is the one form of the template.
type HTTPRule struct {
	Method string // "GET", "POST", "PUT", "PATCH" or "DELETE"
	Path   string // e.g. "/tasks/{id=*}:cancel" or "/{tenant}/tasks/{id=*}:cancel"
	Body   string
}

// Operation describes one rpc of a service as the generator saw it in the
// descriptors. Generated code publishes a table of them per service so that
// routers, clients and tools can inspect the wire shape at run time.
type Operation struct {
	// Name is the rpc name.
	Name string
	// JSONRPCMethod is the JSON-RPC method name: the rpc name in A2A v1.0,
	// a slash-separated name in v0.3 ("message/send"). Generated code always
	// sets it; an empty one (hand-written descriptions) means Name.
	JSONRPCMethod string
	// Procedure is the gRPC full method name, "/<package>.<Service>/<Name>".
	Procedure string
	// Request and Response are the full names of the message types.
	Request  protoreflect.FullName
	Response protoreflect.FullName
	// ServerStreaming is true for rpcs that return a stream of responses.
	ServerStreaming bool
	// ClientStreaming is true for rpcs whose client sends a stream of
	// requests: client-streaming rpcs, and bidirectional ones when
	// ServerStreaming is true as well (A2A's SendLiveMessage). A2A defines
	// them on gRPC only; ServedOn says where the runtime serves an rpc.
	ClientStreaming bool
	// HTTPRules lists the primary google.api.http rule first and then every
	// additional binding, in declaration order.
	HTTPRules []HTTPRule
	// HTTPVerbs, when set, widens the verbs of HTTPRules on the HTTP+JSON
	// binding, for an rpc whose verb the proto, the specification prose and
	// deployed peers disagree on. protoc-gen-a2a emits it from its table of
	// protocol versions (docs/bindings.md).
	HTTPVerbs *HTTPVerbs
}

// HTTPVerbs are the verbs of an rpc on the HTTP+JSON binding beyond its
// google.api.http rules. They apply to every rule of the rpc (plain and
// /{tenant} routes alike).
type HTTPVerbs struct {
	// Server are verbs the server accepts in addition to each rule's own.
	// The rule's body selector still applies to verbs that carry a body; a
	// GET or DELETE added here reads the fields from the query string.
	Server []string
	// Client are the verbs the client tries, in order; the next one is
	// tried only when the previous answered one of RetryStatuses without an
	// A2A error that shows the route exists.
	Client        []string
	RetryStatuses []int
}

// JSONRPCName is the JSON-RPC method name of the operation: JSONRPCMethod,
// or Name when that is empty.
func (o *Operation) JSONRPCName() string {
	if o.JSONRPCMethod != "" {
		return o.JSONRPCMethod
	}
	return o.Name
}

// ServedOn reports whether the runtime serves and calls the operation on
// binding b. Every operation is served on gRPC; an rpc whose client sends a
// stream of requests (ClientStreaming) only on a binding whose BindingSpec
// says it carries client streams, which neither JSON-RPC nor HTTP+JSON does:
// A2A specifies no wire form for such rpcs there. Their routes and JSON-RPC
// method are still known to the routers, which answer them with
// UnsupportedOperation, and their clients fail the same way without sending
// anything (docs/bindings.md, "Client-streaming and bidirectional rpcs").
func (o *Operation) ServedOn(b Binding) bool {
	if !o.ClientStreaming {
		return true
	}
	spec, ok := BindingSpecOf(b)
	return ok && spec.ClientStreams
}

// ServiceDesc describes a service: its full name, the protocol versions its
// wire form implements and its operations in declaration order. The fields
// marked (google.api.field_behavior) = REQUIRED are not listed: the bindings
// read them from the messages' descriptors, which keep the annotation.
// Everything that differs between versions of
// the A2A protocol is data here, emitted by protoc-gen-a2a, so the runtime
// serves any version it is given.
type ServiceDesc struct {
	Name protoreflect.FullName
	// ProtocolVersions are the A2A protocol versions (Major.Minor) the
	// service speaks, newest first: what a binding negotiates A2A-Version
	// against unless WithSupportedVersions says otherwise, and (the first)
	// what generated clients send. Empty: the binding accepts any
	// well-formed version and clients send none.
	ProtocolVersions []string
	// OtherVersionMethods maps the JSON-RPC method names of other versions
	// of the protocol, which this service does not serve, to their version
	// ("message/send": "0.3"): a call to one is answered with
	// VersionNotSupported naming the versions served, not MethodNotFound.
	OtherVersionMethods map[string]string
	Operations          []Operation
	// Versions, when set, is the table of what each protocol version of
	// the service's proto package introduced (`make generate` attaches the
	// bundled A2A proto's): the bindings then give each call the view of
	// its negotiated version (VersionTable).
	Versions *VersionTable
}

// ProtocolVersion is the newest protocol version of the service, or "".
func (d *ServiceDesc) ProtocolVersion() string {
	if len(d.ProtocolVersions) == 0 {
		return ""
	}
	return d.ProtocolVersions[0]
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
