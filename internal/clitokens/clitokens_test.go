package clitokens

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSaveAndRead: a saved token reads back for its agent only, the file is
// 0600 in a 0700 directory, and saving another agent's keeps the first.
func TestSaveAndRead(t *testing.T) {
	dir := Dir(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	s := In(dir)
	if _, ok, err := s.For("weather"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	if err := s.Save("weather", Token{AccessToken: "tok-1", Scheme: "oauth"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save("travel", Token{AccessToken: "tok-2", Scheme: "oidc"}); err != nil {
		t.Fatal(err)
	}
	if tok, ok, err := s.For("weather"); !ok || err != nil || tok.AccessToken != "tok-1" || tok.Scheme != "oauth" {
		t.Fatalf("weather: %+v %v %v", tok, ok, err)
	}
	if _, ok, _ := s.For("nobody"); ok {
		t.Fatal("a token for an agent never logged in to")
	}
	fi, err := os.Stat(s.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("tokens file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	di, err := os.Stat(filepath.Dir(s.Path))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v (%v), want 0700", di.Mode().Perm(), err)
	}
}

// TestDirFollowsTheEnvironment: XDG_CONFIG_HOME wins over HOME; neither
// gives no store, which refuses to save.
func TestDirFollowsTheEnvironment(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg"}
	if got := Dir(func(k string) string { return env[k] }); got != filepath.Join("/cfg", "a2a-cli") {
		t.Errorf("Dir = %q", got)
	}
	delete(env, "XDG_CONFIG_HOME")
	if got := Dir(func(k string) string { return env[k] }); got != filepath.Join("/home/u", ".config", "a2a-cli") {
		t.Errorf("Dir = %q", got)
	}
	if got := Dir(func(string) string { return "" }); got != "" {
		t.Errorf("Dir without HOME = %q", got)
	}
	if err := In("").Save("a", Token{AccessToken: "x"}); err != ErrNoDirectory {
		t.Errorf("Save without a directory: %v", err)
	}
}

// TestCorruptFileSaysWhatToDo: a file that is not JSON is reported with
// its path and the fix.
func TestCorruptFileSaysWhatToDo(t *testing.T) {
	s := In(t.TempDir())
	if err := os.WriteFile(s.Path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.For("a"); err == nil {
		t.Fatal("a corrupt file read as empty")
	}
}
