// Package a2av03pb is the A2A protocol v0.3.0 over gRPC (proto package
// a2a.v1, service a2a.v1.A2AService) for Go: the message types (a2a.pb.go, by
// protoc-gen-go) and the service code (a2a.a2a.go, by protoc-gen-a2a)
// generated from the bundled proto/a2a/v1/a2a.proto, the official v0.3.0
// proto with a2agen's go_package. `make generate` regenerates both next to
// package a2av1; the drift test covers them too.
//
// a2agen uses this package for the gRPC binding of v0.3 only: the server
// serves a2a.v1.A2AService next to lf.a2a.v1.A2AService from one handler
// (package compat/a2av03grpc converts between the two), and agentcard's
// clients call v0.3-only gRPC agents through it. v0.3's JSON-RPC and
// HTTP+JSON bodies are not the proto JSON of these messages (they carry
// "kind" discriminators and lower-case enums): package compat/a2av03 has
// those shapes, so the JSON-RPC and HTTP+JSON constructors generated here
// are not the v0.3 bindings.
//
// Do not link this package into a binary together with another package
// generated from the v0.3 proto (such as the official Go SDK's a2agrpc/v0
// types): both register a2a.v1 types, and protobuf refuses that at start-up.
package a2av03pb
