package gen

// Version is the version of protoc-gen-a2a. It is written into the header of
// every generated file and printed by `protoc-gen-a2a --version`.
const Version = "0.1.0"

// runtimeHandshake is the runtime constant generated code refers to, so that
// compiling it against an older runtime fails with a clear "undefined" error.
// It names the oldest runtime version whose API the generated code uses.
const runtimeHandshake = "IsAtLeastVersion0_1_0"
