// Package version holds the one version of a2agen that protoc-gen-a2a,
// a2a-scaffold and the runtime report, and the name of the runtime constant
// generated code refers to as its compile-time handshake. It imports nothing,
// so both the generator (which never imports the runtime) and the runtime read
// it.
package version

// Version is the version of a2agen: protoc-gen-a2a writes it into every
// generated file's header and prints it for --version, a2a-scaffold requires
// it in new projects, and runtime.Version is it.
const Version = "0.1.0"

// RuntimeHandshake names the runtime constant generated code refers to, so
// that compiling it against an older runtime fails with "undefined:
// runtime.<RuntimeHandshake>". It names the oldest runtime version whose API
// generated code uses; runtime declares it (TestHandshakeIsDeclared).
const RuntimeHandshake = "IsAtLeastVersion0_1_0"
