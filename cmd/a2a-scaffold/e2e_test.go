package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/internal/scaffold"
	"github.com/a2agen/a2agen/internal/testdir"
)

// goCommand runs the go command in dir against the module cache only: no
// network (GOPROXY=off), go.mod may be completed from the cache
// (-mod=mod), no workspace. It keeps the build settings of the go test
// that runs it (no -trimpath, cgo as configured): the projects replace
// a2agen with this checkout, so a2agen's packages and their dependencies
// are the ones go test and go vet of this module compiled and vetted
// already, found in the build cache by directory and content; only the
// project's own package is compiled. (-trimpath would
// compile and vet all of them again: minutes with a cold cache.)
func goCommand(t *testing.T, dir string, args ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not installed")
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), projectEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// projectEnv is what goCommand and buildProject add to the go command's
// environment.
var projectEnv = []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off"}

// projectDir is the directory, named name, for a project the test
// scaffolds: the same path on every run (testdir.Stable, keyed by the
// checkout root), so the build cache, which keys packages built without
// -trimpath by their directory, finds the project's package compiled and
// vetted on the previous run when nothing changed. Its parent is emptied
// before and after the test, and is the test's own scratch directory.
func projectDir(t *testing.T, root, name string) string {
	t.Helper()
	return filepath.Join(testdir.Stable(t, "scaffold-"+t.Name(), root), name)
}

// buildProject returns the path of the project's program in the Go build
// cache (proctest.Build, with goCommand's environment): linked once per
// content of the project, not on every run.
func buildProject(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed")
	}
	return proctest.Build(t, dir, ".", projectEnv...)
}

// snapshot reads every file of dir (not recursively).
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

// TestScaffoldEndToEnd creates a project from the richest golden manifest
// (every binding, every kind of security scheme, an extended card) against
// this checkout and runs its tests (which builds it); then edits its manifest
// (adds a skill, removes one, changes a scheme), regenerates, and checks
// that user code is untouched, the new skill has a stub, the removed one is
// reported, a second generate changes nothing, --check passes, and the
// project still passes its tests.
func TestScaffoldEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "travel")
	manifestFile := filepath.Join(root, "testdata", "golden", "scaffold", "full", "agent.yaml")
	if r := runCLI(t, "", "new", "travel", "--manifest", manifestFile, "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	// go test compiles the package and links a program of it with its
	// tests, so a go build of the same package first would only link it
	// once more.
	goCommand(t, dir, "test", "-count=1", "./...")

	// The user writes code in a skill, then edits the manifest.
	skillPlan := filepath.Join(dir, "skill_plan.go")
	code, _ := os.ReadFile(skillPlan)
	if err := os.WriteFile(skillPlan, append(code, []byte("\n// Written by the user.\nconst planGreeting = \"bon voyage\"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	yaml := string(before["agent.yaml"])
	edits := []struct{ old, new string }{
		// Remove the book-trip skill.
		{`  - id: book-trip
    name: Book
    description: Books flights and hotels.
    tags: [booking]
    securityRequirements:
      - key: []
        mtls: []
`, ""},
		// Add a weather skill.
		{`securitySchemes:
`, `  - id: weather
    name: Weather
    description: Tells the weather at the destination.
    tags: [travel]
    examples: [Weather in Porto]
securitySchemes:
`},
		// The partner key moves from a header to the query.
		{`    location: header
    name: X-API-Key`, `    location: query
    name: partner_key`},
	}
	for _, e := range edits {
		if !strings.Contains(yaml, e.old) {
			t.Fatalf("the manifest lacks %q", e.old)
		}
		yaml = strings.Replace(yaml, e.old, e.new, 1)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	before["agent.yaml"] = []byte(yaml)

	if r := runCLI(t, "", "generate", "--check", "--dir", dir); r.code != 1 || !strings.Contains(r.stdout, "stale: a2a_card.gen.go") || !strings.Contains(r.stdout, "stale: skill_weather.go") {
		t.Errorf("generate --check after the edit: %+v", r)
	}
	r := runCLI(t, "", "generate", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, `created skill_weather.go: a stub for skill "weather"`) ||
		!strings.Contains(r.stdout, "warning: skill_book_trip.go: no skill of agent.yaml uses this file any more") {
		t.Fatalf("generate: %+v", r)
	}
	after := snapshot(t, dir)
	for name, data := range before {
		if !bytes.Equal(after[name], data) && !strings.HasPrefix(name, "a2a_") && name != "README.md" {
			t.Errorf("generate modified %s, which is the user's", name)
		}
	}
	// README.md: only its generated block, which now lists the new skill.
	if head, _, _ := bytes.Cut(before["README.md"], []byte(scaffold.BlockBegin)); !bytes.HasPrefix(after["README.md"], append(head, scaffold.BlockBegin...)) || !bytes.Contains(after["README.md"], []byte("`skill_weather.go`")) {
		t.Errorf("README.md after generate:\n%s\nwant the text before its block kept and the new skill listed", after["README.md"])
	}
	if _, ok := after["skill_weather.go"]; !ok {
		t.Error("no stub for the new skill")
	}
	if !bytes.Contains(after["a2a_card.gen.go"], []byte(`"name": "partner_key"`)) || bytes.Contains(after["a2a_card.gen.go"], []byte("book-trip")) {
		t.Error("the card does not follow the edited manifest")
	}

	if r := runCLI(t, "", "generate", "--dir", dir); r.code != 0 || !strings.HasSuffix(r.stdout, dir+": up to date\n") || strings.Contains(r.stdout, "wrote") {
		t.Errorf("second generate: %+v", r)
	}
	if again := snapshot(t, dir); !equalSnapshots(again, after) {
		t.Error("a second generate changed files")
	}
	if r := runCLI(t, "", "generate", "--check", "--dir", dir); r.code != 0 {
		t.Errorf("generate --check: %+v", r)
	}
	goCommand(t, dir, "test", "-count=1", "./...")
}

func equalSnapshots(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(b[k], v) {
			return false
		}
	}
	return true
}

// TestTypedSkillsEndToEnd creates the project of the golden typed-skills
// manifest against this checkout, builds it and runs its generated tests:
// every typed skill gets its example as a data part on every binding, its
// data answer is checked against its output schema and data without a
// required property is refused naming it.
func TestTypedSkillsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "typed")
	manifestFile := filepath.Join(root, "testdata", "golden", "scaffold", "typed", "agent.yaml")
	if r := runCLI(t, "", "new", "typed", "--manifest", manifestFile, "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	goCommand(t, dir, "vet", "./...")
	goCommand(t, dir, "test", "-count=1", "./...")
}
