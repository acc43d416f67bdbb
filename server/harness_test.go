package server_test

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// binding serves a handler on loopback and returns a factory of generated
// clients for it. Adding a binding to the tests is one entry in bindings.
type binding struct {
	name  string
	serve func(t testing.TB, h a2av1.A2AServiceHandler) func(opts ...runtime.ClientOption) a2av1.A2AServiceClient
}

var bindings = []binding{
	{runtime.BindingJSONRPC, serveJSONRPC},
	{runtime.BindingHTTPJSON, serveREST},
	{runtime.BindingGRPC, serveGRPC},
}

// bearerAuth identifies callers on every binding of the tests: a bearer
// token is the caller's id, a call without one is anonymous.
var bearerAuth = runtime.WithAuthenticator(echo.BearerAuthenticator(""))

// bothVersions serves A2A 1.0 and the 1.1 draft on every binding of the
// tests, as an agent that upgraded does: the generated clients send 1.0
// and see 1.0; a test that needs 1.1 (generations) asks for it with
// client11.
var bothVersions = runtime.WithSupportedVersions("1.1", "1.0")

// client11 is a client of e that negotiates A2A 1.1.
func (e *env) client11() a2av1.A2AServiceClient {
	return e.client(runtime.WithProtocolVersion("1.1"))
}

// serveJSONRPC serves h over JSON-RPC on an httptest server. Each test gets
// its own HTTP client transport, closed at the end, so that keep-alive
// connections do not outlive it.
func serveJSONRPC(t testing.TB, h a2av1.A2AServiceHandler) func(...runtime.ClientOption) a2av1.A2AServiceClient {
	ts := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(h, bearerAuth, bothVersions))
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(func() {
		hc.CloseIdleConnections()
		ts.Close()
	})
	return func(opts ...runtime.ClientOption) a2av1.A2AServiceClient {
		return a2av1.NewA2AServiceJSONRPCClient(ts.URL, append([]runtime.ClientOption{runtime.WithHTTPClient(hc)}, opts...)...)
	}
}

// serveREST serves h over HTTP+JSON, mounted under a path prefix as an
// agent would mount it next to other handlers.
func serveREST(t testing.TB, h a2av1.A2AServiceHandler) func(...runtime.ClientOption) a2av1.A2AServiceClient {
	mux := http.NewServeMux()
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(h, bearerAuth, bothVersions))
	ts := httptest.NewServer(mux)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(func() {
		hc.CloseIdleConnections()
		ts.Close()
	})
	return func(opts ...runtime.ClientOption) a2av1.A2AServiceClient {
		return a2av1.NewA2AServiceRESTClient(ts.URL+"/a2a/rest", append([]runtime.ClientOption{runtime.WithHTTPClient(hc)}, opts...)...)
	}
}

// serveGRPC serves h over gRPC on a loopback socket; clients share one
// plaintext connection.
func serveGRPC(t testing.TB, h a2av1.A2AServiceHandler) func(...runtime.ClientOption) a2av1.A2AServiceClient {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.ForceServerCodecV2(runtime.GRPCServerCodec()))
	a2av1.RegisterA2AServiceGRPC(gs, h, bearerAuth, bothVersions)
	go func() { _ = gs.Serve(lis) }()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cc.Close()
		gs.Stop()
	})
	return func(opts ...runtime.ClientOption) a2av1.A2AServiceClient {
		return a2av1.NewA2AServiceGRPCClientFromConn(cc, opts...)
	}
}

// env is a server under test behind one binding.
type env struct {
	srv    *server.Server
	client func(opts ...runtime.ClientOption) a2av1.A2AServiceClient
	c      a2av1.A2AServiceClient // default client
}

// echoCard is the echo agent's card: every capability on.
func echoCard() *a2av1.AgentCard { return echo.Card() }

// newEnv starts a server for exec (the echo agent when nil) with the echo
// card (or card) behind binding b; it is shut down when the test ends.
func newEnv(t testing.TB, b binding, exec server.Executor, card *a2av1.AgentCard, opts ...server.Option) *env {
	t.Helper()
	if exec == nil {
		exec = &echo.Agent{ChunkInterval: time.Millisecond}
	}
	if card == nil {
		card = echoCard()
	}
	srv, err := server.New(card, exec, opts...)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	client := b.serve(t, srv)
	return &env{srv: srv, client: client, c: client()}
}

// forEachBinding runs f once per binding as a subtest.
func forEachBinding(t *testing.T, f func(t *testing.T, b binding)) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

