package pipeline

import "path/filepath"

// Module is the module path of this repository; generated files are placed
// relative to it (protoc-gen-go's module= parameter).
const Module = "github.com/a2agen/a2agen"

// BundledProto is the bundled A2A proto, relative to the proto/ directory.
const BundledProto = "lf/a2a/v1/a2a.proto"

// BundledV03Proto is the bundled A2A v0.3.0 proto (package a2a.v1), relative
// to the proto/ directory; it is generated into package a2av03pb (a2a/v03).
const BundledV03Proto = "a2a/v1/a2a.proto"

// Bundled is what `make generate` runs: the bundled protos under root/proto,
// generated into the packages of this module. The keys of Run's result are
// then paths relative to root (a2a/v1/a2a.pb.go, a2a/v1/a2a.a2a.go,
// a2a/v03/a2a.pb.go, a2a/v03/a2a.a2a.go).
func Bundled(root string) Config {
	return Config{
		ImportPaths: []string{filepath.Join(root, "proto")},
		Files:       []string{BundledProto, BundledV03Proto},
		Parameter:   "module=" + Module,
	}
}
