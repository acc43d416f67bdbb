package a2av1_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "example.com/golden/a2a_live"
	"github.com/a2agen/a2agen/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The live calls of PR #2153 (SendLiveMessage, a bidirectional stream) over
// real loopback gRPC, through the code protoc-gen-a2a generated from that
// proto. This package is lf.a2a.v1, the same proto package as a2agen's
// a2a/v1: it runs in the scratch module's own test process and must never be
// linked with a2a/v1.

const liveExtension = "https://example.com/ext/live/v1"

// live answers each message with an agent message echoing its text, and
// each client artifact update with the same update; it greets first, before
// reading anything, so the test sees the server speak before the client.
type live struct {
	a2av1.UnimplementedA2AServiceHandler

	// failAfter: return TaskNotFound after this many requests (0: never).
	failAfter int
	// ignoreErrors: on a failed request stream, return nil anyway.
	ignoreErrors bool
	// ended receives how the handler's context ended, when it did.
	ended chan error
	// info receives what the handler read of each call's CallInfo.
	info chan callFacts
}

// callFacts is what a handler read of its CallInfo.
type callFacts struct {
	binding         runtime.Binding
	version, tenant string
	extensions      []string
}

func agentText(id, text string) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Message{Message: &a2av1.Message{
		MessageId: id, Role: a2av1.Role_ROLE_AGENT,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}},
	}}}
}

func userText(id, text string) *a2av1.StreamRequest {
	return &a2av1.StreamRequest{Payload: &a2av1.StreamRequest_Message{Message: &a2av1.Message{
		MessageId: id, Role: a2av1.Role_ROLE_USER,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}},
	}}}
}

func textOf(resp *a2av1.StreamResponse) string {
	var b strings.Builder
	for _, p := range resp.GetMessage().GetParts() {
		b.WriteString(p.GetText())
	}
	return b.String()
}

func (h *live) SendLiveMessage(ctx context.Context, reqs iter.Seq2[*a2av1.StreamRequest, error], stream runtime.Stream[*a2av1.StreamResponse]) error {
	info, _ := runtime.CallInfoFromContext(ctx)
	if slices.Contains(info.Extensions, liveExtension) {
		runtime.ActivateExtension(ctx, liveExtension)
	}
	if h.ended != nil {
		go func() {
			<-ctx.Done()
			h.ended <- ctx.Err()
		}()
	}
	if err := stream.Send(agentText("greeting", "ready")); err != nil {
		return err
	}
	n := 0
	for req, err := range reqs {
		if err != nil {
			if h.ignoreErrors {
				return nil
			}
			return err
		}
		n++
		if n == 1 && h.info != nil { // the tenant is the first request's
			h.info <- callFacts{binding: info.Binding, version: info.Version, tenant: info.Tenant, extensions: info.Extensions}
		}
		if h.failAfter > 0 && n > h.failAfter {
			return runtime.TaskNotFound("task-gone")
		}
		var resp *a2av1.StreamResponse
		switch p := req.GetPayload().(type) {
		case *a2av1.StreamRequest_Message:
			resp = agentText("re-"+p.Message.GetMessageId(), fmt.Sprintf("echo %s (tenant %q)", textOf(&a2av1.StreamResponse{
				Payload: &a2av1.StreamResponse_Message{Message: p.Message}}), req.GetTenant()))
		case *a2av1.StreamRequest_ArtifactUpdate:
			resp = &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: p.ArtifactUpdate}}
		default:
			return runtime.InvalidParams("a live request needs a message or an artifact update")
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
	return stream.Send(agentText("bye", fmt.Sprintf("%d requests", n)))
}

// serveGRPC serves h on loopback gRPC and returns a client connection.
func serveGRPC(t *testing.T, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gs, h, opts...)
	go func() { _ = gs.Serve(lis) }()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cc.Close()
		gs.Stop()
	})
	return cc
}

func liveContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestLiveRoundTrip: the client sends each request only after the answer to
// the previous one arrived, so every step needs both directions of one open
// call: the greeting comes before any request, each echo before the next
// request, the farewell after the client closed its side. The service
// parameters reach the handler, and the extension it activated comes back.
func TestLiveRoundTrip(t *testing.T) {
	h := &live{info: make(chan callFacts, 1)}
	client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, h), runtime.WithExtensions(liveExtension), runtime.WithClientTenant("acme"))
	ctx, md := runtime.WithResponseMetadata(liveContext(t))

	outgoing := []*a2av1.StreamRequest{
		userText("m1", "one"),
		{Payload: &a2av1.StreamRequest_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
			TaskId: "t1", ContextId: "c1", Artifact: &a2av1.Artifact{ArtifactId: "a1",
				Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "draft"}}}}}}},
		userText("m3", "three"),
	}
	reqs := make(chan *a2av1.StreamRequest)
	var got []string
	sent := 0
	for resp, err := range client.SendLiveMessage(ctx, runtime.Requests(reqs)) {
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		switch {
		case resp.GetArtifactUpdate() != nil:
			got = append(got, "artifact "+resp.GetArtifactUpdate().GetArtifact().GetArtifactId())
		default:
			got = append(got, textOf(resp))
		}
		if sent < len(outgoing) {
			reqs <- outgoing[sent] // the transport's sender is ranging over reqs
			sent++
		} else if sent == len(outgoing) {
			close(reqs)
			sent++
		}
	}
	want := []string{"ready", `echo one (tenant "acme")`, "artifact a1", `echo three (tenant "acme")`, "3 requests"}
	if !slices.Equal(got, want) {
		t.Errorf("responses:\n got %q\nwant %q", got, want)
	}
	info := <-h.info
	if info.binding != runtime.BindingGRPC || info.version != "1.0" || !slices.Contains(info.extensions, liveExtension) || info.tenant != "acme" {
		t.Errorf("handler's CallInfo: binding %q, version %q, extensions %q, tenant %q; want GRPC, 1.0, [%s], acme",
			info.binding, info.version, info.extensions, info.tenant, liveExtension)
	}
	if exts := md.Extensions(); !slices.Equal(exts, []string{liveExtension}) {
		t.Errorf("activated extensions in the response metadata: %q, want [%s]", exts, liveExtension)
	}
}

// TestLiveFixedRequests: a list of requests is slices.Values of it; the
// call ends normally once they are all answered.
func TestLiveFixedRequests(t *testing.T) {
	client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, &live{}))
	var got []string
	for resp, err := range client.SendLiveMessage(liveContext(t), slices.Values([]*a2av1.StreamRequest{userText("a", "A"), userText("b", "B")})) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, textOf(resp))
	}
	want := []string{"ready", `echo A (tenant "")`, `echo B (tenant "")`, "2 requests"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// collect runs a live call with requests and returns the texts received
// before the error it ended with.
func collect(ctx context.Context, client a2av1.A2AServiceClient, reqs ...*a2av1.StreamRequest) ([]string, error) {
	var got []string
	for resp, err := range client.SendLiveMessage(ctx, slices.Values(reqs)) {
		if err != nil {
			return got, err
		}
		got = append(got, textOf(resp))
	}
	return got, nil
}

// TestLiveErrors: a request that lacks REQUIRED fields is refused with
// InvalidParams naming them, after the answers to the requests before it —
// also when the handler returns nil on its failed iteration; a handler's
// A2A error reaches the client as that error, with its gRPC code.
func TestLiveErrors(t *testing.T) {
	incomplete := &a2av1.StreamRequest{Payload: &a2av1.StreamRequest_Message{Message: &a2av1.Message{MessageId: "m2"}}}
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("handler ignores the error: %v", ignore), func(t *testing.T) {
			client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, &live{ignoreErrors: ignore}))
			got, err := collect(liveContext(t), client, userText("m1", "one"), incomplete, userText("m3", "three"))
			if want := []string{"ready", `echo one (tenant "")`}; !slices.Equal(got, want) {
				t.Errorf("answers before the refusal: %q, want %q", got, want)
			}
			var e *runtime.Error
			if !errors.Is(err, runtime.ErrInvalidParams) || !errors.As(err, &e) {
				t.Fatalf("err = %v, want InvalidParams", err)
			}
			var fields []string
			for _, v := range e.FieldViolations() {
				fields = append(fields, v.Field)
			}
			if !slices.Equal(fields, []string{"message.role", "message.parts"}) {
				t.Errorf("violations %q, want message.role and message.parts", fields)
			}
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("gRPC code %v, want InvalidArgument", status.Code(err))
			}
		})
	}
	t.Run("handler error", func(t *testing.T) {
		client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, &live{failAfter: 1}))
		got, err := collect(liveContext(t), client, userText("m1", "one"), userText("m2", "two"))
		if want := []string{"ready", `echo one (tenant "")`}; !slices.Equal(got, want) {
			t.Errorf("answers before the error: %q, want %q", got, want)
		}
		if !errors.Is(err, runtime.ErrTaskNotFound) || status.Code(err) != codes.NotFound {
			t.Errorf("err = %v (code %v), want TaskNotFound (NotFound)", err, status.Code(err))
		}
	})
	t.Run("unimplemented", func(t *testing.T) {
		client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, a2av1.UnimplementedA2AServiceHandler{}))
		_, err := collect(liveContext(t), client, userText("m1", "one"))
		if !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Errorf("err = %v, want UnsupportedOperation", err)
		}
	})
	t.Run("version refused", func(t *testing.T) {
		client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, &live{}), runtime.WithProtocolVersion("0.3"))
		_, err := collect(liveContext(t), client, userText("m1", "one"))
		if !errors.Is(err, runtime.ErrVersionNotSupported) {
			t.Errorf("err = %v, want VersionNotSupported", err)
		}
	})
}

