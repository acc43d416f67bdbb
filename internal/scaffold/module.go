package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/a2agen/a2agen/internal/gen"
	"github.com/a2agen/a2agen/internal/version"
)

// A2agenModule is the module path of a2agen.
const A2agenModule = "github.com/a2agen/a2agen"

const a2agenModule = A2agenModule

// A2agenVersion is the a2agen version new projects require: the version
// a2a-scaffold was built at when it was installed from a module version
// (go install …@v1.2.3), else v<gen.Version>.
func A2agenVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == a2agenModule && isRelease(bi.Main.Version) {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == a2agenModule && isRelease(d.Version) {
				return d.Version
			}
		}
	}
	return "v" + gen.Version
}

// BuildCheckout finds the a2agen checkout this program was built from, so
// that a development build of a2a-scaffold can point new projects at it (a
// replace) instead of at an a2agen version the module proxy may not serve.
// It answers only for development builds: a2agen is the main module with
// the version "(devel)" (go build, go run or go install inside a checkout),
// or a dependency replaced by a directory (go tool a2a-scaffold in a project
// whose go.mod has such a replace). The checkout is found from the source
// path the compiler recorded for this file (runtime.Caller), which is
// absolute unless the build used -trimpath; the directory two levels up must
// hold a go.mod declaring a2agen's module. ok is false for release builds
// (go install …@v1.2.3), -trimpath builds and checkouts that have moved or
// gone; devel then says whether the build was a development one.
func BuildCheckout() (dir string, devel, ok bool) {
	bi, found := debug.ReadBuildInfo()
	if !found {
		return "", false, false
	}
	// A release build of a checkout (make dist) stamps its version.
	devel = bi.Main.Path == a2agenModule && !isRelease(version.Read().Version)
	for _, d := range bi.Deps {
		if d.Path == a2agenModule && d.Replace != nil && (d.Replace.Version == "" || d.Replace.Version == "(devel)") { // a directory
			devel = true
		}
	}
	if !devel {
		return "", false, false
	}
	_, file, _, found := goruntime.Caller(0)
	if !found || !filepath.IsAbs(file) {
		return "", true, false
	}
	dir = filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/scaffold/module.go
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || modulePath(gomod) != a2agenModule {
		return "", true, false
	}
	return dir, true, true
}

func isRelease(v string) bool { return strings.HasPrefix(v, "v") && v != "(devel)" }

// modulePath reads the module path of a go.mod file ("" when it has none).
func modulePath(gomod []byte) string { return modfile.ModulePath(gomod) }

// goDirective reads the go version of a go.mod file ("" when it has none or
// does not parse).
func goDirective(gomod []byte) string {
	f, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil || f.Go == nil {
		return ""
	}
	return f.Go.Version
}

// enclosingModule finds the go.mod of the module dir (an absolute path)
// would belong to: in dir or the nearest parent. It returns the module's
// directory and path, or "" when there is none.
func enclosingModule(dir string) (modDir, modPath string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			return d, modulePath(data), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		if filepath.Dir(d) == d {
			return "", "", nil
		}
	}
}

// packagePath is the import path of dir inside the module at modDir.
func packagePath(modDir, modPath, dir string) (string, error) {
	rel, err := filepath.Rel(modDir, dir)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return modPath, nil
	}
	return modPath + "/" + filepath.ToSlash(rel), nil
}

// hasLocalReplace reports whether a go.mod replaces a module with a local
// directory (a replacement without a version), which a container build
// cannot reach.
func hasLocalReplace(gomod []byte) bool {
	f, err := modfile.Parse("go.mod", gomod, nil) // ParseLax skips replace directives
	if err != nil {
		return false
	}
	for _, r := range f.Replace {
		if r.New.Version == "" {
			return true
		}
	}
	return false
}

// Requirement is one module requirement of a go.mod.
type Requirement struct {
	Path, Version string
}

// requirements reads the require directives of a go.mod (both forms),
// in file order; nil when it does not parse.
func requirements(gomod []byte) []Requirement {
	f, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		return nil
	}
	out := make([]Requirement, 0, len(f.Require))
	for _, r := range f.Require {
		out = append(out, Requirement{r.Mod.Path, r.Mod.Version})
	}
	return out
}

// buildRequirements are the modules linked into this binary other than
// a2agen: what a project needs besides a2agen, when a2a-scaffold itself
// was built from a module version with its dependencies.
func buildRequirements() []Requirement {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var out []Requirement
	for _, d := range bi.Deps {
		if d.Path != a2agenModule && d.Replace == nil {
			out = append(out, Requirement{d.Path, d.Version})
		}
	}
	return out
}

// checkout reads the go.mod requirements and the go.sum of a local a2agen
// checkout after checking that dir holds one.
func checkout(dir string) (reqs []Requirement, goSum []byte, err error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, nil, fmt.Errorf("--a2agen %s: %w", dir, err)
	}
	if p := modulePath(gomod); p != a2agenModule {
		return nil, nil, fmt.Errorf("--a2agen %s: its go.mod declares module %q, not %s", dir, p, a2agenModule)
	}
	goSum, err = os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("--a2agen %s: %w", dir, err)
	}
	return requirements(gomod), goSum, nil
}
