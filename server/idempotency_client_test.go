package server_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// cutProxy forwards TCP connections to target and, once armed, cuts the
// connection whose server side sends the next bytes, instead of passing
// them on: a client whose connection broke after the agent got its
// message, before the answer.
type cutProxy struct {
	ln     net.Listener
	target string
	armed  atomic.Bool
	cuts   atomic.Int32
	conns  atomic.Int32
	wg     sync.WaitGroup

	mu   sync.Mutex
	open []net.Conn // closed when the test ends
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.open {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.conns.Add(1)
		p.mu.Lock()
		p.open = append(p.open, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { // client to server, as it comes
			defer p.wg.Done()
			_, _ = io.Copy(s, c)
			_ = s.Close()
		}()
		go func() { // server to client, unless armed
			defer p.wg.Done()
			defer c.Close()
			defer s.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Read(buf)
				if n > 0 && p.armed.CompareAndSwap(true, false) {
					p.cuts.Add(1)
					if tc, ok := c.(*net.TCPConn); ok {
						_ = tc.SetLinger(0) // a reset, as a dead middlebox gives
					}
					return
				}
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// armingAgent completes every task with an artifact, and arms the proxy
// while it runs the first one: the answer to the first send is cut.
type armingAgent struct {
	proxy *cutProxy
	runs  atomic.Int32
}

func (a *armingAgent) Execute(ctx context.Context, req *server.Request, ev *server.Events) error {
	if a.runs.Add(1) == 1 {
		a.proxy.armed.Store(true)
	}
	return ev.Complete(server.AgentMessage("done: " + req.Text()))
}

// servedBehindProxy serves srv on binding b behind a cutProxy and returns
// a client of it through the proxy.
func servedBehindProxy(t *testing.T, b string, srv *server.Server, agent *armingAgent, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	var target string
	var client func(addr string) a2av1.A2AServiceClient
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	opts = append([]runtime.ClientOption{runtime.WithHTTPClient(hc)}, opts...)
	switch b {
	case runtime.BindingJSONRPC, runtime.BindingHTTPJSON:
		h := a2av1.NewA2AServiceJSONRPCHandler(srv)
		if b == runtime.BindingHTTPJSON {
			h = a2av1.NewA2AServiceRESTHandler(srv)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		target = ts.Listener.Addr().String()
		client = func(addr string) a2av1.A2AServiceClient {
			if b == runtime.BindingHTTPJSON {
				return a2av1.NewA2AServiceRESTClient("http://"+addr, opts...)
			}
			return a2av1.NewA2AServiceJSONRPCClient("http://"+addr, opts...)
		}
	default:
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := grpc.NewServer(grpc.ForceServerCodecV2(runtime.GRPCServerCodec()))
		a2av1.RegisterA2AServiceGRPC(gs, srv)
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		target = lis.Addr().String()
		client = func(addr string) a2av1.A2AServiceClient {
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cc.Close() })
			return a2av1.NewA2AServiceGRPCClientFromConn(cc, opts...)
		}
	}
	agent.proxy = newCutProxy(t, target)
	return client(agent.proxy.addr())
}

// TestClientResendsCutSend: on every binding, a generated client whose
// connection is cut after the agent got the message, before the answer,
// sends it again with the same Idempotency-Key: the caller gets the task,
// and there is one task, run once.
func TestClientResendsCutSend(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		agent := &armingAgent{}
		srv, err := server.New(echoCard(), agent)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
		c := servedBehindProxy(t, b.name, srv, agent)
		resp, err := c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")})
		if err != nil {
			t.Fatalf("SendMessage through a cut connection: %v", err)
		}
		if agent.proxy.cuts.Load() != 1 {
			t.Fatalf("the proxy cut %d answers, want 1 (the test did not cut the connection)", agent.proxy.cuts.Load())
		}
		if st := resp.GetTask().GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Fatalf("answer after the resend: %v, want the completed task", resp)
		}
		if n := agent.runs.Load(); n != 1 {
			t.Errorf("the agent ran %d times, want once", n)
		}
		if n := listTotal(t, c); n != 1 {
			t.Errorf("%d tasks after a cut send, want 1", n)
		}
	})
}

// TestClientResendsCutStream: a stream cut before its first event is sent
// again with its key and shows the one task.
func TestClientResendsCutStream(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		agent := &armingAgent{}
		srv, err := server.New(echoCard(), agent)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
		c := servedBehindProxy(t, b.name, srv, agent)
		evs, err := collect(c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")}))
		if err != nil {
			t.Fatalf("SendStreamingMessage through a cut connection: %v", err)
		}
		if agent.proxy.cuts.Load() != 1 {
			t.Fatalf("the proxy cut %d answers, want 1", agent.proxy.cuts.Load())
		}
		if len(evs) == 0 || evs[0].GetTask() == nil {
			t.Fatalf("events after the resend: %v, want the task first", describeAll(evs))
		}
		if n := agent.runs.Load(); n != 1 {
			t.Errorf("the agent ran %d times, want once", n)
		}
		if n := listTotal(t, c); n != 1 {
			t.Errorf("%d tasks after a cut stream, want 1", n)
		}
	})
}

