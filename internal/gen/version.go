package gen

import "github.com/a2agen/a2agen/internal/version"

// Version is the version of protoc-gen-a2a. It is written into the header of
// every generated file and printed by `protoc-gen-a2a --version`.
const Version = version.Version

// runtimeHandshake is the runtime constant generated code refers to, so that
// compiling it against an older runtime fails with a clear "undefined" error.
const runtimeHandshake = version.RuntimeHandshake
