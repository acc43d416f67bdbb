package runtime

import "github.com/a2agen/a2agen/internal/binding"

// Binding names an A2A protocol binding as AgentInterface.protocolBinding
// spells it (its String): BindingJSONRPC, BindingHTTPJSON or BindingGRPC, or a
// custom binding URI on cards of other agents. It is the one binding type
// of a2agen: CallInfo, host.Binding, agentcard and the generators use it.
// Its methods give the facts shared about a binding:
//
//	String() string  // "JSONRPC", "HTTP+JSON", "GRPC": the card's spelling
//	Title() string   // "JSON-RPC", "HTTP+JSON", "gRPC": the name in prose
//	Option() string  // "jsonrpc", "rest", "grpc": flag and plugin-parameter name
//	Ident() string   // "JSONRPC", "REST", "GRPC": in generated identifiers
//	IsHTTP() bool    // JSON-RPC and HTTP+JSON: HTTP/1.1 listeners, http(s) URLs
//	Known() bool     // one of the three above
//	Index() int      // 0, 1, 2 in Bindings order; -1 otherwise
//
// The type is declared in an internal package that imports only the
// standard library, so that protoc-gen-a2a shares it without linking the
// runtime.
type Binding = binding.Binding

// The bindings of A2A v1.0. They are untyped constants, as net/http's
// method names are, so that they fill the card's string fields
// (AgentInterface.ProtocolBinding) as well as Binding ones, and compare with
// either; Binding(BindingGRPC).Title() reaches the methods.
const (
	BindingJSONRPC  = binding.JSONRPC  // "JSONRPC"
	BindingHTTPJSON = binding.HTTPJSON // "HTTP+JSON"
	BindingGRPC     = binding.GRPC     // "GRPC"
)

// BindingREST is BindingHTTPJSON under the name the binding had in earlier
// drafts of A2A.
//
// Deprecated: use BindingHTTPJSON. It stays because projects scaffolded
// before a2a-scaffold wrote BindingHTTPJSON name it in their generated
// a2a_serve.gen.go; regenerating (a2a-scaffold generate) replaces it.
const BindingREST = BindingHTTPJSON

// Bindings returns the bindings of A2A v1.0 in documented order: JSONRPC,
// HTTP+JSON, GRPC.
func Bindings() []Binding { return binding.All() }

// UnknownBindingError is ParseBinding's error; its message names the
// accepted spellings.
type UnknownBindingError = binding.UnknownError

// ParseBinding returns the binding s names, accepting what people write:
// the card's spelling in any case and with or without its punctuation
// ("json-rpc", "http_json"), the option names ("jsonrpc", "rest", "grpc")
// and common aliases ("http", "jsonrpc2"). Anything else is an
// *UnknownBindingError naming the accepted spellings.
func ParseBinding(s string) (Binding, error) { return binding.Parse(s) }
