// Command generate regenerates the committed Go code of the bundled A2A protos
// (a2a/v1 from proto/lf/a2a/v1/a2a.proto, v1.0; a2a/v03 from proto/a2a/v1/a2a.proto, v0.3.0). It
// compiles the proto and runs protoc-gen-go and protoc-gen-a2a in-process, so
// it needs no protoc. `make generate` runs it from the repository root.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/mod/modfile"

	"github.com/a2agen/a2agen/internal/pipeline"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	files, err := pipeline.Run(ctx, pipeline.Bundled(root))
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(root, filepath.FromSlash(name))
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[name]) {
			fmt.Println("unchanged", name)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote    ", name)
	}
	return nil
}

// moduleRoot finds the directory of this module's go.mod, from the working
// directory upwards.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modfile.ModulePath(b) == pipeline.Module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run it inside the " + pipeline.Module + " module (no go.mod of that module above the working directory)")
		}
		dir = parent
	}
}
