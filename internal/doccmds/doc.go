// Package doccmds has no code: its test runs every protoc and buf command of
// README.md and of the --help texts of protoc-gen-a2a and a2a-scaffold as
// written, in scratch directories, and compiles what they generate. A
// documented command that fails is a failing test, not a user's first
// experience.
package doccmds
