package scaffold

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/a2agen/a2agen/internal/manifest"
)

// NewOptions are the settings of NewProject.
type NewOptions struct {
	// Name names the project (and, without Dir, its directory); it is the
	// agent's name in a starter manifest.
	Name string
	// Dir is where the project goes (default: Name).
	Dir string
	// Manifest is the manifest file to start from; empty writes the
	// starter manifest of Template (manifest.StarterOf) and its schema.
	Manifest string
	// Template names the starter manifest (manifest.Templates; "" for
	// manifest.TemplateEcho); it excludes Manifest.
	Template string
	// Module overrides the manifest's module path. When it names the
	// package Dir would be inside an enclosing module, the project is that
	// package: no go.mod is written.
	Module string
	// A2agenDir points go.mod at a local a2agen checkout (a replace), and
	// its go.sum is copied, so that the project builds offline.
	A2agenDir string
	// A2agenFromBuild says that A2agenDir is the checkout a development
	// build of a2a-scaffold came from (BuildCheckout), not a choice of the
	// user: a project that is a package of another module then ignores it
	// instead of refusing it.
	A2agenFromBuild bool
	// Force allows a non-empty Dir; its files are then treated as
	// GenerateProject treats them (generated ones rewritten, others kept).
	Force bool
}

// NewProject creates an agent project (see Files for what it holds) and
// reports the files it wrote. It refuses a non-empty directory unless
// opts.Force.
func NewProject(opts NewOptions) (*Report, error) {
	if strings.TrimSpace(opts.Name) == "" {
		return nil, errors.New("the project needs a name")
	}
	dir := opts.Dir
	if dir == "" {
		dir = opts.Name
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := checkEmpty(dir, opts.Force); err != nil {
		return nil, err
	}
	if opts.Template != "" && opts.Manifest != "" {
		return nil, errors.New("--template and --manifest exclude each other: a template is a starter manifest")
	}
	data, err := newManifest(dir, opts)
	if err != nil {
		return nil, err
	}
	name := opts.Manifest
	if name == "" {
		name = filepath.Join(dir, ManifestFile)
	}
	m, err := manifest.Parse(name, data)
	if err != nil {
		return nil, err
	}
	popts, err := newProjectOptions(opts, m, data, dir, absDir, name)
	if err != nil {
		return nil, err
	}
	files, err := Files(m, popts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return apply(dir, files, true, false)
}

// newManifest is the new project's manifest: the given file, an agent.yaml
// already there (--force), or the starter of the template, with the module
// given.
func newManifest(dir string, opts NewOptions) ([]byte, error) {
	existing, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	switch {
	case opts.Manifest != "":
		data, err := os.ReadFile(opts.Manifest)
		if err != nil {
			return nil, fmt.Errorf("reading the manifest: %w", err)
		}
		if existing != nil && !bytes.Equal(existing, data) {
			return nil, fmt.Errorf("%s already holds another %s; remove it, or leave out --manifest to use it", dir, ManifestFile)
		}
		return data, nil
	case existing != nil:
		return existing, nil
	}
	data, err := manifest.StarterOf(opts.Template, opts.Name)
	if err != nil {
		return nil, err
	}
	if opts.Module != "" {
		// The starter names a module of its own; the one given wins.
		data = bytes.Replace(data, []byte("\nmodule: "+starterModule(data)+"\n"), []byte("\nmodule: "+opts.Module+"\n"), 1)
	}
	return data, nil
}

// newProjectOptions lays the project out: a package of the module that
// encloses absDir when the project's module is that package's path, else a
// module of its own (standalone), built against a2agen's checkout when
// --a2agen names one. dir and name (the manifest's) are for errors.
func newProjectOptions(opts NewOptions, m *manifest.Manifest, data []byte, dir, absDir, name string) (ProjectOptions, error) {
	popts := ProjectOptions{Module: cmp.Or(opts.Module, m.Module), A2agenVersion: A2agenVersion(), Requires: buildRequirements(), Manifest: data}
	modDir, modPath, err := enclosingModule(absDir)
	if err != nil {
		return popts, err
	}
	inside, err := isPackageOf(modDir, modPath, absDir, popts.Module)
	if err != nil {
		return popts, err
	}
	popts.Standalone = !inside
	if inside {
		return popts, packageOptions(&popts, opts, modDir, absDir, dir)
	}
	return popts, standaloneOptions(&popts, opts, name)
}

// isPackageOf reports whether the project at absDir is the package module
// names of the module at modDir (modPath): it is inside that module and
// its module is that package's path.
func isPackageOf(modDir, modPath, absDir, module string) (bool, error) {
	if modDir == "" || modDir == absDir {
		return false, nil
	}
	pkg, err := packagePath(modDir, modPath, absDir)
	return err == nil && module == pkg, err
}

// packageOptions lays out a project that is a package of the module at
// modDir; --a2agen, which names a checkout for a go.mod of the project's
// own, does not apply to it.
func packageOptions(popts *ProjectOptions, opts NewOptions, modDir, absDir, dir string) error {
	var err error
	if popts.PackageDir, popts.GoDirective, err = packageLayout(modDir, absDir); err != nil {
		return err
	}
	if opts.A2agenDir != "" && !opts.A2agenFromBuild {
		return fmt.Errorf("--a2agen does not apply: %s is the package %s of the module in %s, which has its own go.mod", dir, popts.Module, modDir)
	}
	return nil
}

// standaloneOptions lays out a project that is a module of its own, built
// against a2agen's checkout when --a2agen names one.
func standaloneOptions(popts *ProjectOptions, opts NewOptions, name string) error {
	if popts.Module == "" {
		return fmt.Errorf("%s sets no module: give --module, or set module in the manifest", name)
	}
	if opts.A2agenDir == "" {
		return nil
	}
	abs, err := filepath.Abs(opts.A2agenDir)
	if err != nil {
		return err
	}
	if popts.Requires, popts.GoSum, err = checkout(abs); err != nil {
		return err
	}
	popts.A2agenDir, popts.LocalReplace = filepath.ToSlash(abs), true
	return nil
}

// starterModule returns the module path written in a starter manifest.
func starterModule(data []byte) string {
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "module: "); ok {
			return rest
		}
	}
	return ""
}

