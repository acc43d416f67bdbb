//go:build unix

package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/cutproxy"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// Resumable streams across a dying process: a generated client's
// SendStreamingMessage loop, pointed at a loopback proxy, keeps going when
// the agent process behind it is killed with SIGKILL mid-stream and the
// proxy is switched to another process — a restart on the same SQLite file,
// or another replica on the same PostgreSQL database. The client resumes
// by itself (SubscribeToTask with the last generation); the new process
// replays from the store's event log what the killed one wrote and the
// client did not receive, then settles the orphaned task (FAILED). The
// events are counted: the task first, then every generation exactly once.

// hostOf is the host:port of an endpoint line (a URL or a gRPC target).
func hostOf(t *testing.T, endpoint string) string {
	t.Helper()
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return strings.TrimPrefix(endpoint, "dns:///")
}

// clientVia is a 1.1 client of p's endpoint for b, reached through proxy.
func clientVia(t *testing.T, p *proctest.Process, b runtime.Binding, proxy *cutproxy.Proxy, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	ep := p.Endpoints[b.String()]
	target := strings.Replace(ep, hostOf(t, ep), proxy.Addr(), 1)
	spec, ok := runtime.BindingSpecOf(b)
	if !ok {
		t.Fatalf("unknown binding %q", b)
	}
	opts = append([]runtime.ClientOption{runtime.WithProtocolVersion("1.1"), runtime.WithStreamResume(30)}, opts...)
	tr, err := spec.NewTransport(target, runtime.ClientDefaults(&a2av1.A2AServiceDesc, opts)...)
	if err != nil {
		t.Fatalf("%s client for %s: %v", b.Title(), target, err)
	}
	return a2av1.NewA2AServiceClient(tr)
}

// generationAt is the generation an event carries.
func generationAt(ev *a2av1.StreamResponse) int64 {
	switch {
	case ev.GetTask() != nil:
		return ev.GetTask().GetGeneration()
	case ev.GetStatusUpdate() != nil:
		return ev.GetStatusUpdate().GetGeneration()
	case ev.GetArtifactUpdate() != nil:
		return ev.GetArtifactUpdate().GetGeneration()
	}
	return -1
}

// streamAcrossDeath ranges over a SendStreamingMessage of "stream chunks"
// through proxy and, after the event number dieAfter, holds the proxy
// until direct (a client of the same process, not through the proxy) sees
// the task lagged more generations ahead — written to the store, never
// received — and calls die (it kills the process and switches the proxy),
// then cuts the proxy's connections and lets it go on. It checks the count:
// the task, then generations +1 each without a gap or a repeat, up to a
// terminal state, the lagged events included.
func streamAcrossDeath(ctx context.Context, t *testing.T, c, direct a2av1.A2AServiceClient, proxy *cutproxy.Proxy, chunks, dieAfter, lagged int, die func()) {
	t.Helper()
	var evs []*a2av1.StreamResponse
	for ev, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("stream %d", chunks))}) {
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
		if len(evs) == dieAfter {
			proxy.Hold()
			id, at := evs[0].GetTask().GetId(), generationAt(ev)
			proctest.WaitTask(ctx, t, direct, id, 20*time.Second, fmt.Sprintf("%d generations past the client's", lagged), func(task *a2av1.Task) bool {
				return task.GetGeneration() >= at+int64(lagged)
			})
			die()
			proxy.CutAll()
			proxy.Release()
		}
	}
	if len(evs) <= dieAfter+lagged {
		t.Fatalf("the stream ended after %d events: the %d events written while the client lagged are missing", len(evs), lagged)
	}
	if evs[0].GetTask() == nil {
		t.Fatalf("the stream did not start with the task: %s", proctest.Describe(evs[0]))
	}
	for i := 1; i < len(evs); i++ {
		if got, want := generationAt(evs[i]), generationAt(evs[i-1])+1; got != want {
			t.Fatalf("event %d (%s) at generation %d, want %d: an event lost or repeated across the death", i, proctest.Describe(evs[i]), got, want)
		}
	}
	last := proctest.StateOf(evs[len(evs)-1])
	if !proctest.IsFinal(last) {
		t.Fatalf("the stream ended at %s, not a terminal state", last)
	}
	t.Logf("%d events (generations 1..%d, 0 lost, 0 repeated), ending %s", len(evs), generationAt(evs[len(evs)-1]), last)
}

// TestStreamResumesAfterSQLiteRestart: the process on a SQLite file is
// killed mid-stream and started again on the file; the stream goes on.
func TestStreamResumesAfterSQLiteRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the echo binary and kills it")
	}
	bin := proctest.Build(t, ".", ".")
	for _, b := range proctest.Bindings {
		t.Run(b.String(), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "echo.db")
			args := []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--store", "sqlite:" + db,
				"--v11-draft", "--chunk-interval", "20ms"}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			first := proctest.Start(t, bin, proctest.Options{Args: args})
			proxy := cutproxy.Start(t, hostOf(t, first.Endpoints[b.String()]))
			c := clientVia(t, first, b, proxy)
			direct := first.Client(t, runtime.BindingJSONRPC, runtime.WithProtocolVersion("1.1"))
			streamAcrossDeath(ctx, t, c, direct, proxy, 200, 10, 15, func() {
				first.Kill(t)
				second := proctest.Start(t, bin, proctest.Options{Args: args})
				proxy.SetUpstream(hostOf(t, second.Endpoints[b.String()]))
			})
		})
	}
}

// TestStreamResumesOnAnotherReplica: two replicas on PostgreSQL; the one
// the stream runs on is killed, the proxy switches to the other.
func TestStreamResumesOnAnotherReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the echo binary and runs replicas of it on PostgreSQL")
	}
	u := pgtest.URL(t)
	store := pgtest.WithSchema(u, pgtest.Schema(t, u))
	bin := proctest.Build(t, ".", ".")
	args := []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--store", store,
		"--v11-draft", "--chunk-interval", "20ms", "--run-lease", replicaLease.String()}
	for _, b := range proctest.Bindings {
		t.Run(b.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			r1 := proctest.Start(t, bin, proctest.Options{Args: args})
			r2 := proctest.Start(t, bin, proctest.Options{Args: args})
			proxy := cutproxy.Start(t, hostOf(t, r1.Endpoints[b.String()]))
			c := clientVia(t, r1, b, proxy)
			direct := r1.Client(t, runtime.BindingJSONRPC, runtime.WithProtocolVersion("1.1"))
			streamAcrossDeath(ctx, t, c, direct, proxy, 200, 10, 15, func() {
				proxy.SetUpstream(hostOf(t, r2.Endpoints[b.String()]))
				r1.Kill(t)
			})
		})
	}
}
