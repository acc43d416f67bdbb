package server_test

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/cutproxy"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// serveBehind serves h on binding b on a loopback listener and returns its
// address and a client factory whose clients reach it at addr (a proxy's).
func serveBehind(t *testing.T, b string, h a2av1.A2AServiceHandler) (upstream string, clientAt func(addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	switch b {
	case runtime.BindingGRPC:
		gs := grpc.NewServer(grpc.ForceServerCodecV2(runtime.GRPCServerCodec()))
		a2av1.RegisterA2AServiceGRPC(gs, h, bothVersions)
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		return lis.Addr().String(), func(addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cc.Close() })
			return a2av1.NewA2AServiceGRPCClientFromConn(cc, opts...)
		}
	}
	var handler http.Handler = a2av1.NewA2AServiceJSONRPCHandler(h, bothVersions)
	if b == runtime.BindingHTTPJSON {
		handler = a2av1.NewA2AServiceRESTHandler(h, bothVersions)
	}
	hs := &http.Server{Handler: handler}
	go func() { _ = hs.Serve(lis) }()
	t.Cleanup(func() { _ = hs.Close() })
	return lis.Addr().String(), func(addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
		hc := &http.Client{Transport: &http.Transport{}}
		t.Cleanup(hc.CloseIdleConnections)
		opts = append([]runtime.ClientOption{runtime.WithHTTPClient(hc)}, opts...)
		if b == runtime.BindingHTTPJSON {
			return a2av1.NewA2AServiceRESTClient("http://"+addr, opts...)
		}
		return a2av1.NewA2AServiceJSONRPCClient("http://"+addr, opts...)
	}
}

// countStream ranges over a stream as an application would and checks what
// a resumed stream promises: the task first, then every generation exactly
// once, each one more than the last (no event lost, none repeated), up to
// a terminal state. It returns the events.
func countStream(t *testing.T, seq iter.Seq2[*a2av1.StreamResponse, error]) []*a2av1.StreamResponse {
	t.Helper()
	var evs []*a2av1.StreamResponse
	for ev, err := range seq {
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
	if err := checkCounted(evs); err != nil {
		t.Fatal(err)
	}
	return evs
}

// checkCounted says what is wrong with a stream's events, if anything.
func checkCounted(evs []*a2av1.StreamResponse) error {
	if len(evs) == 0 || evs[0].GetTask() == nil {
		return fmt.Errorf("the stream did not start with the task: %s", describeAll(evs))
	}
	for i := 1; i < len(evs); i++ {
		if got, want := generationOf(evs[i]), generationOf(evs[i-1])+1; got != want {
			return fmt.Errorf("event %d (%s) at generation %d after %d: lost %d, repeated %v",
				i, describe(evs[i]), got, want-1, max(got-want, 0), got < want)
		}
	}
	last := evs[len(evs)-1].GetStatusUpdate()
	if last == nil || last.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		return fmt.Errorf("the stream ended with %s, not COMPLETED", describe(evs[len(evs)-1]))
	}
	return nil
}

// TestStreamSurvivesCut: a SendStreamingMessage whose connection a proxy
// cuts mid-stream (twice) still yields, to an ordinary range loop, every
// event exactly once with generations +1 each, on every binding: the
// client resumed with SubscribeToTask and Last-Event-ID. With resumption
// turned off the same cut ends the loop with the connection's error.
func TestStreamSurvivesCut(t *testing.T) {
	const chunks = 40
	for _, b := range []string{runtime.BindingJSONRPC, runtime.BindingHTTPJSON, runtime.BindingGRPC} {
		t.Run(b, func(t *testing.T) {
			srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
			upstream, clientAt := serveBehind(t, b, srv)
			proxy := cutproxy.Start(t, upstream)
			proxy.CutAfter(2500, 2)
			c := clientAt(proxy.Addr(), runtime.WithProtocolVersion("1.1"))
			evs := countStream(t, c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(fmt.Sprintf("stream %d", chunks))}))
			if len(evs) != chunks+3 {
				t.Fatalf("%d events, want %d (the task, WORKING, %d chunks, COMPLETED)", len(evs), chunks+3, chunks)
			}
			if proxy.Cuts() < 1 {
				t.Fatal("the proxy cut no connection: the test proves nothing")
			}
			t.Logf("%d events, 0 lost, 0 repeated, across %d cuts", len(evs), proxy.Cuts())

			proxy.CutAfter(2500, 1)
			off := clientAt(proxy.Addr(), runtime.WithProtocolVersion("1.1"), runtime.WithStreamResume(0))
			var n int
			var last error
			for _, err := range off.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(fmt.Sprintf("stream %d", chunks))}) {
				if err != nil {
					last = err
					break
				}
				n++
			}
			if last == nil {
				t.Fatalf("without resumption the cut stream ended cleanly after %d events", n)
			}
		})
	}
}
