// Package gen is protoc-gen-a2a's code generator. It runs on
// google.golang.org/protobuf/compiler/protogen and writes Go with
// github.com/dave/jennifer: for every .proto file with a service that has
// google.api.http rules, a <name>.a2a.go file next to protoc-gen-go's
// <name>.pb.go, in the same Go package, holding per service
//
//   - a runtime.ServiceDesc (operations, HTTP rules; the REQUIRED fields
//     are not listed: the runtime reads them from the descriptors),
//   - the handler interface and an Unimplemented handler,
//   - a constructor binding a handler to the operations (*runtime.Service),
//   - a server constructor per binding (JSON-RPC, HTTP+JSON, gRPC); each
//     HTTP rule carries its path template as written, checked here with
//     internal/pathtemplate, the parser the runtime matches with,
//   - the client interface, its constructor over any runtime.ClientTransport
//     and a client constructor per binding.
//
// Generated code stays thin: it calls the generic constructors of
// github.com/a2agen/a2agen/runtime, which this package names by import path
// but never imports.
//
// Files, by idea: Generate and Options are the entry points; model.go,
// rules.go reads and checks the descriptors (path templates parsed by
// internal/pathtemplate); names.go is the single authority for generated identifiers;
// emit_*.go write Go; comments.go shapes doc comments.
package gen
