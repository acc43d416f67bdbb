package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildSharesTheExecutable: a program is built once per content: a
// second Build of the same package in this test binary gives the same
// path without asking the go command, the executable lives in the Go
// build cache (so other packages' tests and later runs reuse it), it runs,
// and a changed source gives another executable.
func TestBuildSharesTheExecutable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	write := func(greeting string) {
		for name, text := range map[string]string{
			"go.mod":  "module example.com/hello\n\ngo 1.22\n",
			"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(" + greeting + ") }\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := []string{"GOWORK=off", "GOFLAGS=-mod=mod"}
	write(`"hello"`)
	first := Build(t, dir, ".", env...)
	if again := Build(t, dir, ".", env...); again != first {
		t.Errorf("a second Build gave %s, want %s", again, first)
	}
	if cache := goEnv(dir, env, "GOCACHE"); !strings.HasPrefix(first, cache) {
		t.Errorf("the executable %s is not in the build cache %s", first, cache)
	}
	if out, err := exec.Command(first).Output(); err != nil || string(out) != "hello\n" {
		t.Fatalf("running %s: %q, %v", first, out, err)
	}

	write(`"bonjour"`)
	changed, err := cachedExecutable(dir, ".", env)
	if err != nil {
		t.Fatal(err)
	}
	if changed == first {
		t.Errorf("a changed source gave the same executable %s", changed)
	}
	if out, err := exec.Command(changed).Output(); err != nil || string(out) != "bonjour\n" {
		t.Errorf("running the rebuilt %s: %q, %v", changed, out, err)
	}
}

// TestBuildReportsCompileErrors: a package that does not compile gives an
// error with the compiler's message.
func TestBuildReportsCompileErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { undefinedThing() }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Executable(dir, ".", "GOWORK=off")
	if err == nil || !strings.Contains(err.Error(), "undefinedThing") {
		t.Errorf("Executable of a broken package: %v, want the compiler's error", err)
	}
}
