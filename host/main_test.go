package host_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// syncBuffer is a strings.Builder safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestMainExitCodes pins what scaffolded programs answer: 2 for flags they
// do not know, 1 for a TLS file that cannot be read.
func TestMainExitCodes(t *testing.T) {
	pub, _ := testCards(t)
	cfg := host.Config{CardJSON: pub, Skills: []host.Skill{{ID: "a", Run: replyWith("a")}, {ID: "b", Run: replyWith("b")}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: freeAddr(t), Path: "/"}}}
	var stdout, stderr syncBuffer
	if code := host.Main(context.Background(), "agent", cfg, []string{"-no-such-flag"}, &stdout, &stderr); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2 (stderr %q)", code, stderr.String())
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	if code := host.Main(context.Background(), "agent", cfg, []string{"-tls-cert", missing, "-tls-key", missing}, &stdout, &stderr); code != 1 {
		t.Errorf("unreadable TLS files: exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "missing.pem") {
		t.Errorf("stderr %q does not name the file that could not be read", stderr.String())
	}
}

// TestMainServesUntilCanceled starts an agent through Main, waits for the
// endpoint lines (card first), and stops it by cancelling the context.
func TestMainServesUntilCanceled(t *testing.T) {
	pub, _ := testCards(t)
	addr := freeAddr(t)
	cfg := host.Config{CardJSON: pub, Skills: []host.Skill{{ID: "a", Run: replyWith("a")}, {ID: "b", Run: replyWith("b")}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: addr, Path: "/a2a"}}}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- host.Main(ctx, "agent", cfg, []string{"-store", "memory"}, &stdout, &stderr) }()

	want := "card      http://" + addr + runtime.AgentCardPath + "\nJSONRPC   http://" + addr + "/a2a\nstore     memory\n"
	deadline := time.Now().Add(10 * time.Second)
	for stdout.String() != want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := stdout.String(); got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel, want 0 (stderr %q)", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Main still running 10s after its context was canceled")
	}
}

// plainCard is a card without security, for Main tests that call the agent.
func plainCard(t *testing.T) []byte {
	t.Helper()
	card := &a2av1.AgentCard{
		Name: "plain", Description: "d", Version: "1", Capabilities: &a2av1.AgentCapabilities{},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{Id: "a", Name: "A", Description: "a", Tags: []string{"t"}}},
	}
	b, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// completeWith is a skill that completes a task with the message's text.
func completeWith(_ context.Context, req *server.Request, ev *server.Events) error {
	return ev.Complete(server.AgentMessage(req.Text()))
}

// runMain starts Main with args in the background and returns its stdout
// once it printed want lines, and a function that stops it and returns its
// exit code. Without a -store argument the agent keeps its tasks in memory,
// so that tests write nothing into the package directory.
func runMain(t *testing.T, cfg host.Config, args []string, lines int) (stdout string, stop func() int) {
	t.Helper()
	if !slices.Contains(args, "-store") {
		args = append([]string{"-store", "memory"}, args...)
	}
	return startMain(t, cfg, args, lines)
}

// startMain is runMain with args as they are.
func startMain(t *testing.T, cfg host.Config, args []string, lines int) (stdout string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- host.Main(ctx, "agent", cfg, args, &out, &errOut) }()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < lines && time.Now().Before(deadline) {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("Main exited with %d: %s", code, errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	stop = func() int {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Logf("Main's stderr: %s", errOut.String())
			}
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("Main still running 10s after its context was canceled")
			return -1
		}
	}
	t.Cleanup(func() { cancel() })
	return out.String(), stop
}

// TestMainListen checks that -listen moves a binding to another address:
// the agent answers there and prints it, and the configured address stays
// free.
func TestMainListen(t *testing.T) {
	configured, moved := freeAddr(t), freeAddr(t)
	cfg := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: configured, Path: "/"}}}
	out, stop := runMain(t, cfg, []string{"-listen", configured + "=" + moved}, 3)
	if !strings.Contains(out, "JSONRPC   http://"+moved) {
		t.Errorf("stdout %q does not show the moved address %s", out, moved)
	}
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + moved + "/")
	if _, err := c.SendMessage(context.Background(), message("hi", "")); err != nil {
		t.Errorf("calling the agent on the moved address: %v", err)
	}
	if ln, err := net.Listen("tcp", configured); err != nil {
		t.Errorf("the configured address %s is still taken: %v", configured, err)
	} else {
		ln.Close()
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// TestMainFlagErrors pins the answers to bad flags: exit 2 and a message
// that says what to fix.
func TestMainFlagErrors(t *testing.T) {
	addr := freeAddr(t)
	cfg := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: addr, Path: "/"}}}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-listen", "127.0.0.1:1=0.0.0.0:8080"}, 2, "no binding listens on 127.0.0.1:1; the agent's addresses are " + addr},
		{[]string{"-listen", "0.0.0.0:8080"}, 2, `"0.0.0.0:8080" is not FROM=TO`},
		{[]string{"-listen", addr + "=a:1", "-listen", addr + "=b:1"}, 2, addr + " is replaced twice"},
		{[]string{"-max-terminal-tasks", "-1"}, 2, "must not be negative"},
		{[]string{"-terminal-task-ttl", "soon"}, 2, "invalid value"},
		{[]string{"extra"}, 2, `takes no arguments, got ["extra"]`},
		{[]string{"-help"}, 0, "-listen " + addr + "=0.0.0.0:8080"},
		{[]string{"-help"}, 0, "  agent -store memory\n"},
		{[]string{"-help"}, 0, "  A2A_STORE=sqlite:/var/lib/agent/agent.db agent\n"},
		{[]string{"-help"}, 0, "-store URL"},
		{[]string{"-help"}, 0, "\n$A2A_NODE_NAME names this machine"},
	} {
		var stdout, stderr syncBuffer
		code := host.Main(context.Background(), "agent", cfg, tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}

// TestMainTerminalTasksWithoutBound: -max-terminal-tasks 0 keeps every
// finished task (the flag's 0 is Limits' negative: no bound).
func TestMainTerminalTasksWithoutBound(t *testing.T) {
	cfg, addr := plainConfig(t)
	_, stop := runMain(t, cfg, []string{"-max-terminal-tasks", "0", "-terminal-task-ttl", "0"}, 3)
	defer stop()
	ctx := context.Background()
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + addr + "/")
	var ids []string
	for _, text := range []string{"first", "second", "third"} {
		resp, err := c.SendMessage(ctx, message(text, ""))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.GetTask().GetId())
	}
	for _, id := range ids {
		if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id}); err != nil {
			t.Errorf("GetTask %s without a bound: %v", id, err)
		}
	}
}

// TestMainTaskRetention checks that -max-terminal-tasks bounds the tasks
// the agent keeps: the oldest finished task is gone, the newest is kept.
func TestMainTaskRetention(t *testing.T) {
	addr := freeAddr(t)
	cfg := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: addr, Path: "/"}}}
	_, stop := runMain(t, cfg, []string{"-max-terminal-tasks", "1"}, 3)
	defer stop()
	ctx := context.Background()
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + addr + "/")
	var ids []string
	for _, text := range []string{"first", "second"} {
		resp, err := c.SendMessage(ctx, message(text, ""))
		if err != nil || resp.GetTask().GetId() == "" {
			t.Fatalf("SendMessage %q = %v, %v; want a task", text, resp, err)
		}
		ids = append(ids, resp.GetTask().GetId())
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: ids[0]}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("GetTask of the oldest finished task: %v, want TaskNotFound", err)
	}
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: ids[1]}); err != nil {
		t.Errorf("GetTask of the newest finished task: %v", err)
	}
}
