// Package scaffold is what the a2a-scaffold command does, kept out of its
// main package so that it can be tested and reused: validating manifests,
// printing agent cards (optionally signed with JWS over the RFC 8785
// canonical form, A2A §8.4) and verifying card signatures, and writing the
// bundled A2A proto with everything protoc needs to compile it.
//
// The commands that create and regenerate agent projects build on the same
// pieces: CardJSON is exactly the card document a scaffolded agent serves.
package scaffold
