package protobuild

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	// Registered so that google/api/*.proto imports resolve from the
	// descriptors compiled into these packages.
	_ "google.golang.org/genproto/googleapis/api/annotations"
	_ "google.golang.org/genproto/googleapis/api/httpbody"
)

// Compile parses and links files (paths relative to one of importPaths, as
// protoc takes them) and returns every file they need: the requested files and
// all their transitive imports, each file after the files it imports. Source
// code info (comments, positions) is kept for the files read from source.
//
// Imports are looked up in importPaths first, then among the descriptors
// linked into this binary (google/protobuf/*, google/api/*). Errors name the
// file, line and column, as protoc does; all of them are reported, joined.
func Compile(ctx context.Context, importPaths []string, files ...string) ([]*descriptorpb.FileDescriptorProto, error) {
	if len(files) == 0 {
		return nil, errors.New("protobuild: no .proto files to compile")
	}
	var problems []error
	compiler := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: importPaths},
			protocompile.ResolverFunc(linkedFile),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
		Reporter: reporter.NewReporter(func(err reporter.ErrorWithPos) error {
			problems = append(problems, err)
			return nil // keep going: report every problem at once
		}, nil),
	}
	linked, err := compiler.Compile(ctx, files...)
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", strings.Join(files, ", "), err)
	}
	var (
		out  []*descriptorpb.FileDescriptorProto
		seen = map[string]bool{}
	)
	var visit func(fd protoreflect.FileDescriptor)
	visit = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			visit(imports.Get(i).FileDescriptor)
		}
		out = append(out, fileProto(fd))
	}
	for _, f := range linked {
		visit(f)
	}
	return out, nil
}

// linkedFile resolves an import from the descriptors registered by the Go
// packages linked into this binary (genproto's google/api files).
func linkedFile(path string) (protocompile.SearchResult, error) {
	fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
	if err != nil {
		return protocompile.SearchResult{}, fs.ErrNotExist
	}
	return protocompile.SearchResult{Desc: fd}, nil
}

// fileProto returns the descriptor proto of a compiled file. Files compiled
// from source keep the proto protocompile built (with source info and
// json_name set, as protoc sends them); registered files are converted.
func fileProto(fd protoreflect.FileDescriptor) *descriptorpb.FileDescriptorProto {
	if r, ok := fd.(interface {
		FileDescriptorProto() *descriptorpb.FileDescriptorProto
	}); ok {
		return r.FileDescriptorProto()
	}
	if u, ok := fd.(interface {
		Unwrap() protoreflect.FileDescriptor
	}); ok {
		return fileProto(u.Unwrap())
	}
	return protodesc.ToFileDescriptorProto(fd)
}
