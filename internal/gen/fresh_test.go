package gen_test

import (
	"context"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2agen/a2agen/internal/pipeline"
)

// TestGeneratedCodeIsFresh fails when the committed generated code of the
// bundled proto differs from what `make generate` would write now.
func TestGeneratedCodeIsFresh(t *testing.T) {
	root := repoRoot(t)
	files, err := pipeline.Run(context.Background(), pipeline.Bundled(root))
	if err != nil {
		t.Fatalf("generate %s: %v", pipeline.BundledProto, err)
	}
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		dirs[path.Dir(name)] = true
		committed, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s is missing: run make generate and commit the result", name)
			continue
		}
		if diff := cmp.Diff(string(committed), string(files[name])); diff != "" {
			t.Errorf("%s is stale: run make generate and commit the result (-committed +generated):\n%s", name, diff)
		}
	}
	// Generated files that the generator no longer writes are stale too.
	for dir := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := path.Join(dir, e.Name())
			generatedName := strings.HasSuffix(name, ".pb.go") || strings.HasSuffix(name, ".a2a.go") || strings.HasSuffix(name, ".versions.go")
			if _, ok := files[name]; generatedName && !ok {
				t.Errorf("%s is no longer generated: delete it (make generate does not remove files)", name)
			}
		}
	}
}

// TestGenerationIsDeterministic regenerates the bundled proto several times:
// map iteration or any other source of randomness would show as a difference.
func TestGenerationIsDeterministic(t *testing.T) {
	cfg := pipeline.Bundled(repoRoot(t))
	first, err := pipeline.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		again, err := pipeline.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for name := range first {
			if diff := cmp.Diff(string(first[name]), string(again[name])); diff != "" {
				t.Fatalf("%s differs between two runs:\n%s", name, diff)
			}
		}
	}
}
