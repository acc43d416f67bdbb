// Package docsync has no code: its tests keep what README.md and docs/*.md
// name in step with the code where that can be checked mechanically —
// every environment variable they name is read by the code, every row of
// the agent's flag tables is a flag of host.Main with its variable, every
// relative link and #anchor leads somewhere, no citation names a document
// outside the repository — and
// check the lines `make test` prints about the optional test suites it ran
// or skipped (scripts/optional-suites.sh). The store URLs the docs write
// are checked in server/storeurl (TestDocumentedStoreURLs), next to the
// parser.
package docsync
