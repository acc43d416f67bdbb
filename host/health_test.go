package host_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/postgres"
)

var healthBindings = []host.Binding{
	{Protocol: runtime.BindingJSONRPC, Address: "a:1", Path: "/"},
	{Protocol: runtime.BindingHTTPJSON, Address: "b:2", Path: "/rest"},
	{Protocol: runtime.BindingGRPC, Address: "c:3"},
}

// get answers GET url with the status and body.
func get(t *testing.T, hc *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// base is the root URL of binding b's HTTP listener.
func base(a *hosttest.Agent, b host.Binding) string {
	return a.URL(host.Binding{Protocol: b.Protocol, Address: b.Address, Path: "/"})
}

func healthClient(t *testing.T, a *hosttest.Agent, b host.Binding) healthpb.HealthClient {
	t.Helper()
	cc, err := grpc.NewClient(a.URL(b), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return healthpb.NewHealthClient(cc)
}

func grpcHealth(t *testing.T, hc healthpb.HealthClient, service string) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatalf("Check(%q): %v", service, err)
	}
	return resp.GetStatus()
}

// TestHealthChecks: every HTTP listener answers /healthz and /readyz (also
// to HEAD), every gRPC listener grpc.health.v1 for the server and the A2A
// service.
func TestHealthChecks(t *testing.T) {
	a := hosttest.Start(t, host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}}, Bindings: healthBindings})
	hc := a.HTTPClient()
	for _, b := range healthBindings[:2] {
		for _, path := range []string{host.HealthzPath, host.ReadyzPath} {
			resp, err := hc.Get(base(a, b) + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "ok\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("GET %s%s: %d %q %v", base(a, b), path, resp.StatusCode, body, resp.Header)
			}
			if resp, err := hc.Head(base(a, b) + path); err != nil || resp.StatusCode != 200 {
				t.Errorf("HEAD %s%s: %v %v", base(a, b), path, resp, err)
			}
		}
	}
	h := healthClient(t, a, healthBindings[2])
	for _, service := range []string{"", "lf.a2a.v1.A2AService"} {
		if st := grpcHealth(t, h, service); st != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("gRPC health of %q: %v, want SERVING", service, st)
		}
	}
	_, err := h.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "no.Such"})
	if status.Code(err) != codes.NotFound {
		t.Errorf("gRPC health of an unknown service: %v, want NotFound", err)
	}
	if err := a.Ready(context.Background()); err != nil {
		t.Errorf("Ready = %v", err)
	}
}

// flakyStore is a store whose Ping fails while down is set.
type flakyStore struct {
	store.Store
	down atomic.Bool
}

func (f *flakyStore) Ping(context.Context) error {
	if f.down.Load() {
		return errors.New("connection refused (secret-db.internal:5432)")
	}
	return nil
}

// logCounter counts the log records whose message contains a text.
type logCounter struct {
	slog.Handler
	text string
	n    *atomic.Int32
}

func (logCounter) Enabled(context.Context, slog.Level) bool { return true }

func (l logCounter) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, l.text) {
		l.n.Add(1)
	}
	return nil
}

// TestReadinessFollowsStore: while the store does not answer, /readyz
// answers 503 "store unreachable" (the store's own error goes to the log,
// once, not to the caller) and gRPC health checks NOT_SERVING; both recover
// with the store. /healthz stays 200 throughout.
func TestReadinessFollowsStore(t *testing.T) {
	mem := store.NewMemory()
	defer mem.Close()
	st := &flakyStore{Store: mem}
	var notReadyLogs atomic.Int32
	logger := slog.New(logCounter{Handler: slog.DiscardHandler, text: "not ready", n: &notReadyLogs})
	a := hosttest.Start(t, host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: healthBindings, Store: st, Logger: logger})
	hc := a.HTTPClient()
	h := healthClient(t, a, healthBindings[2])
	ready := base(a, healthBindings[0]) + host.ReadyzPath

	if code, _ := get(t, hc, ready); code != 200 {
		t.Fatalf("readyz %d with the store up", code)
	}
	st.down.Store(true)
	for range 3 {
		if code, body := get(t, hc, ready); code != 503 || body != "store unreachable\n" {
			t.Errorf("readyz with the store down: %d %q, want 503 store unreachable", code, body)
		}
	}
	if code, _ := get(t, hc, base(a, healthBindings[1])+host.HealthzPath); code != 200 {
		t.Errorf("healthz %d with the store down, want 200 (alive)", code)
	}
	if st := grpcHealth(t, h, ""); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("gRPC health with the store down: %v", st)
	}
	if err := a.Ready(context.Background()); !errors.Is(err, host.ErrStoreUnreachable) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Ready = %v, want ErrStoreUnreachable with the store's reason", err)
	}
	if n := notReadyLogs.Load(); n != 1 {
		t.Errorf("%d log lines for one outage, want 1", n)
	}
	st.down.Store(false)
	if code, body := get(t, hc, ready); code != 200 || body != "ok\n" {
		t.Errorf("readyz with the store back: %d %q", code, body)
	}
	if st := grpcHealth(t, h, "lf.a2a.v1.A2AService"); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health with the store back: %v", st)
	}
}

