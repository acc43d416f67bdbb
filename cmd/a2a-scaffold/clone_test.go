package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2agen/a2agen/internal/testdir"
)

// TestFromAClone follows the README's "from a clone" route as written, in
// a clean copy of this checkout committed to a fresh git repository (the
// clone), with nothing reachable but the Go module proxy: `make build`
// there (a2a-scaffold --version names the clone's commit),
// `bin/a2a-scaffold new weather --dir ../weather` (a development build: the
// project's go.mod replaces a2agen with the clone by itself), then the next
// step a2a-scaffold prints, which must be the README's last line, run as
// printed: `make test` passes and `make run` serves the agent until the
// test stops it with SIGTERM. Last, the project is committed and `make
// build` stamps its commit: bin/weather -version names it, and the a2agen
// clone it was built against.
func TestFromAClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a2agen's commands and a project from a copy of the checkout")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	for _, tool := range []string{"git", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	steps := readmeCloneRoute(t, filepath.Join(root, "README.md"))

	// The same directory on every run (testdir.Stable): the build cache
	// keys what is built without -trimpath by directory, so only the first
	// run compiles the clone.
	work := testdir.Stable(t, "clone", root)
	clone := filepath.Join(work, "a2agen")
	copyCheckout(t, root, clone)
	commit := gitCommitAll(t, clone)

	// The README's lines after `git clone … && cd a2agen`, in the clone.
	if len(steps) != 4 || !strings.HasPrefix(steps[0], "git clone ") || !strings.HasSuffix(steps[0], "&& cd a2agen") {
		t.Fatalf("README's from-a-clone block: want git clone && cd a2agen, make build, a2a-scaffold new, the next step; got %q", steps)
	}
	shell(t, clone, steps[1])
	if out := shell(t, clone, "bin/a2a-scaffold --version"); !strings.Contains(out, " commit "+commit+" go") {
		t.Errorf("bin/a2a-scaffold --version does not name the clone's commit %s (clean):\n%s", commit, out)
	}
	out := shell(t, clone, steps[2])
	next := regexp.MustCompile(`(?m)^next: (.*)$`).FindStringSubmatch(out)
	if next == nil {
		t.Fatalf("a2a-scaffold new printed no next step:\n%s", out)
	}
	if next[1] != steps[3] {
		t.Errorf("a2a-scaffold new printed the next step %q; the README says %q", next[1], steps[3])
	}
	project := filepath.Join(work, "weather")
	gomod, err := os.ReadFile(filepath.Join(project, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), "\nreplace github.com/a2agen/a2agen => "+filepath.ToSlash(clone)+"\n") {
		t.Errorf("go.mod does not replace a2agen with the clone %s:\n%s", clone, gomod)
	}

	// The printed next step, as printed: make test, then make run, which
	// serves until stopped.
	runUntilServing(t, clone, next[1])

	projectCommit := gitCommitAll(t, project)
	shell(t, project, "make build")
	version := shell(t, project, "bin/weather -version")
	for _, want := range []string{"weather (devel) commit " + projectCommit + " go", "\na2agen v0.1.0 => " + filepath.ToSlash(clone) + "\n"} {
		if !strings.Contains(version, want) {
			t.Errorf("bin/weather -version lacks %q:\n%s", want, version)
		}
	}
}

// readmeCloneRoute returns the commands of the README's code block that
// starts with `git clone`, without their comments.
func readmeCloneRoute(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for block := range strings.SplitSeq(string(data), "```sh\n") {
		body, _, _ := strings.Cut(block, "```")
		if !strings.HasPrefix(body, "git clone ") {
			continue
		}
		var steps []string
		for line := range strings.SplitSeq(strings.TrimSpace(body), "\n") {
			if cmd, _, _ := strings.Cut(line, " #"); strings.TrimSpace(cmd) != "" {
				steps = append(steps, strings.TrimSpace(cmd))
			}
		}
		return steps
	}
	t.Fatalf("%s has no code block starting with git clone", path)
	return nil
}

// copyCheckout copies the files git knows of in src (tracked, and untracked
// ones it does not ignore: the work tree under test) into dst.
func copyCheckout(t *testing.T, src, dst string) {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for name := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		from := filepath.Join(src, filepath.FromSlash(name))
		info, err := os.Lstat(from)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// gitCommitAll makes dir a git repository holding everything in it and
// returns the commit.
func gitCommitAll(t *testing.T, dir string) string {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=a2agen test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "as cloned"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		// A fixed date: the same tree is the same commit on every run, so
		// what make build stamps and links does not change between runs.
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// cloneEnv is the environment of the route's commands: this machine's (its
// Go module proxy and caches), no workspace.
func cloneEnv() []string { return append(os.Environ(), "GOWORK=off") }

// shell runs a command line with sh in dir and returns its output; it
// fails the test when the command fails.
func shell(t *testing.T, dir, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir, cmd.Env = dir, cloneEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s (in %s): %v\n%s", line, dir, err, out)
	}
	return string(out)
}

// runUntilServing runs a command line that ends by serving the agent (make
// run), waits until the agent prints its store line, then sends SIGTERM to
// the command's process group and waits for it to end.
func runUntilServing(t *testing.T, dir, line string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, cloneEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	var log bytes.Buffer
	serving, scanned := make(chan bool, 1), make(chan struct{})
	go func() {
		defer close(scanned)
		s := bufio.NewScanner(pr)
		found := false
		for s.Scan() {
			log.WriteString(s.Text() + "\n")
			if !found && strings.HasPrefix(s.Text(), "store ") {
				found = true
				serving <- true
			}
		}
		if !found {
			serving <- false
		}
	}()
	select {
	case ok := <-serving:
		if !ok {
			<-done
			<-scanned
			t.Fatalf("%s ended before the agent served:\n%s", line, log.String())
		}
	case <-time.After(20 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		<-scanned
		t.Fatalf("%s: the agent did not serve within 20 minutes:\n%s", line, log.String())
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
		<-scanned
	case <-time.After(time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		<-scanned
		t.Errorf("%s did not end within a minute of SIGTERM", line)
	}
}
