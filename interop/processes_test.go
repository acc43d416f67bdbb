package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2agen/a2agen/interop/internal/peerproc"
)

// Binaries built once by TestMain: the SDK peer from this module (at the
// SDK version go.mod pins, and at v2.3.1 from go.sdk-v2.3.1.mod), and
// examples/echo from the main module (built there, with the main module's
// own go.mod, as its users build it).
var (
	sdkpeerBin     string
	sdkpeerV231Bin string
	sdkpeer03Bin   string // the SDK's v0.3 line, ./sdkpeer03 (a module of its own)
	echoBin        string
	echoBuildErr   error
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "a2agen-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sdkpeerBin = filepath.Join(dir, "sdkpeer")
	if err := peerproc.Build(ctx, ".", sdkpeerBin, "./sdkpeer"); err != nil {
		fmt.Fprintln(os.Stderr, "interop: building the SDK peer:", err)
		return 1
	}
	sdkpeerV231Bin = filepath.Join(dir, "sdkpeer-v2.3.1")
	if err := peerproc.Build(ctx, ".", sdkpeerV231Bin, "./sdkpeer", "-modfile=go.sdk-v2.3.1.mod", "-tags=sdk_v2_3"); err != nil {
		fmt.Fprintln(os.Stderr, "interop: building the SDK peer at v2.3.1:", err)
		return 1
	}
	sdkpeer03Bin = filepath.Join(dir, "sdkpeer03")
	if err := peerproc.Build(ctx, "sdkpeer03", sdkpeer03Bin, "."); err != nil {
		fmt.Fprintln(os.Stderr, "interop: building the SDK v0.3 line's peer:", err)
		return 1
	}
	setupJSPeer(ctx)
	echoBin = filepath.Join(dir, "echo")
	echoBuildErr = peerproc.Build(ctx, "..", echoBin, "./examples/echo")
	if echoBuildErr == nil {
		discoverEchoFlags()
	}
	return m.Run()
}

// peer is a server running as a child process of the test.
type peer struct {
	name      string
	endpoints map[string]string // "card", "jsonrpc", "rest", "grpc" → URL or host:port
	proc      *peerproc.Process
}

// startPeer runs bin with args, waits (bounded) until it has printed the
// endpoints named in want, and stops it when the test ends (standard input
// closed, killed after a grace period).
func startPeer(t *testing.T, name, bin string, want []string, args ...string) *peer {
	t.Helper()
	proc, err := peerproc.Start(bin, args, nil, want, 30*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		proc.Stop(5 * time.Second)
		if t.Failed() {
			t.Logf("%s output:\n%s", name, peerproc.Tail(proc.Logs(), 4000))
		}
	})
	return &peer{name: name, endpoints: proc.Endpoints, proc: proc}
}

// stepReport mirrors one JSON line of "sdkpeer client".
type stepReport struct {
	Scenario string         `json:"scenario"`
	Binding  string         `json:"binding"`
	Step     string         `json:"step"`
	Op       string         `json:"op"`
	OK       bool           `json:"ok"`
	Reason   string         `json:"reason"`
	Error    string         `json:"error"`
	Problem  string         `json:"problem"`
	Fields   map[string]any `json:"fields"`
}

// sdkClientRun is the outcome of one "sdkpeer client" run.
type sdkClientRun struct {
	steps  []stepReport
	err    error  // non-nil when the process failed (some step failed)
	stderr string // the peer's diagnostics
}

func (r sdkClientRun) step(name string) (stepReport, bool) {
	for _, s := range r.steps {
		if s.Step == name {
			return s, true
		}
	}
	return stepReport{}, false
}

// sdkBuild is one build of sdkpeer: the SDK version it was built with.
type sdkBuild struct {
	version string
	bin     *string
}

// sdkBuilds are the SDK versions the v0.3 tests run: the one go.mod pins,
// and v2.3.1, the last whose v0.3 HTTP+JSON layer speaks the JSON-RPC object
// form (kind discriminators, snake_case keys) instead of ProtoJSON.
var sdkBuilds = []sdkBuild{{"v2.4.0", &sdkpeerBin}, {"v2.3.1", &sdkpeerV231Bin}}

// runSDKClient runs one scenario of the SDK client against a card.
func runSDKClient(t *testing.T, cardURL, binding, scenario string, extra ...string) sdkClientRun {
	t.Helper()
	return runSDKClientOf(t, sdkpeerBin, cardURL, binding, scenario, extra...)
}

// runSDKClientOf runs one scenario of the SDK client built as bin.
func runSDKClientOf(t *testing.T, bin, cardURL, binding, scenario string, extra ...string) sdkClientRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args := append([]string{"client", "-card", cardURL, "-binding", binding, "-scenario", scenario}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	run := sdkClientRun{err: err, stderr: stderr.String()}
	dec := json.NewDecoder(&stdout)
	for {
		var s stepReport
		if derr := dec.Decode(&s); derr != nil {
			if !errors.Is(derr, io.EOF) {
				t.Errorf("sdkpeer client printed something that is not a step report: %v", derr)
			}
			break
		}
		run.steps = append(run.steps, s)
	}
	return run
}

// reportSteps turns each step of a run into a subtest, so that a failure
// names the scenario, binding and step.
func reportSteps(t *testing.T, run sdkClientRun) {
	t.Helper()
	if len(run.steps) == 0 {
		t.Fatalf("sdkpeer client ran no step (%v); stderr:\n%s", run.err, run.stderr)
	}
	for _, s := range run.steps {
		t.Run(s.Step, func(t *testing.T) {
			if !s.OK {
				t.Errorf("%s: %s (error reason %q: %s; fields %v)", s.Op, s.Problem, s.Reason, s.Error, s.Fields)
			}
		})
	}
	if run.err != nil && !t.Failed() {
		t.Errorf("sdkpeer client failed although every step passed: %v; stderr:\n%s", run.err, run.stderr)
	}
}
