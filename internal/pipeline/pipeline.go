// Package pipeline is the whole code generation of a proto, in-process: it
// compiles .proto files with protobuild, builds the CodeGeneratorRequest protoc
// would send, and runs protoc-gen-go's generator and protoc-gen-a2a's on it.
// `make generate` (internal/cmd/generate), the drift test and the golden tests
// all call Run, so they produce exactly the same bytes.
package pipeline

import (
	"context"
	"fmt"
	"maps"
	"slices"

	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/a2agen/a2agen/internal/gen"
	"github.com/a2agen/a2agen/internal/protobuild"
)

// Config says what to generate.
type Config struct {
	// ImportPaths are the directories .proto files and their imports are
	// read from, like protoc's -I.
	ImportPaths []string
	// Files are the .proto files to generate, relative to an import path.
	Files []string
	// Parameter is given to both generators, like --go_opt and --a2a_opt
	// (e.g. "module=github.com/a2agen/a2agen" or "paths=source_relative").
	Parameter string
	// A2AParameter is appended to Parameter for protoc-gen-a2a only
	// (e.g. "bindings=jsonrpc").
	A2AParameter string
	// Binaries are further plugins run as executables on the request with
	// Parameter (e.g. protoc-gen-go-grpc), as protoc would run them with
	// their --<name>_out pointing at the same directory.
	Binaries []Binary
	// History, when it has two versions or more, are the protocol versions
	// of the one file of Files, oldest first, that file's own the last:
	// Run then also writes <file>.versions.go, the table of what each
	// version introduced (versions.go), from their descriptors.
	History []ProtoVersion
}

// Binary is a protoc plugin executable.
type Binary struct {
	Name string // e.g. "protoc-gen-go-grpc"
	Path string
}

// Run compiles cfg.Files and returns the generated files, keyed by their
// path relative to the output directory, as protoc would write them with
// --go_out and --a2a_out pointing at the same directory.
func Run(ctx context.Context, cfg Config) (map[string][]byte, error) {
	files, err := protobuild.Compile(ctx, cfg.ImportPaths, cfg.Files...)
	if err != nil {
		return nil, err
	}
	goReq, err := protobuild.Request(files, cfg.Files, cfg.Parameter)
	if err != nil {
		return nil, err
	}
	a2aReq, err := protobuild.Request(files, cfg.Files, joinParams(cfg.Parameter, cfg.A2AParameter))
	if err != nil {
		return nil, err
	}
	out, err := protobuild.Run(goReq, protobuild.Plugin{Name: "protoc-gen-go", Generate: generateGo})
	if err != nil {
		return nil, err
	}
	outputs, err := pluginOutputs(ctx, cfg, goReq, a2aReq)
	if err != nil {
		return nil, err
	}
	for _, o := range outputs {
		for _, name := range slices.Sorted(maps.Keys(o.files)) {
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("%s generates %s, which another plugin generates too", o.name, name)
			}
			out[name] = o.files[name]
		}
	}
	return out, nil
}

// joinParams is the parameter of the a2a plugin: the one all plugins take
// and its own, comma-separated.
func joinParams(common, own string) string {
	switch {
	case own == "":
		return common
	case common == "":
		return own
	}
	return common + "," + own
}

// pluginOutput is what one plugin generated (name names it in errors).
type pluginOutput struct {
	name  string
	files map[string][]byte
}

// pluginOutputs runs the plugins besides protoc-gen-go: protoc-gen-a2a,
// the version table when cfg has a history, and cfg's binaries.
func pluginOutputs(ctx context.Context, cfg Config, goReq, a2aReq *pluginpb.CodeGeneratorRequest) ([]pluginOutput, error) {
	var opts gen.Options
	a2a, err := protobuild.Run(a2aReq, protobuild.Plugin{
		Name:     "protoc-gen-a2a",
		Options:  protogen.Options{ParamFunc: opts.Set},
		Generate: func(p *protogen.Plugin) error { return gen.Generate(p, opts) },
	})
	if err != nil {
		return nil, err
	}
	outputs := []pluginOutput{{"protoc-gen-a2a", a2a}}
	if len(cfg.History) > 1 {
		versions, err := generateVersions(ctx, cfg.History, goReq)
		if err != nil {
			return nil, err
		}
		outputs = append(outputs, pluginOutput{"a2agen version table", versions})
	}
	for _, b := range cfg.Binaries {
		files, err := protobuild.RunBinary(ctx, goReq, b.Name, b.Path)
		if err != nil {
			return nil, err
		}
		outputs = append(outputs, pluginOutput{b.Name, files})
	}
	return outputs, nil
}

// generateVersions generates the table of what each version of history
// introduced.
func generateVersions(ctx context.Context, history []ProtoVersion, goReq *pluginpb.CodeGeneratorRequest) (map[string][]byte, error) {
	table, err := diffVersions(ctx, history)
	if err != nil {
		return nil, err
	}
	return protobuild.Run(goReq, protobuild.Plugin{Name: "a2agen version table", Generate: func(p *protogen.Plugin) error {
		return generateVersionTable(p, table, history)
	}})
}

// generateGo is protoc-gen-go's main function body.
func generateGo(p *protogen.Plugin) error {
	for _, f := range p.Files {
		if f.Generate {
			gengo.GenerateFile(p, f)
		}
	}
	p.SupportedFeatures = gengo.SupportedFeatures
	p.SupportedEditionsMinimum = gengo.SupportedEditionsMinimum
	p.SupportedEditionsMaximum = gengo.SupportedEditionsMaximum
	return nil
}
