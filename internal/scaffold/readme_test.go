package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadmeBlock: README.md is the user's except its generated block,
// which generate rewrites from agent.yaml (a new skill is listed) while the
// text around it stays as the user wrote it; a second generate writes
// nothing; --check reports a stale block without writing; a README whose
// block lost a marker line is all the user's and left alone; a missing
// README is written again.
func TestReadmeBlock(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "scaffold", "minimal", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	manifestPath := filepath.Join(t.TempDir(), ManifestFile)
	if err := os.WriteFile(manifestPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewProject(NewOptions{Name: "minimal", Dir: dir, Manifest: manifestPath}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, readmeFile)
	read := func() string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	readme := read()
	if !strings.Contains(readme, "\n"+BlockBegin+"\n") || !strings.HasSuffix(readme, "\n"+BlockEnd+"\n") || !strings.Contains(readme, "(`echo`, in `skill_echo.go`)") {
		t.Fatalf("new's README has no generated block listing the skill:\n%s", readme)
	}
	const mine, footer = "# My agent\n\nOur notes, kept by generate.\n\n", "\n## Contact\n\nops@example.com\n"
	_, rest, _ := strings.Cut(readme, BlockBegin)
	if err := os.WriteFile(path, []byte(mine+BlockBegin+rest+footer), 0o644); err != nil {
		t.Fatal(err)
	}

	// A new skill in agent.yaml.
	yaml := string(src) + "  - id: weather\n    name: Weather\n    description: Says what the weather is.\n    tags: [weather]\n"
	if !strings.Contains(string(src), "\nskills:\n") || strings.Count(string(src), "\n  - id: ") != 1 || !strings.HasSuffix(string(src), "\n") {
		t.Fatalf("the minimal manifest no longer ends with its one skill:\n%s", src)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	check, err := GenerateProject(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(check.Written, readmeFile) || strings.Contains(read(), "skill_weather.go") {
		t.Errorf("--check: %v; want README.md stale and unwritten", check.Written)
	}
	if _, err := GenerateProject(dir, false); err != nil {
		t.Fatal(err)
	}
	got := read()
	if !strings.HasPrefix(got, mine+BlockBegin+"\n") || !strings.HasSuffix(got, BlockEnd+"\n"+footer) || !strings.Contains(got, "(`weather`, in `skill_weather.go`)") || !strings.Contains(got, "(`echo`, in `skill_echo.go`)") {
		t.Errorf("after generate the README is\n%s\nwant the user's text kept around a block listing both skills", got)
	}
	if again, err := GenerateProject(dir, false); err != nil || len(again.Written) != 0 {
		t.Errorf("a second generate wrote %v (%v)", again.Written, err)
	}

	// Without its end marker the README is all the user's.
	unmarked := strings.Replace(got, BlockEnd, "", 1)
	if err := os.WriteFile(path, []byte(unmarked), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), src, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := GenerateProject(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if read() != unmarked || !slices.Equal(r.Unmarked, []string{readmeFile}) || slices.Contains(r.Written, readmeFile) {
		t.Errorf("an unmarked README: written %v, unmarked %v; want it left alone and reported", r.Written, r.Unmarked)
	}

	// A deleted README comes back whole.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if r, err := GenerateProject(dir, false); err != nil || !slices.Contains(r.Written, readmeFile) || !strings.Contains(read(), BlockEnd) {
		t.Errorf("generate without a README: %+v (%v)", r, err)
	}
}
