package docsync_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/pgtest"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// runSuites runs scripts/optional-suites.sh with env as its whole
// environment and returns its output.
func runSuites(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(root, "scripts", "optional-suites.sh"))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("optional-suites.sh: %v\n%s", err, out)
	}
	return string(out)
}

// TestOptionalSuitesSayWhatSkipped: `make test` ends with a line per
// optional suite; without A2AGEN_TEST_POSTGRES the PostgreSQL line says the
// tests were skipped and why (go test alone shows only "ok" for the
// package), and with it the line names the server without its password.
func TestOptionalSuitesSayWhatSkipped(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	empty := t.TempDir() // a PATH with no protoc, buf, initdb in it
	out := runSuites(t, "PATH="+empty)
	for _, want := range []string{
		"optional suite: PostgreSQL store tests: SKIPPED, " + pgtest.Env + " is not set",
		"optional suite: protoc runs the documented commands: SKIPPED, protoc is not on PATH",
		"optional suite: buf runs the documented commands: SKIPPED, buf is not on PATH",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("without %s and tools, the output lacks %q:\n%s", pgtest.Env, want, out)
		}
	}
	out = runSuites(t, "PATH="+empty, pgtest.Env+"=postgres://postgres:s3cret@127.0.0.1:5432/test?sslmode=disable")
	if want := "optional suite: PostgreSQL store tests: ran on 127.0.0.1:5432/test (" + pgtest.Env + ")"; !strings.Contains(out, want) {
		t.Errorf("with %s set, the output lacks %q:\n%s", pgtest.Env, want, out)
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("the output shows the password:\n%s", out)
	}

	// make test runs it last.
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(mk), "\ntest:")
	recipe, _, _ := strings.Cut(rest, "\n\n")
	if !ok || !strings.Contains(recipe, "\n\t@sh scripts/optional-suites.sh") {
		t.Errorf("the Makefile's test target does not run scripts/optional-suites.sh:\ntest:%s", recipe)
	}
}

// TestDocsNameWhatCIRuns: the make targets .ci/run runs as its loops
// (its lines that are only `make TARGET`) are, joined with &&, the command
// README.md and CONTRIBUTING.md give for all tests, and each is a target of
// the Makefile.
func TestDocsNameWhatCIRuns(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var loops []string
	for line := range strings.SplitSeq(string(ci), "\n") {
		target, ok := strings.CutPrefix(line, "make ")
		if !ok || strings.ContainsAny(target, " =") {
			continue
		}
		loops = append(loops, line)
		if !strings.Contains(string(mk), "\n"+target+":") {
			t.Errorf(".ci/run runs %q, which is no target of the Makefile", line)
		}
	}
	if len(loops) == 0 {
		t.Fatal(".ci/run runs no make target on a line of its own")
	}
	want := "`" + strings.Join(loops, " && ") + "`"
	for _, doc := range []string{"README.md", "CONTRIBUTING.md"} {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), want+" is all tests") {
			t.Errorf("%s does not say that %s is all tests, what .ci/run runs", doc, want)
		}
	}
}