// TestLiveCancellation: a client that stops reading cancels the call — the
// handler's context ends — and one whose context is canceled gets
// context.Canceled; neither waits for the request iterator, which is
// blocked on a channel nobody writes to.
func TestLiveCancellation(t *testing.T) {
	t.Run("break", func(t *testing.T) {
		h := &live{ended: make(chan error, 1)}
		client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, h))
		reqs := make(chan *a2av1.StreamRequest)
		defer close(reqs)
		for resp, err := range client.SendLiveMessage(liveContext(t), runtime.Requests(reqs)) {
			if err != nil || textOf(resp) != "ready" {
				t.Fatalf("first response %v, %v; want the greeting", resp, err)
			}
			break
		}
		if err := <-h.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("handler context ended with %v, want context.Canceled", err)
		}
	})
	t.Run("context", func(t *testing.T) {
		h := &live{ended: make(chan error, 1)}
		client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, h))
		ctx, cancel := context.WithCancel(liveContext(t))
		defer cancel()
		reqs := make(chan *a2av1.StreamRequest)
		defer close(reqs)
		var last error
		for resp, err := range client.SendLiveMessage(ctx, runtime.Requests(reqs)) {
			if err != nil {
				last = err
				break
			}
			if textOf(resp) == "ready" {
				cancel()
			}
		}
		if !errors.Is(last, context.Canceled) {
			t.Errorf("client error %v, want context.Canceled", last)
		}
		if err := <-h.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("handler context ended with %v, want context.Canceled", err)
		}
	})
	t.Run("closed client", func(t *testing.T) {
		client := a2av1.NewA2AServiceGRPCClientFromConn(serveGRPC(t, &live{}))
		_ = client.Close()
		if _, err := collect(liveContext(t), client, userText("m1", "one")); !errors.Is(err, runtime.ErrClientClosed) {
			t.Errorf("err = %v, want ErrClientClosed", err)
		}
	})
}

