// Package scaffold is what the a2a-scaffold command does, kept out of its
// main package so that it can be tested and reused: validating manifests,
// printing agent cards (optionally signed with JWS over the RFC 8785
// canonical form, A2A §8.4) and verifying card signatures, and writing the
// bundled A2A proto with everything protoc needs to compile it.
//
// It also creates and regenerates agent projects (NewProject,
// GenerateProject; Files lists what a project holds): Go files built with
// jennifer, the rest rendered from the templates package, under one
// ownership rule — files headed by GeneratedMarker are rewritten, all others
// are the user's and never modified once they exist. CardJSON is exactly the
// card document a scaffolded agent serves.
package scaffold
