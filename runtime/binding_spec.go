package runtime

import (
	"net/http"
	"strconv"
)

// BindingSpec is what the runtime does for one built-in binding. Code that
// handles every binding (hosting, clients from agent cards, telemetry,
// tests) looks its binding up here (BindingSpecOf, BindingSpecs) instead of
// switching on it, so a binding's behaviour is written in one place.
type BindingSpec struct {
	// Binding is the binding described.
	Binding Binding
	// RPCSystem is OpenTelemetry's rpc.system.name of the binding: "jsonrpc"
	// and "grpc" as the semantic conventions name them; HTTP+JSON, a REST
	// mapping with no name of its own there, is "http".
	RPCSystem string
	// NewTransport returns a client transport for the interface at url (for
	// gRPC a target: host:port or a URL; see ParseGRPCTarget). Give it
	// ClientDefaults of the service's descriptor, as generated clients do,
	// and pass the transport to the generated New…Client.
	NewTransport func(url string, opts ...ClientOption) (ClientTransport, error)
	// HTTPHandler serves svc at path ("/" or "/a2a") of an HTTP listener and
	// returns the http.ServeMux pattern it answers under: JSON-RPC the path
	// itself, HTTP+JSON the tree below it. Nil for gRPC, which is
	// registered on a grpc.Server (RegisterGRPC).
	HTTPHandler func(svc *Service, path string, opts ...HandlerOption) (pattern string, h http.Handler)
	// ErrorStatus is how an A2A error code shows on the wire of the
	// binding: the JSON-RPC error code, the HTTP status of an HTTP+JSON
	// error, the name of the gRPC status code ("NOT_FOUND").
	ErrorStatus func(ErrorCode) string
	// OKStatus is the status a successful call has on the wire where the
	// binding gives it one ("OK" on gRPC), else "".
	OKStatus string
	// ClientStreams says whether the binding carries rpcs whose client
	// sends a stream of requests (client-streaming and bidirectional rpcs,
	// Operation.ClientStreaming): gRPC only. A2A defines no wire form for
	// them on JSON-RPC or HTTP+JSON, whose routers answer them with
	// UnsupportedOperation; a specification of one later is this field and
	// the binding's router and transport.
	ClientStreams bool
}

// bindingSpecs are in Bindings order (Binding.Index).
var bindingSpecs = [...]BindingSpec{
	{
		Binding:   BindingJSONRPC,
		RPCSystem: "jsonrpc",
		NewTransport: func(url string, opts ...ClientOption) (ClientTransport, error) {
			return NewJSONRPCTransport(url, opts...), nil
		},
		HTTPHandler: func(svc *Service, path string, opts ...HandlerOption) (string, http.Handler) {
			if path == "/" {
				path = "/{$}" // the root only, not every path
			}
			return path, NewJSONRPCHandler(svc, opts...)
		},
		ErrorStatus: func(c ErrorCode) string { return strconv.Itoa(c.JSONRPCCode()) },
	},
	{
		Binding:   BindingHTTPJSON,
		RPCSystem: "http",
		NewTransport: func(url string, opts ...ClientOption) (ClientTransport, error) {
			return NewRESTTransport(url, opts...), nil
		},
		HTTPHandler: func(svc *Service, path string, opts ...HandlerOption) (string, http.Handler) {
			if path == "/" {
				path = ""
			}
			return path + "/", NewRESTHandler(svc, append(opts, WithPathPrefix(path))...)
		},
		ErrorStatus: func(c ErrorCode) string { return strconv.Itoa(c.HTTPStatus()) },
	},
	{
		Binding:   BindingGRPC,
		RPCSystem: "grpc",
		NewTransport: func(url string, opts ...ClientOption) (ClientTransport, error) {
			return NewGRPCTransport(url, opts...)
		},
		ErrorStatus:   func(c ErrorCode) string { return GRPCCodeName(c.GRPCCode()) },
		OKStatus:      "OK",
		ClientStreams: true,
	},
}

// BindingSpecs returns the specs of the bindings of A2A v1.0, in Bindings
// order.
func BindingSpecs() []BindingSpec { return append([]BindingSpec(nil), bindingSpecs[:]...) }

// BindingSpecOf returns the spec of b, or false for a binding that is none
// of the three (a custom binding URI).
func BindingSpecOf(b Binding) (BindingSpec, bool) {
	i := b.Index()
	if i < 0 {
		return BindingSpec{}, false
	}
	return bindingSpecs[i], true
}
