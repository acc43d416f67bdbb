package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestReadBuildInfo: the module version, vcs.* settings and the a2agen
// dependency (with its replace) come from the build info; stamped values
// win over the vcs settings.
func TestReadBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "example.com/weather", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "golang.org/x/mod", Version: "v0.30.0"},
			{Path: a2agenModule, Version: "v0.1.0", Replace: &debug.Module{Path: "/src/a2agen", Version: "(devel)"}},
		},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}},
	}
	var b Build
	b.read(bi)
	want := Build{Path: "example.com/weather", Version: "(devel)", Commit: "abc123", Dirty: true, GoVersion: "go1.26.0", A2agen: "v0.1.0 => /src/a2agen"}
	if b != want {
		t.Errorf("read = %+v, want %+v", b, want)
	}
	b.stamp("def456", "")
	if b.Commit != "def456" || b.Dirty {
		t.Errorf("after stamping a clean commit: %+v", b)
	}
	b.stamp("", "true")
	if b.Commit != "def456" {
		t.Errorf("an empty stamp replaced the commit: %+v", b)
	}
	if s := b.String(); !strings.HasPrefix(s, "(devel) commit def456 go1.26.0 ") || !strings.HasSuffix(s, "\na2agen v0.1.0 => /src/a2agen") {
		t.Errorf("String() = %q", s)
	}

	b = Build{}
	b.read(&debug.BuildInfo{Main: debug.Module{Path: a2agenModule, Version: "v0.2.0"}, GoVersion: "go1.26.1",
		Deps: []*debug.Module{{Path: a2agenModule, Version: "v0.0.1"}}})
	if s := b.String(); !strings.HasPrefix(s, "v0.2.0 commit unknown go1.26.1 ") || strings.Contains(s, "\n") {
		t.Errorf("a2agen's own release: String() = %q", s)
	}
}

// TestStampedBuild builds protoc-gen-a2a as a release build would, with the
// commit and dirty flag stamped by -ldflags -X and -buildvcs=false, and
// checks that --version names them and the Go version.
func TestStampedBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a command")
	}
	bin := filepath.Join(t.TempDir(), "protoc-gen-a2a")
	const commit = "0123456789abcdef0123456789abcdef01234567"
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin,
		"-ldflags", "-X "+CommitSymbol+"="+commit+" -X "+DirtySymbol+"=true", "../../cmd/protoc-gen-a2a")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "protoc-gen-a2a (devel) commit " + commit + " (dirty) " + strings.TrimSpace(string(goVersion)) + " "
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("--version printed %q, want it to start with %q", out, want)
	}
}