// TestLiveInterceptors: an interceptor with WrapBidi sees every request and
// response on both sides; one written for server streams only (Stream)
// sees the live call as a stream with the empty request, and its
// responses.
func TestLiveInterceptors(t *testing.T) {
	type counts struct {
		mu                   sync.Mutex
		calls, reqs, resps   int
		emptyRequestStreamed bool
	}
	bidi := func(c *counts) runtime.InterceptorFuncs {
		return runtime.InterceptorFuncs{Bidi: func(next runtime.BidiFunc) runtime.BidiFunc {
			return func(ctx context.Context, call *runtime.CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
				c.mu.Lock()
				c.calls++
				c.mu.Unlock()
				counted := func(yield func(proto.Message, error) bool) {
					for m, err := range reqs {
						if err == nil {
							c.mu.Lock()
							c.reqs++
							c.mu.Unlock()
						}
						if !yield(m, err) {
							return
						}
					}
				}
				return next(ctx, call, counted, func(m proto.Message) error {
					c.mu.Lock()
					c.resps++
					c.mu.Unlock()
					return send(m)
				})
			}
		}}
	}
	streamOnly := func(c *counts) runtime.InterceptorFuncs {
		return runtime.InterceptorFuncs{Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
				r, ok := req.(*a2av1.StreamRequest)
				c.mu.Lock()
				c.calls++
				c.emptyRequestStreamed = ok && proto.Size(r) == 0 && call.Operation.Name == "SendLiveMessage"
				c.mu.Unlock()
				return next(ctx, call, req, func(m proto.Message) error {
					c.mu.Lock()
					c.resps++
					c.mu.Unlock()
					return send(m)
				})
			}
		}}
	}
	var serverBidi, serverStream, clientBidi, clientStream counts
	cc := serveGRPC(t, &live{}, runtime.WithInterceptors(streamOnly(&serverStream), bidi(&serverBidi)))
	client := a2av1.NewA2AServiceGRPCClientFromConn(cc, runtime.WithClientInterceptors(bidi(&clientBidi), streamOnly(&clientStream)))
	if _, err := collect(liveContext(t), client, userText("m1", "one"), userText("m2", "two")); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*counts{"server bidi": &serverBidi, "client bidi": &clientBidi} {
		if c.calls != 1 || c.reqs != 2 || c.resps != 4 {
			t.Errorf("%s interceptor: %d calls, %d requests, %d responses; want 1, 2, 4", name, c.calls, c.reqs, c.resps)
		}
	}
	for name, c := range map[string]*counts{"server stream": &serverStream, "client stream": &clientStream} {
		if c.calls != 1 || c.resps != 4 || !c.emptyRequestStreamed {
			t.Errorf("%s-only interceptor: %d calls, %d responses, empty request %v; want 1, 4, true", name, c.calls, c.resps, c.emptyRequestStreamed)
		}
	}
}

