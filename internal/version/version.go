// Package version holds the one version of a2agen that protoc-gen-a2a,
// a2a-scaffold and the runtime report, the name of the runtime constant
// generated code refers to as its compile-time handshake, and what a
// program was built from (Read), which every command and every agent run
// by host.Main prints for --version. It imports only the standard library,
// so both the generator (which never imports the runtime) and the runtime
// read it.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the version of a2agen: protoc-gen-a2a and a2a-scaffold write
// it into every generated file's header, a2a-scaffold requires it in new
// projects, and runtime.Version is it.
const Version = "0.1.0"

// RuntimeHandshake names the runtime constant generated code refers to, so
// that compiling it against an older runtime fails with "undefined:
// runtime.<RuntimeHandshake>". It names the oldest runtime version whose API
// generated code uses; runtime declares it (TestHandshakeIsDeclared).
const RuntimeHandshake = "IsAtLeastVersion0_1_0"

// The build stamps these with the linker (they are strings so that -X can
// set them):
//
//	go build -ldflags "-X github.com/a2agen/a2agen/internal/version.commit=$(git rev-parse HEAD)
//	                   -X github.com/a2agen/a2agen/internal/version.dirty=true" ./cmd/a2a
//
// They describe the main module of the program being built — a2agen for its
// own commands, the agent's project for a scaffolded agent — whose commit
// the go command records by itself only with -buildvcs (which these
// machines turn off with GOFLAGS=-buildvcs=false, and which needs the .git
// directory a container build does not have). Stamped values win over the
// vcs.* settings of the build info. dirty is "true" when the work tree had
// changes; anything else means clean.
// release is the version a release build stamps (make dist: v0.1.0); it
// stands for the build info's "(devel)", which a build from a checkout has.
var (
	commit  string
	dirty   string
	release string
)

// CommitSymbol and DirtySymbol are the linker symbols a build sets with
// -ldflags "-X CommitSymbol=<commit> -X DirtySymbol=true" (Makefiles,
// Dockerfiles and release scripts name them); ReleaseSymbol is the release
// version make dist stamps.
const (
	CommitSymbol  = "github.com/a2agen/a2agen/internal/version.commit"
	DirtySymbol   = "github.com/a2agen/a2agen/internal/version.dirty"
	ReleaseSymbol = "github.com/a2agen/a2agen/internal/version.release"
)

// a2agenModule is a2agen's module path.
const a2agenModule = "github.com/a2agen/a2agen"

// Build is what a program was built from.
type Build struct {
	// Path is the main module's path ("" when the build info is missing).
	Path string
	// Version is the main module's version from the build info: a release
	// (v1.2.3) for `go install …@v1.2.3`, "(devel)" for a build in a
	// checkout or project directory.
	Version string
	// Commit is the revision the build stamped (-ldflags -X), else the
	// build info's vcs.revision; "" when neither says.
	Commit string
	// Dirty reports a work tree with uncommitted changes at build time.
	Dirty bool
	// GoVersion is the Go toolchain that built the program (go1.26.0).
	GoVersion string
	// A2agen is the a2agen the program links when a2agen is not its main
	// module: its version, and " => DIR" (or " => MODULE VERSION") when a
	// replace points elsewhere, as in `go version -m`; "" otherwise.
	A2agen string
}

// Read reports what the running program was built from.
func Read() Build {
	b := Build{GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		b.read(bi)
	}
	b.stamp(commit, dirty)
	if release != "" && (b.Version == "" || b.Version == "(devel)") {
		b.Version = release
	}
	return b
}

// read fills b from build info.
func (b *Build) read(bi *debug.BuildInfo) {
	b.Path, b.Version = bi.Main.Path, bi.Main.Version
	if bi.GoVersion != "" {
		b.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	if b.Path == a2agenModule {
		return
	}
	for _, d := range bi.Deps {
		if d.Path != a2agenModule {
			continue
		}
		b.A2agen = d.Version
		if r := d.Replace; r != nil {
			b.A2agen += " => " + r.Path
			if r.Version != "" && r.Version != "(devel)" { // a directory has none
				b.A2agen += " " + r.Version
			}
		}
	}
}

// stamp applies what the linker set, which wins over the build info.
func (b *Build) stamp(commit, dirty string) {
	if commit != "" {
		b.Commit, b.Dirty = commit, dirty == "true"
	}
}

// String is one line naming the module version, the commit and the Go
// version, and a second line naming a2agen when a2agen is a dependency:
//
//	v0.1.0 commit 0123abcd… (dirty) go1.26.0 linux/amd64
//	(devel) commit unknown go1.26.0 linux/amd64
//	a2agen v0.1.0 => /src/a2agen
func (b Build) String() string {
	v := b.Version
	if v == "" {
		v = "(unknown)"
	}
	c := b.Commit
	if c == "" {
		c = "unknown"
	}
	s := fmt.Sprintf("%s commit %s", v, c)
	if b.Dirty {
		s += " (dirty)"
	}
	s += " " + b.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
	if b.A2agen != "" {
		s += "\na2agen " + b.A2agen
	}
	return s
}

// Line is what `program --version` prints: the program's name, then
// Read's String, ending in a newline.
func Line(program string) string {
	return program + " " + Read().String() + "\n"
}