var msgSeq atomic.Int64

// userMsg is a user message with one text part and a fresh id.
func userMsg(text string) *a2av1.Message {
	return &a2av1.Message{
		MessageId: fmt.Sprintf("msg-%d", msgSeq.Add(1)),
		Role:      a2av1.Role_ROLE_USER,
		Parts:     []*a2av1.Part{server.TextPart(text)},
	}
}

// followUp is a user message for an existing task.
func followUp(text, taskID string) *a2av1.Message {
	m := userMsg(text)
	m.TaskId = taskID
	return m
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// send sends a message and fails the test on error.
func send(t testing.TB, c a2av1.A2AServiceClient, req *a2av1.SendMessageRequest) *a2av1.SendMessageResponse {
	t.Helper()
	resp, err := c.SendMessage(ctxT(t), req)
	if err != nil {
		t.Fatalf("SendMessage(%q): %v", server.MessageText(req.GetMessage()), err)
	}
	return resp
}

// sendTask sends text as a new message and returns the task.
func sendTask(t testing.TB, c a2av1.A2AServiceClient, text string) *a2av1.Task {
	t.Helper()
	resp := send(t, c, &a2av1.SendMessageRequest{Message: userMsg(text)})
	if resp.GetTask() == nil {
		t.Fatalf("SendMessage(%q) answered %v, want a task", text, resp)
	}
	return resp.GetTask()
}

// collect ranges over a stream and returns its events and final error.
func collect(seq iter.Seq2[*a2av1.StreamResponse, error]) ([]*a2av1.StreamResponse, error) {
	var out []*a2av1.StreamResponse
	for ev, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// describe renders an event compactly for sequence assertions:
// "task SUBMITTED", "status WORKING", "status INPUT_REQUIRED+msg",
// "artifact chunk 2/3;+append", "message Echo: hi".
func describe(ev *a2av1.StreamResponse) string {
	switch {
	case ev.GetTask() != nil:
		return "task " + short(ev.GetTask().GetStatus().GetState())
	case ev.GetStatusUpdate() != nil:
		st := ev.GetStatusUpdate().GetStatus()
		s := "status " + short(st.GetState())
		if st.GetMessage() != nil {
			s += "+msg"
		}
		return s
	case ev.GetArtifactUpdate() != nil:
		u := ev.GetArtifactUpdate()
		s := "artifact " + server.MessageText(&a2av1.Message{Parts: u.GetArtifact().GetParts()})
		if u.GetAppend() {
			s += "+append"
		}
		if u.GetLastChunk() {
			s += "+last"
		}
		return s
	case ev.GetMessage() != nil:
		return "message " + server.MessageText(ev.GetMessage())
	}
	return "?"
}

func describeAll(evs []*a2av1.StreamResponse) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = describe(ev)
	}
	return out
}

func short(s a2av1.TaskState) string { return strings.TrimPrefix(s.String(), "TASK_STATE_") }

// artifactText is the text of a task's only artifact.
func artifactText(t testing.TB, task *a2av1.Task) string {
	t.Helper()
	if len(task.GetArtifacts()) != 1 {
		t.Fatalf("task has %d artifacts, want 1: %v", len(task.GetArtifacts()), task)
	}
	return server.MessageText(&a2av1.Message{Parts: task.GetArtifacts()[0].GetParts()})
}

// waitState polls GetTask until the task is in state.
func waitState(t testing.TB, c a2av1.A2AServiceClient, id string, state a2av1.TaskState) *a2av1.Task {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		task, err := c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: id})
		if err != nil {
			t.Fatalf("GetTask(%s): %v", id, err)
		}
		if task.GetStatus().GetState() == state {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %v, never reached %v", id, task.GetStatus().GetState(), state)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// wantCode checks that err is an A2A error of the given kind.
func wantCode(t testing.TB, what string, err error, sentinel *runtime.Error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, sentinel.Code())
	}
	if e := runtime.ErrorOrInternal(err); e.Code() != sentinel.Code() {
		t.Fatalf("%s: error %v, want %v", what, err, sentinel.Code())
	}
}

func ptr[T any](v T) *T { return &v }

func cardWith(streaming, push, extended *bool) *a2av1.AgentCard {
	c := echoCard()
	c.Capabilities = &a2av1.AgentCapabilities{Streaming: streaming, PushNotifications: push, ExtendedAgentCard: extended}
	return c
}

// discardLogger keeps expected executor failures out of the test output.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
