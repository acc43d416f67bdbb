package interop

// Deviations of the SDK client (v2.4.0; v2.3.1 where named) from the A2A
// specification and proto (docs/bindings.md: what a2agen accepts) that
// a2agen's server tolerates. The SDK client talks to examples/echo
// through a recording proxy; each test shows that the SDK really sent the
// deviating request and that a2agen's server answered it as the spec says.

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// proxiedEcho is examples/echo reached through a recording proxy.
type proxiedEcho struct {
	proxy *recordingProxy
	card  string // the card URL through the proxy
}

func newProxiedEcho(t *testing.T) *proxiedEcho {
	t.Helper()
	p := startOurEcho(t)
	proxy := newRecordingProxy(t, httpBase(t, p.endpoints["card"]))
	return &proxiedEcho{proxy: proxy, card: proxy.url(p.endpoints["card"])}
}

// wantStepOK fails unless the run has the named step and it passed.
func wantStepOK(t *testing.T, run sdkClientRun, name string) stepReport {
	t.Helper()
	s, ok := run.step(name)
	if !ok {
		t.Fatalf("the SDK client did not run step %q (%v); stderr:\n%s", name, run.err, run.stderr)
	}
	if !s.OK {
		t.Errorf("step %s: %s (error reason %q: %s)", name, s.Problem, s.Reason, s.Error)
	}
	return s
}

func pathHasSuffix(method, suffix string) func(recordedRequest) bool {
	return func(r recordedRequest) bool { return r.Method == method && strings.HasSuffix(r.Path, suffix) }
}

// restBodyOfBodylessCalls is what the SDK's REST client posts as the body
// of :cancel and :subscribe, which carry nothing but the id in the path:
// the literal null (Content-Type application/json) up to v2.3.1, an
// empty body since v2.4.0.
var restBodyOfBodylessCalls = map[string]string{"v2.4.0": "", "v2.3.1": "null"}

// TestDeviation_RESTCancelNullBody: the SDK's REST client posts null
// (v2.3.1) or nothing (v2.4.0) to /tasks/{id}:cancel; a2agen takes either
// as an empty body.
func TestDeviation_RESTCancelNullBody(t *testing.T) {
	t.Parallel()
	for _, sdk := range sdkBuilds {
		t.Run(sdk.version, func(t *testing.T) {
			t.Parallel()
			echo := newProxiedEcho(t)
			run := runSDKClientOf(t, *sdk.bin, echo.card, "HTTP+JSON", "cancel")
			wantStepOK(t, run, "cancel-working-task")
			wantStepOK(t, run, "cancel-again-returns-task")
			reqs := echo.proxy.find(pathHasSuffix(http.MethodPost, ":cancel"))
			if len(reqs) == 0 {
				t.Fatal("the SDK sent no POST …:cancel")
			}
			want := restBodyOfBodylessCalls[sdk.version]
			for _, r := range reqs {
				if string(r.Body) != want {
					t.Errorf("the SDK posted %q to %s, want %q (deviation changed?)", r.Body, r.Path, want)
				}
				if r.Status != http.StatusOK {
					t.Errorf("a2agen answered %d to the :cancel body %q, want 200", r.Status, r.Body)
				}
			}
		})
	}
}

// TestDeviation_RESTSubscribePOSTWithNullBody: the SDK's REST client
// subscribes with POST (the proto says GET) and a null (v2.3.1) or
// empty (v2.4.0) body; a2agen serves both verbs and ignores the body.
func TestDeviation_RESTSubscribePOSTWithNullBody(t *testing.T) {
	t.Parallel()
	for _, sdk := range sdkBuilds {
		t.Run(sdk.version, func(t *testing.T) {
			t.Parallel()
			echo := newProxiedEcho(t)
			run := runSDKClientOf(t, *sdk.bin, echo.card, "HTTP+JSON", "resubscribe")
			wantStepOK(t, run, "two-subscribers-see-the-same-events")
			wantStepOK(t, run, "subscriber-sees-cancel")
			reqs := echo.proxy.find(func(r recordedRequest) bool { return strings.HasSuffix(r.Path, ":subscribe") })
			if len(reqs) == 0 {
				t.Fatal("the SDK sent no …:subscribe")
			}
			want := restBodyOfBodylessCalls[sdk.version]
			for _, r := range reqs {
				if r.Method != http.MethodPost || string(r.Body) != want {
					t.Errorf("the SDK sent %s %s with body %q, want POST with %q (deviation changed?)", r.Method, r.Path, r.Body, want)
				}
				if r.Status != http.StatusOK || !strings.HasPrefix(r.RespType, "text/event-stream") {
					t.Errorf("a2agen answered %d %s, want 200 text/event-stream", r.Status, r.RespType)
				}
			}
		})
	}
}

