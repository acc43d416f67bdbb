//go:build unix

package testdir

import (
	"os"
	"syscall"
	"testing"
)

// lock takes an exclusive lock on the file path, waiting for it, and
// returns the function that releases it.
func lock(t testing.TB, path string) (unlock func(), ok bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", path, err)
	}
	return func() { f.Close() }, true
}
