// Package proto holds the A2A protos bundled with a2agen: lf/a2a/v1/a2a.proto
// (A2A v1.0.1) and, opt-in, the A2A 1.1 draft beside it
// (draft-1.1/lf/a2a/v1/a2a.proto, the file `make generate` compiles into
// package a2av1: the same proto package, a superset), embedded so that tools
// such as a2a-scaffold can write them out for protoc users.
//
// The .proto files stay plain files in this directory, readable with -I proto
// (or -I proto/draft-1.1 for the draft); this Go file only makes them
// reachable from other packages.
package proto

import "embed"

// Files holds the bundled protos, with paths relative to this directory.
//
//go:embed lf/a2a/v1/a2a.proto draft-1.1/lf/a2a/v1/a2a.proto
var Files embed.FS

// A2AProtoPath is the import path of the bundled A2A proto, inside Files for
// v1.0.1 and inside a draft's directory for a draft.
const A2AProtoPath = "lf/a2a/v1/a2a.proto"

// Versions are the bundled versions of A2AProtoPath by the name a2a-scaffold
// proto --version takes: the directory inside Files that holds each ("" for
// v1.0.1). internal/pipeline.BundledVersions lists the same directories.
var Versions = map[string]string{
	"1.0":       "",
	"1.1-draft": "draft-1.1",
}
