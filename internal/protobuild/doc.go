// Package protobuild compiles .proto files in-process, without protoc, and
// turns the result into the CodeGeneratorRequest a protoc plugin would
// receive. It lets `make generate` and the generator's tests run the real
// plugins (protoc-gen-go and protoc-gen-a2a) on a machine that has only Go.
//
// Imports of google/protobuf/*.proto come from the descriptors protobuf-go
// bundles, and google/api/*.proto (annotations, http, field_behavior, client,
// launch_stage…) from the descriptors that the genproto Go packages register,
// so no googleapis .proto file has to be copied into a project.
package protobuild
