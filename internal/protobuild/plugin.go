package protobuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// Plugin is one protogen-based generator run in-process: the options it would
// pass to protogen.Options.Run and the function it would run.
type Plugin struct {
	Name     string // used in error messages, e.g. "protoc-gen-go"
	Options  protogen.Options
	Generate func(*protogen.Plugin) error
}

// Run runs p on req as protoc would run the plugin binary and returns the
// generated files by name (relative to the output directory). A plugin error
// (the response's error field) is returned as an error prefixed with the
// plugin name; so is a file that needs a feature the plugin did not declare.
func Run(req *pluginpb.CodeGeneratorRequest, p Plugin) (map[string][]byte, error) {
	gen, err := p.Options.New(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	if err := p.Generate(gen); err != nil {
		gen.Error(err)
	}
	return responseFiles(req, gen.Response(), p.Name)
}

// responseFiles checks a plugin's response as protoc does and returns its
// files by name.
func responseFiles(req *pluginpb.CodeGeneratorRequest, resp *pluginpb.CodeGeneratorResponse, name string) (map[string][]byte, error) {
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: %s", name, resp.GetError())
	}
	if err := checkFeatures(req, resp); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	files := make(map[string][]byte, len(resp.File))
	for _, f := range resp.File {
		if f.GetInsertionPoint() != "" {
			return nil, fmt.Errorf("%s: insertion points are not supported (file %s)", name, f.GetName())
		}
		files[f.GetName()] = []byte(f.GetContent())
	}
	return files, nil
}

// checkFeatures does what protoc does after a plugin answers: refuse output
// for proto3 optional fields or editions the plugin did not declare support for.
func checkFeatures(req *pluginpb.CodeGeneratorRequest, resp *pluginpb.CodeGeneratorResponse) error {
	generate := map[string]bool{}
	for _, name := range req.FileToGenerate {
		generate[name] = true
	}
	var problems []string
	for _, f := range req.ProtoFile {
		if !generate[f.GetName()] {
			continue
		}
		if resp.GetSupportedFeatures()&uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL) == 0 && hasProto3Optional(f.GetMessageType()) {
			problems = append(problems, f.GetName()+" uses proto3 optional, which the plugin does not support")
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func hasProto3Optional(msgs []*descriptorpb.DescriptorProto) bool {
	for _, m := range msgs {
		for _, f := range m.GetField() {
			if f.GetProto3Optional() {
				return true
			}
		}
		if hasProto3Optional(m.GetNestedType()) {
			return true
		}
	}
	return false
}

// RunBinary runs the plugin executable at path on req, as protoc runs a
// plugin found on PATH (the request on stdin, the response on stdout), and
// returns the generated files by name like Run. name is used in errors.
func RunBinary(ctx context.Context, req *pluginpb.CodeGeneratorRequest, name, path string) (map[string][]byte, error) {
	in, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", name, err, stderr.Bytes())
	}
	resp := new(pluginpb.CodeGeneratorResponse)
	if err := proto.Unmarshal(stdout.Bytes(), resp); err != nil {
		return nil, fmt.Errorf("%s: reading its response: %w", name, err)
	}
	return responseFiles(req, resp, name)
}
