package pipeline

import "path/filepath"

// Module is the module path of this repository; generated files are placed
// relative to it (protoc-gen-go's module= parameter).
const Module = "github.com/a2agen/a2agen"

// BundledProto is the bundled A2A proto, relative to the proto/ directory
// or to the directory of a draft version (BundledVersions).
const BundledProto = "lf/a2a/v1/a2a.proto"

// BundledV03Proto is the bundled A2A v0.3.0 proto (package a2a.v1), relative
// to the proto/ directory; it is generated into package a2av03pb (a2a/v03).
const BundledV03Proto = "a2a/v1/a2a.proto"

// BundledVersion is one bundled protocol version of package lf.a2a.v1: the
// directory below proto/ whose lf/a2a/v1/a2a.proto it is ("" for proto/
// itself) and whether it is a draft (served only on request).
type BundledVersion struct {
	Version string
	Dir     string
	Draft   bool
}

// BundledVersions are the bundled protocol versions of lf.a2a.v1, oldest
// first. Package a2a/v1 is generated from the last; a new version is a new
// directory and a row here (docs/bindings.md, "A2A 1.1 draft").
var BundledVersions = []BundledVersion{
	{Version: "1.0", Dir: ""},
	// specification/a2a.proto of github.com/a2aproject/A2A, branch dev-1.1,
	// commit 28491879ff41a9c230fb51f3f7bd6096b80cc341.
	{Version: "1.1", Dir: "draft-1.1", Draft: true},
}

// Bundled is what `make generate` runs: the bundled protos under root/proto,
// generated into the packages of this module. The keys of Run's result are
// then paths relative to root (a2a/v1/a2a.pb.go, a2a/v1/a2a.a2a.go,
// a2a/v1/a2a.versions.go, a2a/v03/a2a.pb.go, a2a/v03/a2a.a2a.go).
//
// lf/a2a/v1/a2a.proto is read from the newest version's directory (which
// comes first among the import paths), so that the registered file keeps
// its path whatever the version; a2a/v1/a2a.proto (v0.3) from proto/.
func Bundled(root string) Config {
	protoDir := filepath.Join(root, "proto")
	newest := BundledVersions[len(BundledVersions)-1]
	history := make([]ProtoVersion, len(BundledVersions))
	for i, v := range BundledVersions {
		history[i] = ProtoVersion{Version: v.Version, ImportPaths: []string{filepath.Join(protoDir, v.Dir)}, File: BundledProto}
	}
	return Config{
		ImportPaths: []string{filepath.Join(protoDir, newest.Dir), protoDir},
		Files:       []string{BundledProto, BundledV03Proto},
		Parameter:   "module=" + Module,
		History:     history,
	}
}
