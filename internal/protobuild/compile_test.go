package protobuild

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
)

func writeProtos(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const serviceProto = `syntax = "proto3";
package demo.v1;

import "demo/v1/types.proto";
import "google/api/annotations.proto";
import "google/api/field_behavior.proto";

// Demo is a service.
service Demo {
  rpc Get(Req) returns (Resp) {
    option (google.api.http) = {get: "/r/{id}"};
  }
}

message Req {
  string id = 1 [(google.api.field_behavior) = REQUIRED];
}
`

const typesProto = `syntax = "proto3";
package demo.v1;

import "google/protobuf/timestamp.proto";

message Resp { google.protobuf.Timestamp at = 1; }
`

func TestCompileReturnsEveryFileDependenciesFirst(t *testing.T) {
	dir := writeProtos(t, map[string]string{"demo/v1/demo.proto": serviceProto, "demo/v1/types.proto": typesProto})
	files, err := Compile(context.Background(), []string{dir}, "demo/v1/demo.proto")
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, f := range files {
		if _, dup := index[f.GetName()]; dup {
			t.Fatalf("%s listed twice", f.GetName())
		}
		index[f.GetName()] = i
	}
	for _, want := range []string{
		"demo/v1/demo.proto", "demo/v1/types.proto", "google/protobuf/timestamp.proto",
		"google/api/annotations.proto", "google/api/http.proto", "google/api/field_behavior.proto",
		"google/protobuf/descriptor.proto",
	} {
		if _, ok := index[want]; !ok {
			t.Errorf("%s missing from the compiled files %v", want, slices.Collect(maps.Keys(index)))
		}
	}
	for _, f := range files {
		for _, dep := range f.GetDependency() {
			if index[dep] > index[f.GetName()] {
				t.Errorf("%s comes after %s, which imports it", dep, f.GetName())
			}
		}
	}
	// Comments survive for files compiled from source.
	demo := files[index["demo/v1/demo.proto"]]
	var found bool
	for _, loc := range demo.GetSourceCodeInfo().GetLocation() {
		if strings.Contains(loc.GetLeadingComments(), "Demo is a service.") {
			found = true
		}
	}
	if !found {
		t.Error("leading comment of service Demo lost: source info not kept")
	}
}

func TestCompileErrorsCarryPositions(t *testing.T) {
	dir := writeProtos(t, map[string]string{"bad.proto": `syntax = "proto3";
package bad;
message A {
  Missing m = 1;
}
`})
	_, err := Compile(context.Background(), []string{dir}, "bad.proto")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`bad.proto:4:3: `, `unknown type Missing`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestCompileMissingFile(t *testing.T) {
	_, err := Compile(context.Background(), []string{t.TempDir()}, "nope.proto")
	if err == nil || !strings.Contains(err.Error(), "nope.proto") {
		t.Fatalf("error = %v, want one naming nope.proto", err)
	}
}

func TestRequestDecodesOptionExtensions(t *testing.T) {
	dir := writeProtos(t, map[string]string{"demo/v1/demo.proto": serviceProto, "demo/v1/types.proto": typesProto})
	files, err := Compile(context.Background(), []string{dir}, "demo/v1/demo.proto")
	if err != nil {
		t.Fatal(err)
	}
	req, err := Request(files, []string{"demo/v1/demo.proto"}, "paths=source_relative")
	if err != nil {
		t.Fatal(err)
	}
	if req.GetParameter() != "paths=source_relative" || req.CompilerVersion != nil {
		t.Errorf("parameter %q, compiler version %v", req.GetParameter(), req.CompilerVersion)
	}
	var demo = req.ProtoFile[len(req.ProtoFile)-1]
	if demo.GetName() != "demo/v1/demo.proto" {
		t.Fatalf("last file = %s, want the file to generate", demo.GetName())
	}
	rule, ok := proto.GetExtension(demo.GetService()[0].GetMethod()[0].GetOptions(), annotations.E_Http).(*annotations.HttpRule)
	if !ok || rule.GetGet() != "/r/{id}" {
		t.Errorf("google.api.http = %v, want get /r/{id}", rule)
	}
}
