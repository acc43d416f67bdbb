package protoprint

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/google/go-cmp/cmp"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/descriptorpb"
	_ "google.golang.org/protobuf/types/known/apipb"
	_ "google.golang.org/protobuf/types/known/typepb"
	_ "google.golang.org/protobuf/types/pluginpb"
)

// TestPrintedFilesCompileToTheSameDescriptors prints registered files,
// compiles the output with protocompile (imports resolved only from other
// printed files) and compares the descriptors with the originals.
func TestPrintedFilesCompileToTheSameDescriptors(t *testing.T) {
	paths := []string{
		"google/api/annotations.proto", "google/api/http.proto", "google/api/client.proto",
		"google/api/field_behavior.proto", "google/api/launch_stage.proto",
		// The well-known types exercise proto2, defaults, extension
		// ranges, reserved names, message-valued options and more.
		"google/protobuf/descriptor.proto", "google/protobuf/struct.proto",
		"google/protobuf/timestamp.proto", "google/protobuf/duration.proto",
		"google/protobuf/empty.proto", "google/protobuf/any.proto",
		"google/protobuf/type.proto", "google/protobuf/api.proto",
		"google/protobuf/compiler/plugin.proto",
	}
	sources := map[string]string{}
	var collect func(fd protoreflect.FileDescriptor)
	collect = func(fd protoreflect.FileDescriptor) {
		if _, done := sources[fd.Path()]; done {
			return
		}
		src, err := File(fd, "printed for a test")
		if err != nil {
			t.Fatal(err)
		}
		sources[fd.Path()] = string(src)
		for i := range fd.Imports().Len() {
			collect(fd.Imports().Get(i).FileDescriptor)
		}
	}
	for _, p := range paths {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(p)
		if err != nil {
			t.Fatal(err)
		}
		collect(fd)
	}
	compiler := protocompile.Compiler{
		Resolver: &protocompile.SourceResolver{Accessor: func(path string) (io.ReadCloser, error) {
			src, ok := sources[path]
			if !ok {
				t.Errorf("compiling the printed files needs %s, which was not printed", path)
				return nil, protoregistry.NotFound
			}
			return io.NopCloser(strings.NewReader(src)), nil
		}},
	}
	compiled, err := compiler.Compile(context.Background(), paths...)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range compiled {
		want, _ := protoregistry.GlobalFiles.FindFileByPath(paths[i])
		got := normalize(protodesc.ToFileDescriptorProto(f))
		if diff := cmp.Diff(normalize(protodesc.ToFileDescriptorProto(want)), got, protocmp.Transform()); diff != "" {
			t.Errorf("%s: compiled output differs (-want +got):\n%s\nsource:\n%s", paths[i], diff, sources[paths[i]])
		}
	}
}

// normalize drops what printing cannot carry (comments and positions).
func normalize(fdp *descriptorpb.FileDescriptorProto) *descriptorpb.FileDescriptorProto {
	fdp = proto.CloneOf(fdp)
	fdp.SourceCodeInfo = nil
	return fdp
}

func TestEditionsRefused(t *testing.T) {
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("e.proto"), Syntax: proto.String("editions"), Edition: descriptorpb.Edition_EDITION_2023.Enum(),
	}, nil)
	if err != nil {
		t.Skip(err)
	}
	if _, err := File(fd, ""); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("File(editions) = %v; want an error", err)
	}
}

func TestQuoteBytes(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:     `"plain"`,
		`a"b\c`:     `"a\"b\\c"`,
		"é\n\x00":   `"\303\251\012\000"`,
		"tab\there": `"tab\011here"`,
	} {
		if got := quoteBytes([]byte(in)); got != want {
			t.Errorf("quoteBytes(%q) = %s; want %s", in, got, want)
		}
	}
}