// TestLiveOnHTTPBindings: A2A defines no JSON-RPC or HTTP+JSON form of
// SendLiveMessage. Its method and routes answer UnsupportedOperation in
// each binding's form (JSON-RPC -32004; HTTP 400 with reason
// UNSUPPORTED_OPERATION), the handler is never called, and the generated
// HTTP clients fail the same way without sending anything. The descriptor
// says so (ServedOn).
func TestLiveOnHTTPBindings(t *testing.T) {
	var handled atomic.Int32
	h := &countingLive{calls: &handled}
	jsonrpc := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(h))
	defer jsonrpc.Close()
	rest := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(h))
	defer rest.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"SendLiveMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	resp, text := post(t, jsonrpc.URL, body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, `"code":-32004`) || !strings.Contains(text, "gRPC") {
		t.Errorf("JSON-RPC SendLiveMessage: %d %s; want 200 with error -32004 naming gRPC", resp.StatusCode, text)
	}
	for _, path := range []string{"/live", "/acme/live"} {
		resp, text := post(t, rest.URL+path, `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(text, "UNSUPPORTED_OPERATION") {
			t.Errorf("HTTP+JSON POST %s: %d %s; want 400 with reason UNSUPPORTED_OPERATION", path, resp.StatusCode, text)
		}
	}
	if n := handled.Load(); n != 0 {
		t.Errorf("the handler was called %d times over HTTP", n)
	}

	var requests atomic.Int32
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	defer counting.Close()
	for name, client := range map[string]a2av1.A2AServiceClient{
		"JSONRPC":   a2av1.NewA2AServiceJSONRPCClient(counting.URL),
		"HTTP+JSON": a2av1.NewA2AServiceRESTClient(counting.URL),
	} {
		_, err := collect(liveContext(t), client, userText("m1", "one"))
		if !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Errorf("%s client: err = %v, want UnsupportedOperation", name, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the HTTP clients sent %d requests", n)
	}

	op := a2av1.A2AServiceDesc.Operation("SendLiveMessage")
	if op == nil || !op.ClientStreaming || !op.ServerStreaming {
		t.Fatalf("descriptor of SendLiveMessage: %+v", op)
	}
	for _, b := range []runtime.Binding{runtime.BindingJSONRPC, runtime.BindingHTTPJSON, runtime.BindingGRPC} {
		if got, want := op.ServedOn(b), b == runtime.BindingGRPC; got != want {
			t.Errorf("ServedOn(%s) = %v, want %v", b, got, want)
		}
	}
	if !a2av1.A2AServiceDesc.Operation("SendStreamingMessage").ServedOn(runtime.BindingJSONRPC) {
		t.Error("SendStreamingMessage is not served on JSON-RPC")
	}
}

type countingLive struct {
	a2av1.UnimplementedA2AServiceHandler
	calls *atomic.Int32
}

func (h *countingLive) SendLiveMessage(context.Context, iter.Seq2[*a2av1.StreamRequest, error], runtime.Stream[*a2av1.StreamResponse]) error {
	h.calls.Add(1)
	return nil
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, b.String()
}

// TestLiveVersionView: a service whose version table (what make generate
// writes for a2a/v1 from the bundled protos) says an element came in 1.1
// serves a 1.0 call of SendLiveMessage in 1.0's view, as it does every other
// rpc: a live rpc of 1.1 is refused to a 1.0 caller naming the version, and
// a response of a kind 1.0 lacks (a oneof case of StreamResponse) is not
// sent to it, while a 1.1 caller gets everything.
func TestLiveVersionView(t *testing.T) {
	serve := func(t *testing.T, since map[string]string) *grpc.ClientConn {
		saved := a2av1.A2AServiceDesc.Versions
		a2av1.A2AServiceDesc.Versions = &runtime.VersionTable{Versions: []string{"1.0", "1.1"}, Since: since}
		defer func() { a2av1.A2AServiceDesc.Versions = saved }() // the handler read it when built
		return serveGRPC(t, &live{}, runtime.WithSupportedVersions("1.1", "1.0"))
	}
	reqs := []*a2av1.StreamRequest{
		userText("m1", "one"),
		{Payload: &a2av1.StreamRequest_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
			TaskId: "t1", ContextId: "c1", Artifact: &a2av1.Artifact{ArtifactId: "a1",
				Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "draft"}}}}}}},
	}
	t.Run("rpc of 1.1", func(t *testing.T) {
		cc := serve(t, map[string]string{"lf.a2a.v1.A2AService.SendLiveMessage": "1.1"})
		_, err := collect(liveContext(t), a2av1.NewA2AServiceGRPCClientFromConn(cc, runtime.WithProtocolVersion("1.0")), reqs...)
		if !errors.Is(err, runtime.ErrUnsupportedOperation) || !strings.Contains(err.Error(), "A2A 1.1") {
			t.Errorf("1.0 caller: %v, want UnsupportedOperation naming A2A 1.1", err)
		}
		got, err := collect(liveContext(t), a2av1.NewA2AServiceGRPCClientFromConn(cc, runtime.WithProtocolVersion("1.1")), reqs...)
		if err != nil || len(got) != 4 {
			t.Errorf("1.1 caller: %q, %v; want four answers", got, err)
		}
	})
	t.Run("response kind of 1.1", func(t *testing.T) {
		cc := serve(t, map[string]string{"lf.a2a.v1.StreamResponse.artifact_update": "1.1"})
		for version, want := range map[string][]string{
			"1.0": {"ready", `echo one (tenant "")`, "2 requests"},
			"1.1": {"ready", `echo one (tenant "")`, "", "2 requests"}, // "": the artifact update
		} {
			got, err := collect(liveContext(t), a2av1.NewA2AServiceGRPCClientFromConn(cc, runtime.WithProtocolVersion(version)), reqs...)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%s caller: %q, %v; want %q", version, got, err, want)
			}
		}
	})
}
