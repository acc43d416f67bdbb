//go:build linux

package main

import (
	"debug/elf"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/internal/version"
)

// dockerManifest is an agent whose HTTP address is on loopback (so the
// image's ENTRYPOINT must move it with -listen) and whose gRPC address is
// on every interface already.
const dockerManifest = `apiVersion: a2agen/v1
name: Boxed Agent
description: Runs in a container.
version: "1.0.0"
module: example.com/boxed
bindings:
  - binding: JSONRPC
    address: "127.0.0.1:18080"
    path: /a2a
  - binding: HTTP+JSON
    address: "127.0.0.1:18080"
    path: /a2a/rest
  - binding: GRPC
    address: ":19090"
skills:
  - id: echo
    name: Echo
    description: Echoes what it is sent.
    tags: [test]
`

// TestDockerfile checks, without a container engine, the Dockerfile of a
// project a2a-scaffold creates against a local checkout (go.mod has a
// replace: the image builds from the vendor tree) and that of
// examples/travel-agent (a package of this module, built from the module's
// root, downloading its modules). It checks the Dockerfile's structure: the
// base images are the build arguments GO_IMAGE (golang at the module's Go
// version) and RUNTIME_IMAGE, the go build RUN has BuildKit cache mounts and
// stamps the COMMIT and DIRTY build arguments. With
// A2AGEN_TEST_DOCKERFILE_BUILD=1 (make test-dockerfile, part of make check;
// the builds compile everything again, static and -trimpath) it then runs
// the build stage's instructions (WORKDIR, COPY, ARG, RUN) as a builder would, in a
// clean copy of the build context (what its .dockerignore lets through),
// with the network cut (GOPROXY=off; for the vendored project also
// GOFLAGS=-mod=vendor and an empty module cache), and checks that the
// program is statically linked and that -version names the stamped commit.
// Of the image it checks that it runs as a numeric non-root user, that its
// COPY and ENTRYPOINT name the program, that ENTRYPOINT's -listen flags move
// exactly the manifest's loopback addresses to every interface, that EXPOSE
// lists the manifest's ports and that HEALTHCHECK fetches the first HTTP
// address. Then, with the build, it starts the program with ENTRYPOINT's arguments (the
// -listen targets pointed at free loopback ports) and fetches the
// HEALTHCHECK's path.
func TestDockerfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agents")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("scaffolded project with a local replace", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "boxed")
		if r := runCLI(t, "", "new", "boxed", "--manifest", writeFile(t, "agent.yaml", dockerManifest), "--dir", dir, "--a2agen", root); r.code != 0 {
			t.Fatalf("new: %+v", r)
		}
		// make vendor, as the Dockerfile says, offline from the module cache.
		vendor := exec.Command("make", "vendor")
		vendor.Dir = dir
		vendor.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := vendor.CombinedOutput(); err != nil {
			t.Fatalf("make vendor: %v\n%s", err, out)
		}
		checkDockerfile(t, dir, dir, true)
	})
	t.Run("examples/travel-agent", func(t *testing.T) {
		checkDockerfile(t, filepath.Join(root, "examples", "travel-agent"), root, false)
	})
}

// dockerBuildEnv, set to 1, makes TestDockerfile run the build stages and
// the programs they build (make test-dockerfile, part of make check).
const dockerBuildEnv = "A2AGEN_TEST_DOCKERFILE_BUILD"

// stampedCommit is the COMMIT build argument the tests build with.
const stampedCommit = "c0ffee0123456789abcdef0123456789abcdef01"

