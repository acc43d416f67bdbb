// Package testdir gives tests that build code in a directory of their own
// (a scratch module, a copy of the checkout) the same directory on every
// run. The go command's build cache keys a package built without -trimpath
// by its directory as well as its content, so a fresh temporary directory
// per run compiles and vets everything in it again; at a stable path,
// unchanged files are compiled once, on the first run, and found in the
// cache afterwards.
package testdir

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// Stable returns an empty directory under the system's temporary
// directory named after name and a hash of key (say, the checkout's root,
// so two checkouts on one machine do not share it), the same on every run.
// It is locked for the test (a second test binary asking for it waits) and
// emptied when the test ends. Where locking is not supported, it is a
// fresh temporary directory.
func Stable(t testing.TB, name, key string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(key))
	dir := filepath.Join(os.TempDir(), "a2agen-test-"+name+"-"+hex.EncodeToString(sum[:6]))
	unlock, ok := lock(t, dir+".lock")
	if !ok {
		return t.TempDir()
	}
	empty := func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	}
	empty()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		unlock()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		empty()
		unlock()
	})
	return dir
}
