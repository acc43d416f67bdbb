// Package proto holds the A2A proto bundled with a2agen (lf/a2a/v1/a2a.proto,
// the file `make generate` compiles into package a2av1), embedded so that
// tools such as a2a-scaffold can write it out for protoc users.
//
// The .proto files stay plain files in this directory, readable with -I proto;
// this Go file only makes them reachable from other packages.
package proto

import "embed"

// Files holds lf/a2a/v1/a2a.proto, with paths relative to this directory (the
// import path protoc uses for it).
//
//go:embed lf/a2a/v1/a2a.proto
var Files embed.FS

// A2AProtoPath is the import path of the bundled A2A proto inside Files.
const A2AProtoPath = "lf/a2a/v1/a2a.proto"
