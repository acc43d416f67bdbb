package host_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// startLimitedAgent starts an agent without security on an HTTP and a gRPC
// listener with the given limits and returns the two addresses.
func startLimitedAgent(t *testing.T, limits host.Limits) (httpAddr, grpcAddr string) {
	t.Helper()
	return startSkillAgent(t, limits, func(_ context.Context, req *server.Request, ev *server.Events) error {
		return ev.Reply(server.AgentMessage(req.Text()))
	})
}

// startSkillAgent is startLimitedAgent with run as the agent's one skill.
func startSkillAgent(t *testing.T, limits host.Limits, run func(context.Context, *server.Request, *server.Events) error) (httpAddr, grpcAddr string) {
	t.Helper()
	card, err := runtime.MarshalJSON(&a2av1.AgentCard{
		Name: "limited", Description: "d", Version: "1",
		Capabilities:       &a2av1.AgentCapabilities{Streaming: proto.Bool(true)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []*a2av1.AgentSkill{{Id: "a", Name: "A", Description: "a", Tags: []string{"t"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	addrs := map[string]string{}
	a, err := host.Start(host.Config{
		CardJSON: card,
		Bindings: []host.Binding{
			{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"},
			{Protocol: runtime.BindingGRPC, Address: ":9090"},
		},
		Skills:        []host.Skill{{ID: "a", Run: run}},
		Limits:        limits,
		ShutdownGrace: -1,
		Listen: func(network, address string) (net.Listener, error) {
			ln, err := net.Listen(network, "127.0.0.1:0")
			if err == nil {
				mu.Lock()
				addrs[address] = ln.Addr().String()
				mu.Unlock()
			}
			return ln, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown(context.Background()) })
	return addrs[":8080"], addrs[":9090"]
}

// closedWithin reports whether the server closes conn within d (the test
// reads and discards what it sends).
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestLimitsOnTheHTTPListener: a body sent slowly and an idle keep-alive
// connection are closed after the read and idle timeouts (before, only
// ReadHeaderTimeout was set, and both stayed open for minutes), and a
// header block over MaxHeaderBytes is refused with 431.
func TestLimitsOnTheHTTPListener(t *testing.T) {
	httpAddr, _ := startLimitedAgent(t, host.Limits{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, MaxHeaderBytes: 8 << 10})

	slow, err := net.Dial("tcp", httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	if !closedWithin(slow, 10*time.Second) {
		t.Error("a request whose body never completes was still open after 10 s with a ReadTimeout of 300 ms")
	}

	idle, err := net.Dial("tcp", httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !closedWithin(idle, 10*time.Second) {
		t.Error("an idle keep-alive connection was still open after 10 s with an IdleTimeout of 300 ms")
	}

	big, err := http.NewRequest(http.MethodGet, "http://"+httpAddr+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	big.Header.Set("X-Big", strings.Repeat("b", 16<<10))
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err = hc.Do(big)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 16 KiB header with MaxHeaderBytes 8 KiB: %s, want 431", resp.Status)
	}
}

// TestLimitsOnTheGRPCListener: metadata over MaxHeaderBytes is refused
// (grpc-go's default allows 16 MB).
func TestLimitsOnTheGRPCListener(t *testing.T) {
	_, grpcAddr := startLimitedAgent(t, host.Limits{MaxHeaderBytes: 8 << 10})
	cc, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	hc := healthpb.NewHealthClient(cc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("health check: %v", err)
	}
	bigCtx := metadata.AppendToOutgoingContext(ctx, "x-big", strings.Repeat("b", 16<<10))
	if _, err := hc.Check(bigCtx, &healthpb.HealthCheckRequest{}); err == nil {
		t.Error("a call with 16 KiB of metadata was served with MaxHeaderBytes 8 KiB")
	}
}

// TestInterruptedTaskTTLDefault: Main keeps tasks waiting for input 24 h
// unless told otherwise.
func TestInterruptedTaskTTLDefault(t *testing.T) {
	if got := host.DefaultLimits().InterruptedTaskTTL; got != 24*time.Hour {
		t.Errorf("default InterruptedTaskTTL = %v, want 24h", got)
	}
}

// TestLimitsReachTheServer: the budgets of Config.Limits are the server's
// (Limits.ServerOptions): a message over MaxPartsPerMessage is
// InvalidParams naming it, with the configured value.
func TestLimitsReachTheServer(t *testing.T) {
	httpAddr, _ := startLimitedAgent(t, host.Limits{MaxPartsPerMessage: 2})
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + httpAddr + "/")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg := func(parts int) *a2av1.SendMessageRequest {
		m := &a2av1.Message{MessageId: fmt.Sprintf("m%d", parts), Role: a2av1.Role_ROLE_USER}
		for range parts {
			m.Parts = append(m.Parts, server.TextPart("x"))
		}
		return &a2av1.SendMessageRequest{Message: m}
	}
	if _, err := c.SendMessage(ctx, msg(2)); err != nil {
		t.Fatalf("2 parts: %v", err)
	}
	_, err := c.SendMessage(ctx, msg(3))
	var re *runtime.Error
	if !errors.As(err, &re) || re.Code() != runtime.CodeInvalidParams || re.Metadata()["limit"] != "MaxPartsPerMessage" || re.Metadata()["limitValue"] != "2" {
		t.Fatalf("3 parts with MaxPartsPerMessage 2: %v, want InvalidParams naming MaxPartsPerMessage = 2", err)
	}
}
