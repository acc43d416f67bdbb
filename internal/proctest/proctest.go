// Package proctest runs agents as real processes in tests: it builds a
// program, starts it, reads the endpoint lines it prints on start (the card,
// one line per binding, the store), gives generated clients for every
// binding, and kills it with SIGKILL to simulate a crash. It also has a
// webhook receiver on loopback that records every push notification and can
// be told to refuse some of them. The crash tests of examples/echo and of
// scaffolded agents (cmd/a2a-scaffold) use it.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// GoTool is the go command of the running toolchain when GOROOT names one,
// else the one on PATH.
func GoTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

// Options says how to start a process.
type Options struct {
	Args []string
	// Env is added to the test's environment.
	Env []string
	// Dir is the working directory; "" means the test's.
	Dir string
	// Timeout bounds the wait for the endpoint lines; 0 means 30 s.
	Timeout time.Duration
}

// Process is a running agent.
type Process struct {
	// Endpoints maps the names of the printed lines to their values:
	// "card" (from "agent card" or "card"), the protocol bindings
	// ("JSONRPC", "HTTP+JSON", "GRPC": the first line of each) and
	// "store".
	Endpoints map[string]string

	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	out    *lineWriter
	errs   *buffer
}

// Start runs bin and waits until it has printed its "store" line (the last
// of its endpoint lines). The process is killed when the test ends, if it
// still runs then.
func Start(t testing.TB, bin string, o Options) *Process {
	t.Helper()
	cmd := exec.Command(bin, o.Args...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Dir = o.Dir
	p := &Process{
		name:   filepath.Base(bin),
		cmd:    cmd,
		exited: make(chan struct{}),
		out:    &lineWriter{changed: make(chan struct{}, 1)},
		errs:   &buffer{},
	}
	cmd.Stdout, cmd.Stderr = p.out, p.errs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if eps, ok := p.out.endpoints(); ok {
			p.Endpoints = eps
			return p
		}
		select {
		case <-p.out.changed:
		case <-p.exited:
			if eps, ok := p.out.endpoints(); ok { // printed, then exited at once
				p.Endpoints = eps
				return p
			}
			t.Fatalf("%s %q exited (%v) before printing its endpoints; stdout:\n%s\nstderr:\n%s",
				p.name, o.Args, cmd.ProcessState, p.out.text(), p.errs.String())
		case <-deadline.C:
			t.Fatalf("%s %q printed no store line within %v; stdout:\n%s\nstderr:\n%s",
				p.name, o.Args, timeout, p.out.text(), p.errs.String())
		}
	}
}

// Kill sends SIGKILL — the process gets no chance to clean up, as in a
// crash or an OOM kill — and waits until it is gone.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		select {
		case <-p.exited:
			t.Fatalf("%s had already exited (%v); stderr:\n%s", p.name, p.cmd.ProcessState, p.errs.String())
		default:
			t.Fatalf("kill -9 %s: %v", p.name, err)
		}
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running 10 s after SIGKILL", p.name)
	}
}

// Stop sends SIGTERM and waits up to 10 s for a clean exit, which it
// requires.
func (p *Process) Stop(t testing.TB) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Fatalf("%s still running 10 s after SIGTERM; stderr:\n%s", p.name, p.errs.String())
	}
	if !p.cmd.ProcessState.Success() {
		t.Errorf("%s exited with %v after SIGTERM; stderr:\n%s", p.name, p.cmd.ProcessState, p.errs.String())
	}
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stderr is what the process wrote to its standard error so far.
func (p *Process) Stderr() string { return p.errs.String() }

// Bindings are the protocol bindings, in the order the tests go through
// them.
var Bindings = runtime.Bindings()

// Client returns a generated client for the printed endpoint of binding
// (runtime.BindingJSONRPC, BindingHTTPJSON or BindingGRPC).
func (p *Process) Client(t testing.TB, binding runtime.Binding, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	url := p.Endpoints[binding.String()]
	if url == "" {
		t.Fatalf("%s printed no %s endpoint (endpoints %v)", p.name, binding, p.Endpoints)
	}
	spec, ok := runtime.BindingSpecOf(binding)
	if !ok {
		t.Fatalf("unknown binding %q", binding)
	}
	tr, err := spec.NewTransport(url, runtime.ClientDefaults(&a2av1.A2AServiceDesc, opts)...)
	if err != nil {
		t.Fatalf("%s client for %s: %v", binding.Title(), url, err)
	}
	return a2av1.NewA2AServiceClient(tr)
}

// Clients returns a client for every binding of Bindings, by binding.
func (p *Process) Clients(t testing.TB) map[runtime.Binding]a2av1.A2AServiceClient {
	t.Helper()
	out := map[runtime.Binding]a2av1.A2AServiceClient{}
	for _, b := range Bindings {
		out[b] = p.Client(t, b)
	}
	return out
}

// lineWriter is a process's standard output: it keeps every line and the
// endpoint lines' values.
type lineWriter struct {
	mu      sync.Mutex
	all     []byte
	partial []byte
	eps     map[string]string
	changed chan struct{}
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, b...)
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		if name, value, ok := ParseLine(line); ok {
			if w.eps == nil {
				w.eps = map[string]string{}
			}
			if _, seen := w.eps[name]; !seen {
				w.eps[name] = value
			}
		}
	}
	select {
	case w.changed <- struct{}{}:
	default:
	}
	return len(b), nil
}

// endpoints returns a copy of the endpoints once the store line is in.
func (w *lineWriter) endpoints() (map[string]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.eps["store"] == "" {
		return nil, false
	}
	out := make(map[string]string, len(w.eps))
	for k, v := range w.eps {
		out[k] = v
	}
	return out, true
}

func (w *lineWriter) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.all)
}

// ParseLine reads one endpoint line as examples/echo ("agent card  URL",
// "JSONRPC     URL", "store       sqlite:…") and host.Main ("card      URL",
// "GRPC      host:port", "store     …") print them: the name is "card",
// a binding name or "store"; the value is the last word, or for "store" the
// rest of the line.
func ParseLine(line string) (name, value string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", "", false
	}
	switch {
	case f[0] == "store":
		return "store", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "store")), true
	case len(f) == 3 && f[0] == "agent" && f[1] == "card", len(f) == 2 && f[0] == "card":
		return "card", f[len(f)-1], true
	case len(f) == 2 && runtime.Binding(f[0]).Known():
		return f[0], f[1], true
	}
	return "", "", false
}

// buffer is a concurrency-safe byte buffer.
type buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Poll calls f every 20 ms until it returns true, at most for d; it reports
// whether f did. A test uses it for conditions that converge, with a bound.
func Poll(d time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if f() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Describe is a short rendering of a stream event for failure messages.
func Describe(ev *a2av1.StreamResponse) string {
	switch {
	case ev.GetTask() != nil:
		return fmt.Sprintf("task %s %s", ev.GetTask().GetId(), ev.GetTask().GetStatus().GetState())
	case ev.GetStatusUpdate() != nil:
		return fmt.Sprintf("status %s %s", ev.GetStatusUpdate().GetTaskId(), ev.GetStatusUpdate().GetStatus().GetState())
	case ev.GetArtifactUpdate() != nil:
		return fmt.Sprintf("artifact %s %s", ev.GetArtifactUpdate().GetTaskId(), ev.GetArtifactUpdate().GetArtifact().GetArtifactId())
	case ev.GetMessage() != nil:
		return "message " + ev.GetMessage().GetMessageId()
	}
	return "empty event"
}
