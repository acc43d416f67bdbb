package scaffold

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2agen/a2agen/internal/manifest"
)

// goldenRequires stands in for the requirements new copies from a2agen's
// go.mod, so that the golden go.mod files do not change with every
// dependency update.
var goldenRequires = []Requirement{{"google.golang.org/protobuf", "v1.36.12"}, {"google.golang.org/grpc", "v1.85.0"}}

// TestProjectGolden renders the project of every manifest under
// testdata/golden/scaffold/<case>/agent.yaml and compares it with the tree
// in <case>/want (agent.schema.json, always the same file, is left out).
// Run with -update to rewrite the trees after a reviewed change.
func TestProjectGolden(t *testing.T) {
	base := filepath.Join("..", "..", "testdata", "golden", "scaffold")
	cases, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join(base, c.Name())
			data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
			if err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Parse(ManifestFile, data)
			if err != nil {
				t.Fatal(err)
			}
			files, err := Files(m, ProjectOptions{Module: m.Module, Standalone: true, A2agenVersion: "v0.1.0", Requires: goldenRequires, Manifest: data})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for _, f := range files {
				if f.Path == manifest.SchemaFileName {
					continue
				}
				if f.Generated != IsGenerated(f.Data) {
					t.Errorf("%s: Generated is %v but its header says %v", f.Path, f.Generated, IsGenerated(f.Data))
				}
				got[f.Path] = f.Data
			}
			want := filepath.Join(dir, "want")
			if *update {
				if err := os.RemoveAll(want); err != nil {
					t.Fatal(err)
				}
				for p, d := range got {
					path := filepath.Join(want, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, d, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			seen := map[string]bool{}
			err = filepath.WalkDir(want, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(want, path)
				rel = filepath.ToSlash(rel)
				seen[rel] = true
				wantData, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				g, ok := got[rel]
				switch {
				case !ok:
					t.Errorf("%s is no longer generated", rel)
				case !bytes.Equal(g, wantData):
					t.Errorf("%s differs (-want +got):\n%s", rel, cmp.Diff(string(wantData), string(g)))
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%v (run go test -update to create the tree)", err)
			}
			for p := range got {
				if !seen[p] {
					t.Errorf("%s is new (run go test -update after reviewing it)", p)
				}
			}
		})
	}
}
