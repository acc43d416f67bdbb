// Package docsync has no code: its tests keep what the documentation names
// in step with the code where that can be checked mechanically — the
// environment variables, flags and store URL forms the docs mention, and
// the line `make test` prints about the optional test suites it skipped.
package docsync
