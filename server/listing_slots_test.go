package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// gatedStore is a memory store whose listings of the context "held" wait
// until release is closed; every listing is announced on listed (by its
// context id) as it reaches the store.
type gatedStore struct {
	*store.Memory
	listed  chan string
	release chan struct{}
}

func (g *gatedStore) ListTasks(ctx context.Context, tenant string, q store.Query) (store.Page, error) {
	g.listed <- q.ContextID
	if q.ContextID == "held" {
		<-g.release
	}
	return g.Memory.ListTasks(ctx, tenant, q)
}

// reached waits for the next listing to reach the store and returns its
// context id.
func (g *gatedStore) reached(t *testing.T) string {
	t.Helper()
	select {
	case c := <-g.listed:
		return c
	case <-time.After(time.Minute):
		t.Fatal("no listing reached the store within a minute")
		return ""
	}
}

// notReached checks that no listing reaches the store for a while (it can
// only pass wrongly, never fail wrongly: a listing that waits never
// reaches it).
func (g *gatedStore) notReached(t *testing.T, why string) {
	t.Helper()
	select {
	case c := <-g.listed:
		t.Fatalf("the listing of context %q reached the store, but %s", c, why)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestListingsPerOwner: with the default MaxListingsPerOwner (one), a
// second listing of the same owner — two anonymous callers, who are one
// owner — waits while the first is served, on every binding, and is served
// once it is done; a listing of another owner (a bearer subject) meanwhile
// is not held up; a waiting listing whose caller gives up ends with the
// caller's context error.
func TestListingsPerOwner(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		g := &gatedStore{Memory: store.NewMemory(), listed: make(chan string, 16), release: make(chan struct{})}
		e := newEnv(t, b, &echo.Agent{ChunkInterval: -1}, nil, server.WithStore(g), server.WithTaskOwner(server.OwnerByCallerID))
		ctx := ctxT(t)
		anon, other := e.client(), e.client(runtime.WithHeader("Authorization", "Bearer alice"))
		list := func(c a2av1.A2AServiceClient, contextID string) <-chan error {
			done := make(chan error, 1)
			go func() {
				resp, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{ContextId: contextID})
				if err == nil && resp.GetTotalSize() != 0 {
					err = fmt.Errorf("totalSize %d, want 0", resp.GetTotalSize())
				}
				done <- err
			}()
			return done
		}

		first := list(anon, "held")
		if c := g.reached(t); c != "held" {
			t.Fatalf("first listing reached the store as %q", c)
		}
		second := list(anon, "second")
		g.notReached(t, "the owner's first listing is still being served")
		if err := <-list(other, "other"); err != nil {
			t.Fatalf("another owner's listing: %v", err)
		}
		if c := g.reached(t); c != "other" {
			t.Fatalf("another owner's listing reached the store as %q", c)
		}

		// A waiting listing whose caller goes away.
		gone, cancel := context.WithCancel(ctx)
		third := make(chan error, 1)
		go func() {
			_, err := anon.ListTasks(gone, &a2av1.ListTasksRequest{ContextId: "third"})
			third <- err
		}()
		g.notReached(t, "the owner's first listing is still being served")
		cancel()
		if err := <-third; !errors.Is(err, context.Canceled) {
			t.Errorf("a waiting listing whose context ended: %v, want context.Canceled", err)
		}

		close(g.release)
		if err := <-first; err != nil {
			t.Fatalf("first listing: %v", err)
		}
		if c := g.reached(t); c != "second" {
			t.Fatalf("after the first listing, %q reached the store, want the waiting second", c)
		}
		if err := <-second; err != nil {
			t.Fatalf("second listing: %v", err)
		}
	})
}

// TestListingSlotHeldUntilWritten: on JSON-RPC and HTTP+JSON a listing
// holds its owner's slot until its answer is written, not only until the
// handler returns: while a client does not read a listing of some 30 MB
// (more than loopback's socket buffers hold), another listing of the same
// owner waits, and it is served once that answer has been read. Without
// runtime.AfterResponse the second listing would run while the first was
// still being encoded and written.
func TestListingSlotHeldUntilWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 30 MB of tasks")
	}
	g := &gatedStore{Memory: store.NewMemory(), listed: make(chan string, 64), release: make(chan struct{})}
	close(g.release)
	srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: -1}, server.WithStore(g), server.WithTaskOwner(server.OwnerByCallerID),
		server.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	mux := http.NewServeMux()
	mux.Handle("/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv, bearerAuth))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2av1.NewA2AServiceRESTHandler(srv, bearerAuth)))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	ctx := ctxT(t)
	c := a2av1.NewA2AServiceJSONRPCClient(ts.URL + "/jsonrpc")
	text := strings.Repeat("large ", 40_000) // 240 KB, echoed as an artifact: about 0.5 MB a task
	for range 60 {
		m := userMsg(text)
		m.ContextId = "large"
		if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: m}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, request string }{
		{"jsonrpc", "POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s"},
		{"rest", "GET /rest/tasks?contextId=large&pageSize=60&includeArtifacts=true HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			body := ""
			if tc.name == "jsonrpc" {
				body = `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"contextId":"large","pageSize":60,"includeArtifacts":true}}`
			}
			if _, err := fmt.Fprintf(conn, tc.request, len(body), body); err != nil {
				t.Fatal(err)
			}
			if c := g.reached(t); c != "large" {
				t.Fatalf("the large listing reached the store as %q", c)
			}
			second := make(chan error, 1)
			go func() {
				_, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{ContextId: "second"})
				second <- err
			}()
			g.notReached(t, "the answer to the owner's large listing has not been read")
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			if err != nil || resp.StatusCode != http.StatusOK || n < 25<<20 {
				t.Fatalf("large listing: %d, %d bytes, %v; want 200 and over 25 MiB", resp.StatusCode, n, err)
			}
			if c := g.reached(t); c != "second" {
				t.Fatalf("after the large listing, %q reached the store", c)
			}
			if err := <-second; err != nil {
				t.Fatalf("second listing: %v", err)
			}
		})
	}
}