// TestDeviation_RESTListTasksLastUpdatedAfter: the SDK's REST client sends
// ListTasks.statusTimestampAfter as ?lastUpdatedAfter=; a2agen
// filters on it as on statusTimestampAfter.
func TestDeviation_RESTListTasksLastUpdatedAfter(t *testing.T) {
	t.Parallel()
	echo := newProxiedEcho(t)
	run := runSDKClient(t, echo.card, "HTTP+JSON", "tasks")
	wantStepOK(t, run, "list-statusTimestampAfter")
	reqs := echo.proxy.find(func(r recordedRequest) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/tasks") && strings.Contains(r.RawQuery, "lastUpdatedAfter=")
	})
	if len(reqs) == 0 {
		t.Error("the SDK sent no GET /tasks?lastUpdatedAfter= (deviation gone?)")
	}
	for _, r := range reqs {
		if strings.Contains(r.RawQuery, "statusTimestampAfter=") {
			t.Errorf("the SDK also sent statusTimestampAfter: %s", r.RawQuery)
		}
	}
}

// TestDeviation_RepeatedA2AExtensionsHeaders: the SDK sends one
// A2A-Extensions line (gRPC: metadata value) per URI, the spec one
// comma-separated value; a2agen merges the lines.
func TestDeviation_RepeatedA2AExtensionsHeaders(t *testing.T) {
	t.Parallel()
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		echo := newProxiedEcho(t)
		for _, b := range bindings {
			run := runSDKClient(t, echo.card, b, "extensions")
			wantStepOK(t, run, "two-extensions-two-header-lines")
		}
		reqs := echo.proxy.find(func(r recordedRequest) bool { return len(r.Header.Values("A2A-Extensions")) >= 2 })
		if len(reqs) < 2 {
			t.Errorf("%d HTTP requests with two A2A-Extensions lines, want one per HTTP binding (deviation gone?)", len(reqs))
		}
	})
	t.Run("merged", func(t *testing.T) {
		t.Parallel()
		rec := &extensionRecorder{}
		srv := newOurJSONRPCServer(t, rec)
		run := runSDKClient(t, srv.URL+runtime.AgentCardPath, "JSONRPC", "extensions")
		wantStepOK(t, run, "two-extensions-two-header-lines")
		want := []string{"https://example.com/ext/one", "https://example.com/ext/two"}
		if got := rec.last(); !slices.Equal(got, want) {
			t.Errorf("a2agen's handler saw extensions %q, want %q", got, want)
		}
	})
}

// TestDeviation_SDKClientReadsStreamErrorsOnlyFromSSE: the SDK's JSON-RPC
// client reads a streaming answer as SSE whatever its Content-Type, so an
// error sent before the first event reaches it only as an SSE event.
// a2agen's errors for SubscribeToTask on unknown and terminal tasks
// must reach the SDK client on both HTTP bindings.
func TestDeviation_SDKClientReadsStreamErrorsOnlyFromSSE(t *testing.T) {
	t.Parallel()
	echo := newProxiedEcho(t)
	for _, b := range []string{"JSONRPC", "HTTP+JSON"} {
		t.Run(b, func(t *testing.T) {
			run := runSDKClient(t, echo.card, b, "errors")
			for _, step := range []string{"subscribe-unknown-task", "subscribe-terminal-task"} {
				s := wantStepOK(t, run, step)
				t.Logf("%s over %s: reason %q (%s)", step, b, s.Reason, s.Error)
			}
		})
	}
	for _, r := range echo.proxy.find(func(r recordedRequest) bool {
		return strings.Contains(string(r.Body), `"SubscribeToTask"`) || strings.HasSuffix(r.Path, ":subscribe")
	}) {
		t.Logf("a2agen answered %s %s with %d %s", r.Method, r.Path, r.Status, r.RespType)
	}
}

