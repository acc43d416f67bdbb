//go:build !unix

package testdir

import "testing"

// lock is not supported here: Stable falls back to a temporary directory.
func lock(testing.TB, string) (func(), bool) { return nil, false }