// TestClientSendRetriesOff: with WithoutIdempotencyKeys (or
// WithSendRetries(0)) a cut send fails and is not sent again.
func TestClientSendRetriesOff(t *testing.T) {
	for name, opt := range map[string]runtime.ClientOption{
		"WithoutIdempotencyKeys": runtime.WithoutIdempotencyKeys(), "WithSendRetries(0)": runtime.WithSendRetries(0),
	} {
		t.Run(name, func(t *testing.T) {
			agent := &armingAgent{}
			srv, err := server.New(echoCard(), agent)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
			c := servedBehindProxy(t, runtime.BindingJSONRPC, srv, agent, opt)
			_, err = c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")})
			var re *runtime.Error
			if err == nil || errors.As(err, &re) {
				t.Fatalf("SendMessage through a cut connection without resends: %v, want the connection's error", err)
			}
			if n := agent.proxy.conns.Load(); n != 1 {
				t.Errorf("%d connections, want 1 (no resend)", n)
			}
		})
	}
}

// TestClientSendKeys: the generated clients send a new Idempotency-Key with
// each SendMessage and SendStreamingMessage (none with other calls, none
// with WithoutIdempotencyKeys), the caller's own with WithIdempotencyKey,
// and never send again a send the agent answered with an error.
func TestClientSendKeys(t *testing.T) {
	var (
		mu   sync.Mutex
		keys []string
	)
	srv, err := server.New(echoCard(), &armingAgent{proxy: &cutProxy{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	h := a2av1.NewA2AServiceJSONRPCHandler(srv)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	took := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := keys
		keys = nil
		return out
	}
	c := a2av1.NewA2AServiceJSONRPCClient(ts.URL)
	ctx := ctxT(t)
	send(t, c, &a2av1.SendMessageRequest{Message: userMsg("a")})
	send(t, c, &a2av1.SendMessageRequest{Message: userMsg("b")})
	if _, err := collect(c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMsg("c")})); err != nil {
		t.Fatal(err)
	}
	listTotal(t, c)
	got := took()
	if len(got) != 4 || got[0] == "" || got[1] == "" || got[2] == "" || got[0] == got[1] || got[3] != "" {
		t.Fatalf("keys sent with two sends, a stream and a listing: %q; want three different ones, then none", got)
	}
	for _, k := range got[:3] {
		// 16 random bytes in base64url (runtime newSendKey), a key every store holds.
		if raw, err := base64.RawURLEncoding.Strict().DecodeString(k); err != nil || len(raw) != 16 || store.KeyProblem(k, store.MaxSendKeyBytes) != "" {
			t.Fatalf("key %q: %d bytes, %v, %q; want 16 random bytes in base64url", k, len(raw), err, store.KeyProblem(k, store.MaxSendKeyBytes))
		}
	}
	send(t, c, &a2av1.SendMessageRequest{Message: userMsg("d")})
	bad := userMsg("e")
	bad.Role = a2av1.Role_ROLE_AGENT
	_, err = c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: bad})
	wantCode(t, "a message with an agent's role", err, runtime.InvalidParams(""))
	if got := took(); len(got) != 2 {
		t.Fatalf("%d requests for a send and a refused one, want 2 (the agent's error is not sent again)", len(got))
	}
	mine := userMsg("f")
	for range 2 {
		send(t, c, &a2av1.SendMessageRequest{Message: mine})
	}
	send(t, c, &a2av1.SendMessageRequest{Message: mine})
	_, err = c.SendMessage(runtime.WithIdempotencyKey(ctx, "my-key"), &a2av1.SendMessageRequest{Message: userMsg("g")})
	if err != nil {
		t.Fatal(err)
	}
	if got := took(); len(got) != 4 || got[3] != "my-key" {
		t.Fatalf("keys %q, want the caller's my-key last", got)
	}
	off := a2av1.NewA2AServiceJSONRPCClient(ts.URL, runtime.WithoutIdempotencyKeys())
	send(t, off, &a2av1.SendMessageRequest{Message: userMsg("h")})
	if got := took(); len(got) != 1 || got[0] != "" {
		t.Fatalf("keys with WithoutIdempotencyKeys: %q, want none", got)
	}
}
