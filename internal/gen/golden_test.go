package gen_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/modfile"

	"github.com/a2agen/a2agen/internal/pipeline"
	"github.com/a2agen/a2agen/internal/testdir"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*/want with the generator's output")

// goldenModule is the module path of the generated golden packages; each
// case generates into goldenModule/<case>.
const goldenModule = "example.com/golden"

// goldenCase is one directory of testdata/golden, described by its case.txt:
//
//	guards: what the case protects (free text, may continue on indented lines)
//	import_path: directory of the .proto files, relative to the case (default input)
//	files: the .proto files to generate, space separated (default: all under import_path)
//	parameter: extra plugin parameters for every generator (e.g. an M option)
//	a2a_parameter: extra plugin parameters for protoc-gen-a2a only
//	plugins: further plugins run as binaries (only protoc-gen-go-grpc, built
//	  from the go.mod tool directive)
//
// A case may also hold test/: Go test files copied over the generated
// packages (test/<dir>/x_test.go next to want/<dir>/), which drive the
// generated code in the scratch module where it is compiled.
type goldenCase struct {
	name, dir  string
	guards     string
	importPath string
	files      []string
	parameter  string
	a2aParam   string
	plugins    []string
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readGoldenCases(t *testing.T, root string) []goldenCase {
	t.Helper()
	base := filepath.Join(root, "testdata", "golden")
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "scaffold" { // scaffold/: internal/scaffold's golden trees
			continue
		}
		c := goldenCase{name: e.Name(), dir: filepath.Join(base, e.Name()), importPath: "input"}
		f, err := os.Open(filepath.Join(c.dir, "case.txt"))
		if err != nil {
			t.Fatalf("golden case %s: %v (every case needs a case.txt saying what it guards)", c.name, err)
		}
		var key string
		s := bufio.NewScanner(f)
		for s.Scan() {
			line := s.Text()
			if strings.HasPrefix(line, " ") && key == "guards" {
				c.guards += " " + strings.TrimSpace(line)
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			key, v = k, strings.TrimSpace(v)
			switch key {
			case "guards":
				c.guards = v
			case "import_path":
				c.importPath = v
			case "files":
				c.files = strings.Fields(v)
			case "parameter":
				c.parameter = v
			case "a2a_parameter":
				c.a2aParam = v
			case "plugins":
				c.plugins = strings.Fields(v)
			default:
				t.Fatalf("golden case %s: case.txt: unknown key %q", c.name, key)
			}
		}
		f.Close()
		if c.guards == "" {
			t.Fatalf("golden case %s: case.txt has no guards: line", c.name)
		}
		c.importPath = filepath.Join(c.dir, c.importPath)
		if c.files == nil {
			err := filepath.WalkDir(c.importPath, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".proto") {
					rel, _ := filepath.Rel(c.importPath, path)
					c.files = append(c.files, filepath.ToSlash(rel))
				}
				return err
			})
			if err != nil {
				t.Fatalf("golden case %s: %v", c.name, err)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// TestGolden runs the generators on every case of testdata/golden and
// compares the result with want/; with -update it rewrites want/. Then the
// generated code of every case must build and vet in a scratch module.
func TestGolden(t *testing.T) {
	root := repoRoot(t)
	generated := map[string]map[string][]byte{}
	goGRPC := goGRPCPlugin(t, root)
	for _, c := range readGoldenCases(t, root) {
		t.Run(c.name, func(t *testing.T) {
			param := "module=" + goldenModule + "/" + c.name
			if c.parameter != "" {
				param += "," + c.parameter
			}
			var binaries []pipeline.Binary
			for _, p := range c.plugins {
				if p != "protoc-gen-go-grpc" {
					t.Fatalf("case.txt: plugins: %s is unknown (only protoc-gen-go-grpc)", p)
				}
				binaries = append(binaries, pipeline.Binary{Name: p, Path: goGRPC(t)})
			}
			got, err := pipeline.Run(context.Background(), pipeline.Config{
				ImportPaths:  []string{c.importPath},
				Files:        c.files,
				Parameter:    param,
				A2AParameter: c.a2aParam,
				Binaries:     binaries,
			})
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			generated[c.name] = got
			want := filepath.Join(c.dir, "want")
			if *update {
				writeTree(t, want, got)
				return
			}
			compareTree(t, want, got, "go test ./internal/gen -run TestGolden -update")
		})
	}
	t.Run("compile", func(t *testing.T) {
		if *update {
			t.Skip("not compiling while updating goldens; run again without -update")
		}
		buildGenerated(t, root, generated)
	})
}

// goGRPCPlugin returns a function that builds protoc-gen-go-grpc, at the
// version go.mod's tool directive pins, into a temporary directory of t on
// first use and returns the executable's path.
func goGRPCPlugin(t *testing.T, root string) func(*testing.T) string {
	var (
		once sync.Once
		path string
		err  error
	)
	return func(sub *testing.T) string {
		sub.Helper()
		once.Do(func() {
			path = filepath.Join(t.TempDir(), "protoc-gen-go-grpc")
			cmd := exec.Command("go", "build", "-o", path, "google.golang.org/grpc/cmd/protoc-gen-go-grpc")
			cmd.Dir = root
			if out, buildErr := cmd.CombinedOutput(); buildErr != nil {
				err = fmt.Errorf("go build protoc-gen-go-grpc: %v\n%s", buildErr, out)
			}
		})
		if err != nil {
			sub.Fatal(err)
		}
		return path
	}
}

// writeTree replaces dir with files.
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compareTree diffs files against the files under dir, naming missing and
// extra files; fix says how to accept an intended change.
func compareTree(t *testing.T, dir string, files map[string][]byte, fix string) {
	t.Helper()
	onDisk := map[string]bool{}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			onDisk[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for _, name := range slices.Sorted(maps.Keys(files)) {
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s: generated but missing from %s (%s)", name, dir, fix)
			continue
		}
		if diff := cmp.Diff(string(want), string(files[name])); diff != "" {
			t.Errorf("%s differs from %s (-want +got); if intended, %s:\n%s", name, dir, fix, diff)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(onDisk)) {
		if _, ok := files[name]; !ok {
			t.Errorf("%s: in %s but no longer generated (%s)", name, dir, fix)
		}
	}
}

// buildGenerated writes the generated files of every case into a scratch
// module that requires this repository through a replace directive, and runs
// go vet and go test there: a golden file that does not compile, or compiles
// to a broken server, is no pass.
func buildGenerated(t *testing.T, root string, cases map[string]map[string][]byte) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH; cannot check that the generated code compiles")
	}
	if len(cases) == 0 {
		t.Fatal("no golden case generated")
	}
	// The same directory on every run: the build cache keys packages
	// built without -trimpath by directory, so the generated packages that
	// did not change are not compiled and vetted again.
	dir := testdir.Stable(t, "golden", root)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var mod strings.Builder
	mod.WriteString("module " + goldenModule + "\n\ngo 1.26.0\n\nrequire github.com/a2agen/a2agen v0.0.0\n\n")
	mod.WriteString(requireBlock(t, gomod))
	mod.WriteString("\nreplace github.com/a2agen/a2agen => " + root + "\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, map[string][]byte{"go.mod": []byte(mod.String()), "go.sum": sum})
	for name, files := range cases {
		tests := filepath.Join(root, "testdata", "golden", name, "test")
		_ = filepath.WalkDir(tests, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, "_test.go") {
				rel, _ := filepath.Rel(tests, path)
				content, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				files = maps.Clone(files)
				files[filepath.ToSlash(rel)] = content
			}
			return nil
		})
		for file, content := range files {
			path := filepath.Join(dir, name, filepath.FromSlash(file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// go test builds every package, with or without tests, and runs the
	// cases' behaviour tests against the generated code.
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s in the scratch module of the generated golden code: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// requireBlock returns the require directives of a go.mod file, so the
// scratch module resolves the same dependency versions as this repository.
func requireBlock(t *testing.T, gomod []byte) string {
	t.Helper()
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range f.Require {
		b.WriteString("require " + r.Mod.Path + " " + r.Mod.Version + "\n")
	}
	return b.String()
}
