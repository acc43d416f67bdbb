package testdir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStableIsTheSameEmptyDirectory: two tests asking for the same name
// and key get the same path, empty each time (what the first left is gone),
// and a different key gives another directory.
func TestStableIsTheSameEmptyDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no locking: Stable is a temporary directory")
	}
	var first string
	t.Run("first", func(t *testing.T) {
		first = Stable(t, "selftest", "key")
		if err := os.WriteFile(filepath.Join(first, "left-over"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("second", func(t *testing.T) {
		second := Stable(t, "selftest", "key")
		if second != first {
			t.Errorf("second Stable = %s, want the first's %s", second, first)
		}
		if entries, err := os.ReadDir(second); err != nil || len(entries) != 0 {
			t.Errorf("the directory holds %v (%v), want it empty", entries, err)
		}
		if other := Stable(t, "selftest", "another key"); other == second {
			t.Errorf("another key gave the same directory %s", other)
		}
	})
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("after the tests, %s: %v; want it removed", first, err)
	}
}