// checkDockerfile checks the Dockerfile of the project in dir, whose build
// context is contextDir (see TestDockerfile); vendor says that the build
// must work from the vendor tree alone.
func checkDockerfile(t *testing.T, dir, contextDir string, vendor bool) {
	data, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	globals, stages := dockerStages(t, string(data))
	if len(stages) != 2 {
		t.Fatalf("the Dockerfile has %d stages, want a build stage and the image", len(stages))
	}
	build, final := stages[0], stages[1]
	m, err := manifest.Load(filepath.Join(dir, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// The base images: build arguments, golang at the module's Go version.
	gomod, err := os.ReadFile(filepath.Join(contextDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "golang:" + goMinor(gomod); globals["GO_IMAGE"] != want {
		t.Errorf("ARG GO_IMAGE=%s, want %s (the go directive of %s)", globals["GO_IMAGE"], want, filepath.Join(contextDir, "go.mod"))
	}
	if globals["RUNTIME_IMAGE"] != "alpine:3.23" {
		t.Errorf("ARG RUNTIME_IMAGE=%s, want alpine:3.23", globals["RUNTIME_IMAGE"])
	}
	if from := build.first(t, "FROM"); from != "${GO_IMAGE} AS build" {
		t.Errorf("FROM %s, want ${GO_IMAGE} AS build", from)
	}
	if from := final.first(t, "FROM"); from != "${RUNTIME_IMAGE}" {
		t.Errorf("the image's FROM %s, want ${RUNTIME_IMAGE}", from)
	}

	// The build: cache mounts, the stamp, vendor or download.
	goBuild := ""
	for _, run := range build.all("RUN") {
		if strings.Contains(run, "go build") {
			goBuild = run
		}
	}
	for _, want := range []string{"--mount=type=cache,target=/root/.cache/go-build", "-X " + version.CommitSymbol + "=${COMMIT}", "-X " + version.DirtySymbol + "=${DIRTY}", "CGO_ENABLED=0", "-trimpath"} {
		if !strings.Contains(goBuild, want) {
			t.Errorf("the go build RUN lacks %q: %s", want, goBuild)
		}
	}
	if got := build.all("ARG"); !slices.Contains(got, "COMMIT=") || !slices.Contains(got, "DIRTY=") {
		t.Errorf("the build stage's ARGs are %q, want COMMIT= and DIRTY=", got)
	}
	downloads := slices.ContainsFunc(build.all("RUN"), func(r string) bool { return strings.Contains(r, "go mod download") })
	if vendor && (downloads || !strings.Contains(goBuild, "GOFLAGS=-mod=vendor")) {
		t.Errorf("with a local replace the build must use the vendor tree and download nothing: %q", build.all("RUN"))
	}
	if !vendor && (!downloads || !strings.Contains(goBuild, "--mount=type=cache,target=/go/pkg/mod")) {
		t.Errorf("without a local replace the build downloads its modules, into the module cache mount: %q", build.all("RUN"))
	}

	// The build itself compiles a2agen and every dependency once more
	// (static, -trimpath; twice: vendored and not), most of a cold make
	// test's CPU time: make check runs it (make test-dockerfile).
	bin, out := "", buildOutput(t, build)
	if os.Getenv(dockerBuildEnv) == "1" {
		bin, out = runBuildStage(t, build, contextDir, filepath.Join(dir, ignoreFile(dir, contextDir)), vendor)
		checkStatic(t, bin)
		if v, err := exec.Command(bin, "-version").Output(); err != nil || !strings.Contains(string(v), " commit "+stampedCommit+" (dirty) ") {
			t.Errorf("-version of the built program: %q (%v), want the stamped commit %s (dirty)", v, err, stampedCommit)
		}
	} else {
		t.Logf("the build stage is not run (make test-dockerfile, part of make check, runs it: %s=1)", dockerBuildEnv)
	}

	// The image: a numeric non-root user, the program, its ENTRYPOINT.
	if user, _, _ := strings.Cut(final.first(t, "USER"), ":"); user == "" || user == "0" || strings.Trim(user, "0123456789") != "" {
		t.Errorf("USER %s, want a numeric user other than root (runAsNonRoot checks only numbers)", user)
	}
	copyFrom := strings.Fields(final.first(t, "COPY"))
	if len(copyFrom) != 3 || copyFrom[0] != "--from=build" || copyFrom[1] != out {
		t.Fatalf("COPY %s, want --from=build %s DEST", strings.Join(copyFrom, " "), out)
	}
	entry := execForm(t, final.first(t, "ENTRYPOINT"))
	if len(entry) == 0 || entry[0] != copyFrom[2] {
		t.Fatalf("ENTRYPOINT %q does not run %s", entry, copyFrom[2])
	}

	// Addresses: -listen moves the loopback ones, EXPOSE lists them all.
	var addrs, ports, moved []string
	healthPort := ""
	for _, b := range m.Bindings {
		if slices.Contains(addrs, b.Address) {
			continue
		}
		addrs = append(addrs, b.Address)
		host, port, _ := net.SplitHostPort(b.Address)
		ports = append(ports, port)
		if ip := net.ParseIP(host); host != "" && !ip.IsUnspecified() {
			moved = append(moved, b.Address+"=0.0.0.0:"+port)
		}
		if healthPort == "" && b.Protocol.IsHTTP() {
			healthPort = port
		}
	}
	var listens []string
	for i := 1; i < len(entry); i++ {
		if entry[i] == "-listen" && i+1 < len(entry) {
			listens = append(listens, entry[i+1])
			i++
		}
	}
	if !slices.Equal(listens, moved) {
		t.Errorf("ENTRYPOINT moves %q, want %q", listens, moved)
	}
	if got := strings.Fields(final.first(t, "EXPOSE")); !slices.Equal(got, ports) {
		t.Errorf("EXPOSE %q, want the ports of agent.yaml %q", got, ports)
	}
	health := final.first(t, "HEALTHCHECK")
	_, cmdForm, ok := strings.Cut(health, "CMD ")
	probe := execForm(t, cmdForm)
	u, err := url.Parse(probe[len(probe)-1])
	if !ok || err != nil || u.Hostname() != "127.0.0.1" || u.Port() != healthPort || u.Path != "/healthz" {
		t.Fatalf("HEALTHCHECK %s, want it to fetch /healthz on 127.0.0.1:%s", health, healthPort)
	}

	if bin == "" {
		return
	}
	// Run the program as the image would, on free loopback ports.
	free := map[string]string{} // port of agent.yaml → where the test listens
	run := slices.Clone(entry[1:])
	for i, a := range run {
		if from, to, ok := strings.Cut(a, "="); ok && i > 0 && run[i-1] == "-listen" {
			_, port, _ := net.SplitHostPort(to)
			free[port] = freeAddr(t)
			run[i] = from + "=" + free[port]
		}
	}
	for _, a := range addrs {
		if _, port, _ := net.SplitHostPort(a); free[port] == "" {
			free[port] = freeAddr(t)
			run = append(run, "-listen", a+"="+free[port])
		}
	}
	p := proctest.Start(t, bin, proctest.Options{Args: append(run, "-store", "memory"), Dir: t.TempDir()})
	resp, err := http.Get("http://" + free[healthPort] + u.Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s, want 200 (the HEALTHCHECK would fail)", u.Path, resp.Status)
	}
	p.Stop(t)
}

// dockerStage is the instructions of one stage of a Dockerfile, from its
// FROM on.
type dockerStage []dockerInstruction

type dockerInstruction struct{ name, args string }

// first returns the arguments of the stage's first instruction name.
func (s dockerStage) first(t *testing.T, name string) string {
	t.Helper()
	for _, in := range s {
		if in.name == name {
			return in.args
		}
	}
	t.Fatalf("a stage of the Dockerfile has no %s", name)
	return ""
}

// all returns the arguments of every instruction name of the stage.
func (s dockerStage) all(name string) []string {
	var out []string
	for _, in := range s {
		if in.name == name {
			out = append(out, in.args)
		}
	}
	return out
}

// dockerStages reads a Dockerfile: comments and blank lines dropped,
// continued lines joined, the ARGs before the first FROM returned as
// globals (name → default), the rest split into stages at FROM.
func dockerStages(t *testing.T, src string) (globals map[string]string, stages []dockerStage) {
	t.Helper()
	globals = map[string]string{}
	logical := ""
	for line := range strings.SplitSeq(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if logical == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if rest, ok := strings.CutSuffix(trimmed, `\`); ok {
			logical += rest + " "
			continue
		}
		logical += trimmed
		name, args, _ := strings.Cut(logical, " ")
		logical = ""
		in := dockerInstruction{strings.ToUpper(name), strings.TrimSpace(args)}
		if in.name == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			if in.name != "ARG" {
				t.Fatalf("the Dockerfile has %s before FROM", in.name)
			}
			k, v, _ := strings.Cut(in.args, "=")
			globals[k] = v
			continue
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	return globals, stages
}

// execForm reads the JSON array of an instruction's exec form.
func execForm(t *testing.T, args string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(args), &out); err != nil || len(out) == 0 {
		t.Fatalf("%s is not an exec form (a JSON array of strings): %v", args, err)
	}
	return out
}

// checkStatic fails unless the ELF program at path needs no dynamic loader
// or shared library.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the program is dynamically linked (%v)", p.Type)
		}
	}
}

// goMinor is the major.minor of a go.mod's go directive.
func goMinor(gomod []byte) string {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
			parts := strings.SplitN(f[1], ".", 3)
			if len(parts) >= 2 {
				if _, err := strconv.Atoi(parts[1]); err == nil {
					return parts[0] + "." + parts[1]
				}
			}
		}
	}
	return "?"
}

// ignoreFile is the .dockerignore of the project in dir (relative to dir):
// Dockerfile.dockerignore for a package of another module, else
// .dockerignore.
func ignoreFile(dir, contextDir string) string {
	if dir != contextDir {
		return "Dockerfile.dockerignore"
	}
	return ".dockerignore"
}

// runBuildStage runs the build stage's WORKDIR, COPY, ARG and RUN
// instructions as an image builder would, in a fresh directory standing for
// the stage's file system: COPY reads a clean copy of the build context
// (the files of contextDir its ignore file lets through), RUN runs with sh
// with --mount options dropped and absolute paths moved under that
// directory, with the build arguments COMMIT=stampedCommit and DIRTY=true
// and the network cut: GOPROXY=off, and for vendor also GOFLAGS=-mod=vendor
// and an empty module cache. It returns the program the stage built and its
// path in the stage (the go build's -o).
func runBuildStage(t *testing.T, stage dockerStage, contextDir, ignore string, vendor bool) (bin, out string) {
	t.Helper()
	patterns := dockerignore(t, ignore)
	fsRoot := t.TempDir()
	workdir := "/"
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off", "GOOS=linux", "GOFLAGS=-buildvcs=false")
	if vendor {
		env = append(env, "GOFLAGS=-mod=vendor -buildvcs=false", "GOMODCACHE="+t.TempDir())
	}
	buildArgs := map[string]string{"COMMIT": stampedCommit, "DIRTY": "true"}
	for _, in := range stage[1:] {
		switch in.name {
		case "WORKDIR":
			workdir = in.args
			if err := os.MkdirAll(filepath.Join(fsRoot, workdir), 0o755); err != nil {
				t.Fatal(err)
			}
		case "ARG":
			name, def, _ := strings.Cut(in.args, "=")
			v, ok := buildArgs[name]
			if !ok {
				v = def
			}
			env = append(env, name+"="+v)
		case "COPY":
			f := strings.Fields(in.args)
			dest := f[len(f)-1]
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(workdir, dest)
			}
			for _, src := range f[:len(f)-1] {
				copyContext(t, contextDir, src, filepath.Join(fsRoot, dest), patterns)
			}
		case "RUN":
			line := in.args
			for strings.HasPrefix(line, "--mount=") {
				_, line, _ = strings.Cut(line, " ")
				line = strings.TrimSpace(line)
			}
			if f := strings.Fields(line); slices.Contains(f, "-o") {
				out = f[slices.Index(f, "-o")+1]
			}
			line = strings.ReplaceAll(line, " /out/", " "+filepath.Join(fsRoot, "out")+"/")
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir, cmd.Env = filepath.Join(fsRoot, workdir), env
			start := time.Now()
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("RUN %s: %v\n%s", in.args, err, msg)
			}
			t.Logf("RUN %.60s… took %v", line, time.Since(start).Round(time.Millisecond))
		default:
			t.Fatalf("the build stage has %s, which this test does not run", in.name)
		}
	}
	if out == "" {
		t.Fatal("the build stage has no go build -o")
	}
	return filepath.Join(fsRoot, out), out
}

// buildOutput is the path the build stage's go build writes the program
// to (its -o), as runBuildStage finds it.
func buildOutput(t *testing.T, stage dockerStage) string {
	t.Helper()
	out := ""
	for _, run := range stage.all("RUN") {
		if f := strings.Fields(run); slices.Contains(f, "-o") {
			out = f[slices.Index(f, "-o")+1]
		}
	}
	if out == "" {
		t.Fatal("the build stage has no go build -o")
	}
	return out
}

// dockerignore reads the patterns of an ignore file.
func dockerignore(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, strings.TrimSuffix(line, "/"))
		}
	}
	return out
}

// ignored reports whether the context path rel (slash-separated) matches a
// pattern of a generated .dockerignore: a path or directory, or **/GLOB
// for a base name anywhere.
func ignored(rel string, patterns []string) bool {
	for _, p := range patterns {
		if glob, ok := strings.CutPrefix(p, "**/"); ok {
			if m, _ := filepath.Match(glob, filepath.Base(rel)); m {
				return true
			}
			continue
		}
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// copyContext copies src of the build context (a file, a directory or
// ".") to dest as COPY does, leaving out what the ignore patterns match.
func copyContext(t *testing.T, contextDir, src, dest string, patterns []string) {
	t.Helper()
	from := filepath.Join(contextDir, src)
	info, err := os.Stat(from)
	if err != nil {
		t.Fatalf("COPY %s: %v", src, err)
	}
	if !info.IsDir() {
		if strings.HasSuffix(dest, "/") || filepath.Clean(dest) != dest {
			dest = filepath.Join(dest, filepath.Base(src))
		}
		if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
			dest = filepath.Join(dest, filepath.Base(src))
		}
		copyFile(t, from, dest)
		return
	}
	err = filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(contextDir, path)
		rel = filepath.ToSlash(rel)
		if rel != "." && ignored(rel, patterns) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		sub, _ := filepath.Rel(from, path)
		copyFile(t, path, filepath.Join(dest, sub))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
