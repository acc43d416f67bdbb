// Package peerproc builds and runs the servers the interop tests and the
// load benchmark talk to — examples/echo and sdkpeer serve — as child
// processes, and reads the endpoints they print on start.
//
// Both servers print one line per endpoint, card first ("card http://…"
// or "agent card  http://…", then the JSON-RPC, HTTP+JSON and gRPC
// interfaces) and exit on SIGTERM (sdkpeer also when its standard input
// ends); Stop kills only a child that does not exit in time. examples/echo
// also prints its task store after the endpoints ("store       memory",
// "store       sqlite:/tmp/x.db"); it is recorded as the "store" entry of
// Process.Endpoints, which callers may wait for or ignore.
package peerproc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Build compiles the package pkg (a path relative to dir, e.g.
// "./examples/echo") into the executable out, using dir's go.mod; flags go
// to go build before the package (e.g. "-modfile=…", "-tags=…").
func Build(ctx context.Context, dir, out, pkg string, flags ...string) error {
	args := append(append([]string{"build", "-o", out}, flags...), pkg)
	cmd := exec.CommandContext(ctx, GoTool(), args...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", pkg, dir, err, msg)
	}
	return nil
}

// GoTool is the go command of the running toolchain when GOROOT names one,
// else "go" from PATH.
func GoTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// Process is a running server.
type Process struct {
	// Endpoints maps "card", "jsonrpc", "rest", "grpc" and "webhook" (a
	// push receiver's URL) to what the server printed: URLs, and host:port
	// for gRPC; and "store" to the
	// task store URL examples/echo prints (when it has been printed).
	Endpoints map[string]string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	logs   *Buffer
}

// Start runs bin with args (env is added to the current environment) and
// waits until it has printed every endpoint in want, at most timeout.
// Everything else the child writes goes to the returned process's Logs.
func Start(bin string, args, env, want []string, timeout time.Duration) (*Process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	logs := &Buffer{}
	out := &endpointWriter{endpoints: map[string]string{}, logs: logs, changed: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = out, logs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &Process{cmd: cmd, stdin: stdin, exited: make(chan struct{}), logs: logs}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		got, ok := out.snapshot(want)
		if ok {
			p.Endpoints = got
			return p, nil
		}
		select {
		case <-out.changed:
		case <-p.exited:
			return nil, fmt.Errorf("%s exited before printing its endpoints %v (got %v); output:\n%s", bin, want, got, Tail(logs.String(), 4000))
		case <-deadline.C:
			p.Stop(time.Second)
			return nil, fmt.Errorf("%s printed %v within %v, want %v; output:\n%s", bin, got, timeout, want, Tail(logs.String(), 4000))
		}
	}
}

// Logs is everything the child wrote except its endpoint lines.
func (p *Process) Logs() string { return p.logs.String() }

// Pid is the child's process id (for reading its CPU time in /proc).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop asks the child to end — its standard input closed and SIGTERM —
// waits up to grace for it to exit, then kills it. It returns once the
// child is gone.
func (p *Process) Stop(grace time.Duration) {
	_ = p.stdin.Close()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// endpointWriter is a child's standard output: it collects the endpoint
// lines and copies everything else to the logs.
type endpointWriter struct {
	mu        sync.Mutex
	partial   []byte
	endpoints map[string]string
	logs      *Buffer
	changed   chan struct{}
}

func (w *endpointWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		if k, v, ok := ParseEndpointLine(line); ok && w.endpoints[k] == "" {
			w.endpoints[k] = v
			select {
			case w.changed <- struct{}{}:
			default:
			}
		} else {
			_, _ = w.logs.Write([]byte("stdout: " + line + "\n"))
		}
	}
}

// snapshot copies the endpoints seen so far and reports whether all of want are among them.
func (w *endpointWriter) snapshot(want []string) (map[string]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := maps.Clone(w.endpoints)
	for _, k := range want {
		if got[k] == "" {
			return got, false
		}
	}
	return got, true
}

// ParseEndpointLine reads one "name address" line ("card http://…",
// "agent card  http://…", "jsonrpc: http://…", "HTTP+JSON=http://…",
// "GRPC 127.0.0.1:…"): the address is the first word holding "://" or a
// host:port, the name the words before it. Names are normalised to card,
// jsonrpc, rest and grpc. A line "store URL" (examples/echo's task store:
// "store       memory", "store       sqlite:/tmp/x.db") gives "store" and
// the rest of the line. Other lines give ok=false.
func ParseEndpointLine(line string) (name, addr string, ok bool) {
	if rest, found := strings.CutPrefix(strings.TrimSpace(line), "store"); found && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		if url := strings.TrimSpace(rest); url != "" {
			return "store", url, true
		}
		return "", "", false
	}
	fields := strings.Fields(strings.ReplaceAll(line, "=", " "))
	for i, f := range fields {
		if i == 0 || !isAddress(f) {
			continue
		}
		name = strings.ToLower(strings.TrimRight(strings.Join(fields[:i], " "), ":"))
		addr = f
		break
	}
	switch name {
	case "card", "agent card", "agent-card", "agentcard":
		return "card", addr, true
	case "jsonrpc", "json-rpc":
		return "jsonrpc", addr, true
	case "rest", "http+json", "http-json", "httpjson":
		return "rest", addr, true
	case "grpc":
		return "grpc", addr, true
	case "webhook":
		return "webhook", addr, true
	}
	return "", "", false
}

// isAddress reports whether s looks like a URL or a host:port.
func isAddress(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.LastIndexByte(s, ':')
	return i > 0 && i < len(s)-1 && strings.Trim(s[i+1:], "0123456789") == ""
}

// Buffer keeps the last 256 KiB written to it (a busy server's logs must
// not grow without bound under load); it is safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf []byte
}

const bufferLimit = 256 << 10

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - bufferLimit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Tail is the last n bytes of s, marked when cut.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
