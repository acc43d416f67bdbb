package protobuild

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// Request builds the CodeGeneratorRequest protoc would send a plugin: files
// as returned by Compile (dependencies first), the files to generate and the
// plugin parameter (e.g. "module=github.com/a2agen/a2agen").
//
// compiler_version is deliberately left unset: the files were not compiled by
// protoc, and an absent version makes generated headers read "(unknown)"
// instead of claiming a protoc release, and keeps them stable across
// protocompile upgrades.
//
// The request goes through one wire round trip, so that option extensions
// (google.api.http, field_behavior) reach the plugin exactly as they would
// over stdin, decoded with the extension types linked into this binary.
func Request(files []*descriptorpb.FileDescriptorProto, toGenerate []string, parameter string) (*pluginpb.CodeGeneratorRequest, error) {
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: toGenerate,
		ProtoFile:      files,
	}
	if parameter != "" {
		req.Parameter = proto.String(parameter)
	}
	b, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("protobuild: encode CodeGeneratorRequest: %w", err)
	}
	out := new(pluginpb.CodeGeneratorRequest)
	if err := proto.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("protobuild: decode CodeGeneratorRequest: %w", err)
	}
	return out, nil
}
