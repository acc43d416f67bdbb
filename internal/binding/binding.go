// Package binding is the one vocabulary of A2A protocol bindings: the
// Binding type (runtime.Binding is it), its three values as agent cards
// spell them, the facts every package needs about them (prose name, the
// lower-case option name, the identifier fragment of generated names, HTTP
// or not) and the one parser of what people write for them. It imports
// only the standard library, so that protoc-gen-a2a (which never links the runtime) and the
// runtime share it, as they share internal/version.
package binding

import (
	"strconv"
	"strings"
)

// Binding names an A2A protocol binding as AgentInterface.protocolBinding
// spells it: JSONRPC, HTTPJSON or GRPC, or (on cards of other agents, and
// for transports a client adds) a custom binding URI.
type Binding string

// The bindings of A2A v1.0 (specification §5.3 and the card's
// protocolBinding). They are untyped, as net/http's method names are: they
// fill the card's string fields (AgentInterface.ProtocolBinding) and the
// Binding fields alike, and compare with either.
const (
	JSONRPC  = "JSONRPC"
	HTTPJSON = "HTTP+JSON"
	GRPC     = "GRPC"
)

// facts are the per-binding facts, in documented order (All, Index).
var facts = [...]struct {
	b      Binding
	title  string   // the name in prose and messages
	option string   // protoc-gen-a2a's bindings=, a2a --binding
	ident  string   // fragment of generated Go identifiers
	alias  []string // accepted spellings, normalised (see normalise)
}{
	{JSONRPC, "JSON-RPC", "jsonrpc", "JSONRPC", []string{"JSONRPC", "JSONRPC2", "JSONRPC20"}},
	{HTTPJSON, "HTTP+JSON", "rest", "REST", []string{"HTTPJSON", "REST", "HTTP", "RESTJSON"}},
	{GRPC, "gRPC", "grpc", "GRPC", []string{"GRPC"}},
}

// All returns the bindings of A2A v1.0 in documented order: JSONRPC,
// HTTPJSON, GRPC.
func All() []Binding {
	out := make([]Binding, len(facts))
	for i, f := range facts {
		out[i] = f.b
	}
	return out
}

// String returns the binding as the card spells it.
func (b Binding) String() string { return string(b) }

// Index is the position of b in All (0, 1 or 2), or -1 for any other
// value: an index for per-binding tables.
func (b Binding) Index() int {
	for i, f := range facts {
		if f.b == b {
			return i
		}
	}
	return -1
}

// Known reports whether b is one of the bindings of A2A v1.0, spelled as the
// card spells it.
func (b Binding) Known() bool { return b.Index() >= 0 }

// IsHTTP reports whether b is served over HTTP/1.1: JSON-RPC and HTTP+JSON
// share listeners and take http(s) URLs; gRPC needs a listener of its own and
// takes a gRPC target.
func (b Binding) IsHTTP() bool { return b == JSONRPC || b == HTTPJSON }

// Title is the binding's name in prose and messages: "JSON-RPC",
// "HTTP+JSON", "gRPC"; a custom binding's own spelling.
func (b Binding) Title() string {
	if i := b.Index(); i >= 0 {
		return facts[i].title
	}
	return string(b)
}

// Option is the lower-case name of a built-in binding in command-line flags
// and plugin parameters: "jsonrpc", "rest", "grpc"; "" for any other value.
func (b Binding) Option() string {
	if i := b.Index(); i >= 0 {
		return facts[i].option
	}
	return ""
}

// Ident is the fragment of Go identifiers that name a built-in binding,
// as in NewA2AServiceRESTHandler: "JSONRPC", "REST",
// "GRPC"; "" for any other value.
func (b Binding) Ident() string {
	if i := b.Index(); i >= 0 {
		return facts[i].ident
	}
	return ""
}

// Options returns the option names of All, in order.
func Options() []string {
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = f.option
	}
	return out
}

// Accepted describes the spellings Parse accepts, for messages.
const Accepted = "JSONRPC, HTTP+JSON or GRPC (in any case; also jsonrpc, json-rpc, rest, http, http_json, grpc)"

// Parse returns the built-in binding s names, accepting liberally what
// people write: the card's spelling in any case, with or without its
// punctuation ("json-rpc", "http_json"), the option names ("rest") and
// the common aliases ("http", "jsonrpc2"). Anything else is an
// *UnknownError.
func Parse(s string) (Binding, error) {
	n := normalise(s)
	for _, f := range facts {
		for _, a := range f.alias {
			if n == a {
				return f.b, nil
			}
		}
	}
	return "", &UnknownError{Input: s}
}

// normalise upper-cases s and drops the characters people put between the
// words of a binding's name.
func normalise(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '+', ' ', '.', '/':
			return -1
		}
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, strings.TrimSpace(s))
}

// UnknownError is Parse's error: Input names no binding.
type UnknownError struct {
	Input string
}

// Error names the input and the accepted spellings.
func (e *UnknownError) Error() string {
	if strings.TrimSpace(e.Input) == "" {
		return "no binding named; want " + Accepted
	}
	return "unknown binding " + strconv.Quote(e.Input) + "; want " + Accepted
}