// extensionRecorder is an a2agen handler that records the extensions each
// SendMessage asked for and answers with a direct message.
type extensionRecorder struct {
	a2av1.UnimplementedA2AServiceHandler
	mu  sync.Mutex
	got [][]string
}

func (h *extensionRecorder) SendMessage(ctx context.Context, req *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	info, _ := runtime.CallInfoFromContext(ctx)
	h.mu.Lock()
	h.got = append(h.got, slices.Clone(info.Extensions))
	h.mu.Unlock()
	reply := &a2av1.Message{
		MessageId: newID(), Role: a2av1.Role_ROLE_AGENT, ContextId: "interop",
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "ok"}}},
	}
	return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Message{Message: reply}}, nil
}

func (h *extensionRecorder) last() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) == 0 {
		return nil
	}
	return h.got[len(h.got)-1]
}

// newOurJSONRPCServer serves h with a2agen's generated JSON-RPC handler on
// loopback, with a card listing it.
func newOurJSONRPCServer(t *testing.T, h a2av1.A2AServiceHandler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := testCard(&a2av1.AgentInterface{Url: srv.URL + "/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"})
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	mux.Handle("/a2a", a2av1.NewA2AServiceJSONRPCHandler(h))
	return srv
}

// TestDeviation_GRPCListTasksPageSizeZero: over gRPC the SDK's client
// always sets ListTasksRequest.pageSize, to 0 when its caller gave none,
// so "no page size" arrives as an explicit 0. a2agen's
// server must read it as the default page size, or SDK users cannot list
// tasks over gRPC at all.
func TestDeviation_GRPCListTasksPageSizeZero(t *testing.T) {
	t.Parallel()
	t.Run("wire", func(t *testing.T) {
		t.Parallel()
		rec := &listRecorder{}
		card := newOurGRPCServer(t, rec)
		run := runSDKClient(t, card, "GRPC", "list")
		wantStepOK(t, run, "list-tasks-without-parameters")
		req := rec.last()
		if req == nil || req.PageSize == nil || req.GetPageSize() != 0 {
			t.Errorf("a2agen's handler got %v, want pageSize present and 0 (deviation gone?)", req)
		}
	})
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		p := startOurEcho(t)
		run := runSDKClient(t, p.endpoints["card"], "GRPC", "list")
		wantStepOK(t, run, "list-tasks-without-parameters")
	})
}

// listRecorder is an a2agen handler that records ListTasks requests.
type listRecorder struct {
	a2av1.UnimplementedA2AServiceHandler
	mu  sync.Mutex
	got []*a2av1.ListTasksRequest
}

func (h *listRecorder) ListTasks(_ context.Context, req *a2av1.ListTasksRequest) (*a2av1.ListTasksResponse, error) {
	h.mu.Lock()
	h.got = append(h.got, req)
	h.mu.Unlock()
	return &a2av1.ListTasksResponse{PageSize: 50}, nil
}

func (h *listRecorder) last() *a2av1.ListTasksRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) == 0 {
		return nil
	}
	return h.got[len(h.got)-1]
}

// newOurGRPCServer serves h with a2agen's generated gRPC service on
// loopback and returns the URL of a card listing it.
func newOurGRPCServer(t *testing.T, h a2av1.A2AServiceHandler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gs, h)
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	card := testCard(&a2av1.AgentInterface{Url: ln.Addr().String(), ProtocolBinding: "GRPC", ProtocolVersion: "1.0"})
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + runtime.AgentCardPath
}

// testCard is a minimal valid card listing ifaces.
func testCard(ifaces ...*a2av1.AgentInterface) *a2av1.AgentCard {
	return &a2av1.AgentCard{
		Name: "interop probe", Description: "records what the SDK client sends", Version: "1",
		SupportedInterfaces: ifaces,
		Capabilities:        &a2av1.AgentCapabilities{},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{Id: "probe", Name: "probe", Description: "probe", Tags: []string{"probe"}}},
	}
}
