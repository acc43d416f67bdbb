package doccmds_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// script is one documented command group: the shell lines as written and
// where they were found.
type script struct {
	where string
	lines string
	// bufGen is the buf.gen.yaml the README shows before a buf command.
	bufGen string
}

// runsGenerator matches the first word of a command that runs protoc or buf.
var runsGenerator = regexp.MustCompile(`^(protoc|buf)(\s|$)`)

// readmeScripts returns README.md's fenced sh blocks that run protoc or buf,
// each with the buf.gen.yaml block shown before it.
func readmeScripts(t *testing.T, root string) []script {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out            []script
		block, lang    string
		in             bool
		start, lineNum int
		bufGen         string
	)
	s := bufio.NewScanner(f)
	for s.Scan() {
		lineNum++
		line := s.Text()
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, lang, block, start = true, strings.TrimPrefix(line, "```"), "", lineNum
		case in && line == "```":
			in = false
			switch {
			case lang == "yaml" && strings.HasPrefix(block, "# buf.gen.yaml\n"):
				bufGen = block
			case lang == "sh" && hasGeneratorCommand(block):
				out = append(out, script{where: "README.md:" + strconv.Itoa(start), lines: block, bufGen: bufGen})
			}
		case in:
			block += line + "\n"
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// helpScripts returns the command groups of a --help text that run protoc
// or buf: runs of lines starting with a2a-scaffold, protoc or buf, with their
// backslash continuations.
func helpScripts(where, help string) []script {
	var (
		out   []script
		group []string
		cont  bool
	)
	flush := func() {
		if len(group) > 0 && hasGeneratorCommand(strings.Join(group, "\n")) {
			out = append(out, script{where: where, lines: strings.Join(group, "\n") + "\n"})
		}
		group = nil
	}
	for line := range strings.SplitSeq(help, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cont:
			group = append(group, trimmed)
		case strings.HasPrefix(trimmed, "a2a-scaffold ") || runsGenerator.MatchString(trimmed):
			group = append(group, trimmed)
		default:
			flush()
		}
		cont = strings.HasSuffix(trimmed, `\`)
	}
	flush()
	return out
}

func hasGeneratorCommand(block string) bool {
	for line := range strings.SplitSeq(block, "\n") {
		if runsGenerator.MatchString(strings.TrimSpace(line)) {
			return true
		}
	}
	return false
}

// requireTools says whether a missing protoc or buf fails the test instead
// of skipping it (.ci/run installs both and sets it).
const requireTools = "A2AGEN_TEST_DOC_TOOLS"

// lookTool returns the path of tool, or skips (fails under requireTools).
func lookTool(t *testing.T, tool string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv(requireTools) != "" {
			t.Fatalf("%s is not on PATH and %s is set", tool, requireTools)
		}
		t.Skipf("%s is not on PATH (set %s to make this a failure)", tool, requireTools)
	}
	return path
}

// buildTools builds the commands the documented commands run into one
// directory: this repository's a2a-scaffold and protoc-gen-a2a, and
// protoc-gen-go and protoc-gen-go-grpc at the versions go.mod pins.
func buildTools(t *testing.T, root string) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
		"./cmd/a2a-scaffold", "./cmd/protoc-gen-a2a",
		"google.golang.org/protobuf/cmd/protoc-gen-go", "google.golang.org/grpc/cmd/protoc-gen-go-grpc")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// moduleOption finds the module= option a command passes its plugins.
var moduleOption = regexp.MustCompile(`module=([^,\s]+)`)

// TestDocumentedCommands runs each documented protoc and buf command as
// written in an empty directory, with the commands it calls on PATH, then
// checks that protoc-gen-a2a wrote a file and that the output compiles in a
// module named by the command's module= option.
func TestDocumentedCommands(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	lookTool(t, "protoc")
	bin := buildTools(t, root)
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")

	scripts := readmeScripts(t, root)
	if len(scripts) < 3 {
		t.Fatalf("README.md: found %d sh blocks running protoc or buf, want the protoc, protoc-gen-go-grpc and buf ones", len(scripts))
	}
	for _, help := range []struct {
		where string
		args  []string
	}{
		{"protoc-gen-a2a --help", []string{"protoc-gen-a2a", "--help"}},
		{"a2a-scaffold proto --help", []string{"a2a-scaffold", "proto", "--help"}},
	} {
		out, err := exec.Command(filepath.Join(bin, help.args[0]), help.args[1:]...).Output()
		if err != nil {
			t.Fatalf("%s: %v", help.where, err)
		}
		found := helpScripts(help.where, string(out))
		if len(found) == 0 {
			t.Fatalf("%s shows no protoc command", help.where)
		}
		scripts = append(scripts, found...)
	}

	linked := false
	for _, sc := range scripts {
		t.Run(sc.where, func(t *testing.T) {
			t.Logf("running:\n%s", sc.lines)
			dir := t.TempDir()
			if strings.Contains(sc.lines, "buf ") || strings.HasSuffix(strings.TrimSpace(sc.lines), "buf generate") {
				lookTool(t, "buf")
				if sc.bufGen == "" {
					t.Fatal("a buf command without a buf.gen.yaml block before it")
				}
				if err := os.WriteFile(filepath.Join(dir, "buf.gen.yaml"), []byte(sc.bufGen), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("sh", "-e", "-c", sc.lines)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+path, "BUF_CACHE_DIR="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the documented command fails: %v\n%s", err, out)
			}
			var generated []string
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".a2a.go") {
					generated = append(generated, p)
				}
				return nil
			})
			if len(generated) == 0 {
				t.Fatal("the documented command wrote no .a2a.go file")
			}
			m := moduleOption.FindStringSubmatch(sc.lines + sc.bufGen)
			if m == nil {
				t.Fatal("the documented command passes no module= option; the test compiles the output in that module")
			}
			compile(t, root, dir, m[1])
			if _, err := os.Stat(filepath.Join(dir, "a2av1", "a2a.a2a.go")); err == nil && !linked {
				linked = true
				checkLinkConflict(t, dir, m[1]+"/a2av1")
			}
		})
	}
}

// checkLinkConflict builds a program that links the generated package pkg
// (the A2A proto in the message package) together with a2agen's server, as
// the README warns against, and checks that it stops at start with the
// message naming both packages, not with protobuf's bare panic.
func checkLinkConflict(t *testing.T, dir, pkg string) {
	t.Helper()
	main := "package main\n\nimport (\n\t_ \"" + pkg + "\"\n\t_ \"github.com/a2agen/a2agen/server\"\n)\n\nfunc main() {}\n"
	if err := os.MkdirAll(filepath.Join(dir, "cmd", "both"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cmd", "both", "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./cmd/both")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOLANG_PROTOBUF_REGISTRATION_CONFLICT=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a program linking %s and a2agen's server started; want it stopped at start", pkg)
	}
	for _, want := range []string{"lf.a2a.v1.A2AService", pkg, "github.com/a2agen/a2agen/a2a/v1", "Link only one"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the program linking both packages says:\n%s\nwant a message mentioning %q", out, want)
		}
	}
}

// compile makes dir a module named module that requires this repository
// (through a replace directive) at the dependency versions of its go.mod,
// and vets every package in it.
func compile(t *testing.T, root, dir, module string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	mod := new(modfile.File)
	for _, step := range []error{
		mod.AddModuleStmt(module),
		mod.AddGoStmt(ours.Go.Version),
		mod.AddRequire(ours.Module.Mod.Path, "v0.0.0"),
		mod.AddReplace(ours.Module.Mod.Path, "", root, ""),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	for _, r := range ours.Require {
		if err := mod.AddRequire(r.Mod.Path, r.Mod.Version); err != nil {
			t.Fatal(err)
		}
	}
	out, err := mod.Format()
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the generated code does not compile: go vet: %v\n%s", err, out)
	}
}