// checkEmpty refuses a directory that holds anything, unless force.
func checkEmpty(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 && !force {
		return fmt.Errorf("%s is not empty; choose another directory, or use --force to write into it (its generated files are rewritten, other files kept)", dir)
	}
	return nil
}

// GenerateProject regenerates the project in dir from its agent.yaml: it
// rewrites stale generated files, writes a stub for each new skill (and
// any other missing user-owned file), never modifies a user-owned file,
// and reports skill files no skill uses any more. With check it writes
// nothing and reports what it would write.
func GenerateProject(dir string, check bool) (*Report, error) {
	path := filepath.Join(dir, ManifestFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: run this in a project made by a2a-scaffold new, or give --dir", dir, ManifestFile)
	}
	m, err := manifest.Load(path)
	if err != nil {
		return nil, err
	}
	opts := ProjectOptions{Module: m.Module}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	switch {
	case err == nil:
		opts.Standalone, opts.GoDirective, opts.LocalReplace = true, goDirective(gomod), hasLocalReplace(gomod)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	default:
		absDir, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		if modDir, _, err := enclosingModule(absDir); err != nil {
			return nil, err
		} else if modDir != "" {
			if opts.PackageDir, opts.GoDirective, err = packageLayout(modDir, absDir); err != nil {
				return nil, err
			}
		}
	}
	files, err := Files(m, opts)
	if err != nil {
		return nil, err
	}
	return apply(dir, files, false, check)
}

// packageLayout is the directory of a project that is a package of the
// module at modDir, relative to the module's root, and the module's go
// directive.
func packageLayout(modDir, dir string) (pkgDir, goVersion string, err error) {
	rel, err := filepath.Rel(modDir, dir)
	if err != nil {
		return "", "", err
	}
	gomod, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return "", "", err
	}
	return filepath.ToSlash(rel), goDirective(gomod), nil
}