// TestReadinessPostgresRestart: an agent on PostgreSQL turns not ready when
// the database goes away and ready again when it comes back (a private
// server of the test, stopped and started).
func TestReadinessPostgresRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	srv := pgtest.StartServer(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, srv.URL, postgres.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := hosttest.Start(t, host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: healthBindings, Store: st, Logger: slog.New(slog.DiscardHandler)})
	hc := a.HTTPClient()
	h := healthClient(t, a, healthBindings[2])
	ready := base(a, healthBindings[0]) + host.ReadyzPath
	waitReady := func(what string, want int, wantGRPC healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body := get(t, hc, ready)
			if code == want && grpcHealth(t, h, "") == wantGRPC {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: readyz still %d %q after 30s, want %d", what, code, body, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitReady("database up", 200, healthpb.HealthCheckResponse_SERVING)
	srv.Stop(t)
	start := time.Now()
	waitReady("database stopped", 503, healthpb.HealthCheckResponse_NOT_SERVING)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("not ready only %v after the database stopped", d)
	}
	srv.Start(t)
	waitReady("database started again", 200, healthpb.HealthCheckResponse_SERVING)
}

// TestShutdownDelay: during Config.ShutdownDelay the agent answers /readyz
// with 503 "shutting down", gRPC health watchers see NOT_SERVING at once,
// and calls are still served; then it stops accepting connections, and the
// watches end.
func TestShutdownDelay(t *testing.T) {
	const delay = 500 * time.Millisecond
	a := hosttest.Start(t, host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: healthBindings, ShutdownDelay: delay})
	hc := a.HTTPClient()
	h := healthClient(t, a, healthBindings[2])
	watch, err := h.Watch(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first watch update: %v %v", resp, err)
	}

	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- a.Shutdown(context.Background()) }()
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("watch update after the shutdown began: %v %v, want NOT_SERVING", resp, err)
	}
	if code, body := get(t, hc, base(a, healthBindings[0])+host.ReadyzPath); code != 503 || body != "shutting down\n" {
		t.Errorf("readyz during the delay: %d %q, want 503 shutting down", code, body)
	}
	if code, _ := get(t, hc, base(a, healthBindings[1])+host.HealthzPath); code != 200 {
		t.Errorf("healthz during the delay: %d", code)
	}
	if !errors.Is(a.Ready(context.Background()), host.ErrShuttingDown) {
		t.Errorf("Ready during the delay: %v", a.Ready(context.Background()))
	}
	c := a.ClientWith(t, healthBindings[0])
	if resp, err := c.SendMessage(context.Background(), message("still", "")); err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Errorf("a message during the delay: %v %v, want it served", resp, err)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if d := time.Since(start); d < delay {
		t.Errorf("Shutdown took %v, less than the delay %v", d, delay)
	}
	if _, err := watch.Recv(); status.Code(err) != codes.Canceled && status.Code(err) != codes.Unavailable {
		t.Errorf("the watch after the shutdown: %v, want it ended", err)
	}
	addr := strings.TrimPrefix(base(a, healthBindings[0]), "http://")
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s accepts connections after the shutdown", addr)
	}
}
