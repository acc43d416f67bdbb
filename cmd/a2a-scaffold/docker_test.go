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
// project a2a-scaffold creates and that of examples/travel-agent (a package
// of this module, built from the module's root). It runs the build stage's
// `go build` line as written (its environment and flags) in the build
// context, offline against the module cache, and checks that the program is
// statically linked; that the build image's Go is the module's; that the
// runtime stage runs as a numeric non-root user and its COPY and ENTRYPOINT
// name the program; that ENTRYPOINT's -listen flags move exactly the
// manifest's loopback addresses to every interface, EXPOSE lists the
// manifest's ports and HEALTHCHECK fetches the first HTTP address. Then it
// starts the program with ENTRYPOINT's arguments (the -listen targets
// pointed at free loopback ports) and fetches the HEALTHCHECK's path.
func TestDockerfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agents")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("scaffolded project", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "boxed")
		if r := runCLI(t, "", "new", "boxed", "--manifest", writeFile(t, "agent.yaml", dockerManifest), "--dir", dir, "--a2agen", root); r.code != 0 {
			t.Fatalf("new: %+v", r)
		}
		checkDockerfile(t, dir, dir)
	})
	t.Run("examples/travel-agent", func(t *testing.T) {
		checkDockerfile(t, filepath.Join(root, "examples", "travel-agent"), root)
	})
}

// checkDockerfile checks the Dockerfile of the project in dir, whose build
// context is contextDir (see TestDockerfile).
func checkDockerfile(t *testing.T, dir, contextDir string) {
	data, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := dockerStages(t, string(data))
	if len(stages) != 2 {
		t.Fatalf("the Dockerfile has %d stages, want a build stage and the image", len(stages))
	}
	build, final := stages[0], stages[1]
	m, err := manifest.Load(filepath.Join(dir, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// The build stage: golang at the module's Go version, the sources it
	// copies present, and its go build line.
	gomod, err := os.ReadFile(filepath.Join(contextDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if from, want := build.first(t, "FROM"), "golang:"+goMinor(gomod)+" AS build"; from != want {
		t.Errorf("FROM %s, want %s (the go directive of %s)", from, want, filepath.Join(contextDir, "go.mod"))
	}
	for _, copyArgs := range build.all("COPY") {
		srcs := strings.Fields(copyArgs)
		for _, src := range srcs[:len(srcs)-1] {
			if _, err := os.Stat(filepath.Join(contextDir, src)); err != nil {
				t.Errorf("COPY %s: %v", copyArgs, err)
			}
		}
	}
	env, flags, out := goBuildLine(t, build)
	bin := filepath.Join(t.TempDir(), "agent")
	pkg := flags[len(flags)-1]
	args := slices.Concat([]string{"build"}, flags[:len(flags)-1], []string{"-o", bin, pkg})
	cmd := exec.Command(proctest.GoTool(), args...)
	cmd.Dir = contextDir
	// As in the golang image, whose context has no .git (.dockerignore):
	// no toolchain download, no VCS stamp; offline here.
	cmd.Env = append(os.Environ(), append([]string{"GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false", "GOPROXY=off", "GOWORK=off", "GOOS=linux"}, env...)...)
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s go %s in %s: %v\n%s", strings.Join(env, " "), strings.Join(args, " "), contextDir, err, msg)
	}
	t.Logf("ran the Dockerfile's go build in %v", time.Since(start).Round(time.Millisecond))
	checkStatic(t, bin)

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
// continued lines joined, split into stages at FROM.
func dockerStages(t *testing.T, src string) []dockerStage {
	t.Helper()
	var stages []dockerStage
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
			t.Fatalf("the Dockerfile has %s before FROM", in.name)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	return stages
}

// goBuildLine finds the RUN of the stage that runs go build and returns its
// environment assignments, the arguments after "go build" with the output
// path of -o removed, and that path. It refuses shell syntax it does not
// read, so that the line cannot change unnoticed.
func goBuildLine(t *testing.T, s dockerStage) (env, args []string, out string) {
	t.Helper()
	for _, run := range s.all("RUN") {
		if !strings.Contains(run, "go build") {
			continue
		}
		if strings.ContainsAny(run, "\"'`$;&|<>()\\") {
			t.Fatalf("RUN %s: this test reads only NAME=value assignments and a plain go build command", run)
		}
		f := strings.Fields(run)
		for len(f) > 0 && strings.Contains(f[0], "=") {
			env, f = append(env, f[0]), f[1:]
		}
		if len(f) < 3 || f[0] != "go" || f[1] != "build" {
			t.Fatalf("RUN %s: want [NAME=value ...] go build FLAGS PACKAGE", run)
		}
		f = f[2:]
		for i := 0; i < len(f); i++ {
			if f[i] == "-o" && i+1 < len(f) {
				out = f[i+1]
				f = slices.Delete(f, i, i+2)
				break
			}
		}
		if out == "" {
			t.Fatalf("RUN %s has no -o PATH", run)
		}
		return env, f, out
	}
	t.Fatal("the build stage has no RUN with go build")
	return nil, nil, ""
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
