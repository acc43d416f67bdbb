package host_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
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
	go func() { done <- host.Main(ctx, "agent", cfg, nil, &stdout, &stderr) }()

	want := "card      http://" + addr + runtime.AgentCardPath + "\nJSONRPC   http://" + addr + "/a2a\n"
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
