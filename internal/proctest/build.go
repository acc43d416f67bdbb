package proctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Build returns the path of an executable of the package pkg (relative to
// dir, e.g. "."), built with env added to the environment of the go
// command. It fails the test when the package does not build.
//
// Executables are shared: Build asks the go command for the one in the Go
// build cache (go run caches what it links, keyed by the content of every
// source file, the toolchain and the build settings), so a program that
// several tests, packages or runs start is linked once per change, and
// not at all when nothing changed since the last run. Within one test
// binary the answer is remembered, so later calls cost nothing.
func Build(t testing.TB, dir, pkg string, env ...string) string {
	t.Helper()
	start := time.Now()
	path, err := Executable(dir, pkg, env...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s (%v)", pkg, path, time.Since(start).Round(time.Millisecond))
	return path
}

// built remembers the executables of this test binary by directory,
// package and environment.
var built struct {
	sync.Mutex
	calls map[string]*buildCall
}

// buildCall is one build, which concurrent callers of the same key share.
type buildCall struct {
	once sync.Once
	path string
	err  error
}

// Executable is Build for code without a testing.TB (TestMain): it
// returns the path of the executable of pkg in dir, or an error with the
// go command's output.
func Executable(dir, pkg string, env ...string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	key := strings.Join(append([]string{abs, pkg}, env...), "\x00")
	built.Lock()
	if built.calls == nil {
		built.calls = map[string]*buildCall{}
	}
	c := built.calls[key]
	if c == nil {
		c = &buildCall{}
		built.calls[key] = c
	}
	built.Unlock()
	c.once.Do(func() { c.path, c.err = cachedExecutable(abs, pkg, env) })
	return c.path, c.err
}

// cachedExecutable gets the executable of pkg from the Go build cache,
// linking it there if it is not there yet. `go run -exec echo` prints the
// path of the executable it would run: in the cache when the link was
// cached before, else in a temporary directory the go command removes on
// exit, after caching the executable — so a second run prints the cached
// path. Where that does not work (no echo program, GOCACHE=off), the
// package is built into a temporary directory instead.
func cachedExecutable(dir, pkg string, env []string) (string, error) {
	if goruntime.GOOS != "windows" {
		cache := goEnv(dir, env, "GOCACHE")
		for range 2 {
			out, err := goCommand(dir, env, "run", "-exec", "echo", pkg)
			if err != nil {
				return "", err
			}
			path := strings.TrimSpace(out)
			if cache != "" && strings.HasPrefix(path, cache+string(filepath.Separator)) {
				if _, err := os.Stat(path); err == nil {
					return path, nil
				}
			}
		}
	}
	tmp, err := os.MkdirTemp("", "proctest-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(tmp, filepath.Base(dir))
	if pkg != "." {
		out = filepath.Join(tmp, filepath.Base(pkg))
	}
	if goruntime.GOOS == "windows" {
		out += ".exe"
	}
	if _, err := goCommand(dir, env, "build", "-o", out, pkg); err != nil {
		return "", err
	}
	return out, nil
}

// goEnv is the value of the go command's variable name, "" when it cannot
// be read.
func goEnv(dir string, env []string, name string) string {
	out, err := goCommand(dir, env, "env", name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// goCommand runs the go command with args in dir, env added to the
// environment, and returns its standard output; the error carries the
// command line and everything it printed.
func goCommand(dir string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, GoTool(), args...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(os.Environ()), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s in %s: %w\n%s%s", strings.Join(args, " "), dir, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String(), nil
}
