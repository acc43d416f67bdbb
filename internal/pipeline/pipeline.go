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
	a2aParam := cfg.Parameter
	if cfg.A2AParameter != "" {
		if a2aParam != "" {
			a2aParam += ","
		}
		a2aParam += cfg.A2AParameter
	}
	a2aReq, err := protobuild.Request(files, cfg.Files, a2aParam)
	if err != nil {
		return nil, err
	}

	out, err := protobuild.Run(goReq, protobuild.Plugin{Name: "protoc-gen-go", Generate: generateGo})
	if err != nil {
		return nil, err
	}
	var opts gen.Options
	a2a, err := protobuild.Run(a2aReq, protobuild.Plugin{
		Name:     "protoc-gen-a2a",
		Options:  protogen.Options{ParamFunc: opts.Set},
		Generate: func(p *protogen.Plugin) error { return gen.Generate(p, opts) },
	})
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(a2a)) {
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("protoc-gen-go and protoc-gen-a2a both generate %s", name)
		}
		out[name] = a2a[name]
	}
	return out, nil
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
