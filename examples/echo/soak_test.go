//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// Bounds of the soak test (docs/limits.md, "Soak test").
const (
	// soakRSSBound is the most resident memory the echo process may reach
	// (its peak, VmHWM) while the hostile clients below run.
	soakRSSBound = 256 << 20
	// soakSlowdown bounds the well-behaved clients' p99 under attack,
	// against their p99 undisturbed, measured in the same test.
	soakSlowdown = 3
	// soakFloor is the least undisturbed p99 the ratio is taken of, so
	// that a sub-millisecond baseline does not turn scheduler noise of a
	// shared machine into a failure.
	soakFloor = 20 * time.Millisecond
)

// TestSoak runs examples/echo as a real process on loopback and puts mixed
// load on all three bindings: well-behaved clients sending messages next to
// hostile ones — streams that never read, bodies sent a byte at a time,
// deeply nested JSON, huge headers and gRPC metadata. The well-behaved
// clients' p99 must stay within soakSlowdown × of an undisturbed run of the
// same clients in the same test, and the process's peak RSS under
// soakRSSBound. Every loop is bounded in count and time; -short skips it.
// A2AGEN_SOAK_CALLS sets the well-behaved calls per client (default 150,
// the short form CI runs).
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test: builds and loads the echo binary")
	}
	if os.Getenv("A2AGEN_SOAK") == "" {
		// Its latency ratio needs the machine to itself: next to the
		// other packages' tests (go test ./... runs them in parallel) the
		// undisturbed and the attacked runs meet different loads. make
		// test runs it on its own after them.
		t.Skip("soak test: set A2AGEN_SOAK=1 (make soak) to run it, on an otherwise idle machine")
	}
	calls := 150
	if v := os.Getenv("A2AGEN_SOAK_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("A2AGEN_SOAK_CALLS=%q: want a positive number", v)
		}
		calls = n
	}
	bin := proctest.Build(t, ".", ".")
	p := proctest.Start(t, bin, proctest.Options{Args: []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--chunk-interval", "20ms"}})
	clients := p.Clients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	baseline := wellBehaved(ctx, t, clients, calls)
	stop := make(chan struct{})
	var hostile sync.WaitGroup
	counts := startHostile(ctx, t, p, stop, &hostile)
	loaded := wellBehaved(ctx, t, clients, calls)
	close(stop)
	hostile.Wait()

	rss, peak := procMemory(t, p.Pid())
	t.Logf("well-behaved p99: undisturbed %v, under attack %v; hostile requests: %v; echo RSS %d MiB, peak %d MiB",
		baseline, loaded, counts.String(), rss>>20, peak>>20)
	if limit := soakSlowdown * max(baseline, soakFloor); loaded > limit {
		t.Errorf("p99 under attack %v > %d × max(undisturbed %v, %v)", loaded, soakSlowdown, baseline, soakFloor)
	}
	if peak > soakRSSBound {
		t.Errorf("echo's peak RSS %d MiB exceeds the documented %d MiB", peak>>20, soakRSSBound>>20)
	}
	// The agent still serves after the attack.
	if _, err := clients[runtime.BindingGRPC].SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage("after")}); err != nil {
		t.Errorf("SendMessage after the attack: %v", err)
	}
}

// wellBehaved sends calls blocking messages from two clients per binding
// and returns the p99 of their latencies.
func wellBehaved(ctx context.Context, t *testing.T, clients map[runtime.Binding]a2av1.A2AServiceClient, calls int) time.Duration {
	t.Helper()
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for _, b := range runtime.Bindings() {
		for range 2 {
			wg.Go(func() {
				mine := make([]time.Duration, 0, calls)
				for i := range calls {
					start := time.Now()
					resp, err := clients[b].SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("hello %d", i))})
					if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
						t.Errorf("%s: well-behaved SendMessage: %v, %v", b, resp.GetTask().GetStatus().GetState(), err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if len(lat) == 0 {
		t.Fatal("no well-behaved call succeeded")
	}
	slices.Sort(lat)
	return lat[len(lat)*99/100]
}

// hostileCounts counts the hostile requests made, by kind.
type hostileCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *hostileCounts) add(kind string) {
	c.mu.Lock()
	c.n[kind]++
	c.mu.Unlock()
}

func (c *hostileCounts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.n)
}

// startHostile starts the hostile clients; they stop when stop is closed
// (or ctx ends), each after a bounded number of requests at most.
func startHostile(ctx context.Context, t *testing.T, p *proctest.Process, stop <-chan struct{}, wg *sync.WaitGroup) *hostileCounts {
	counts := &hostileCounts{n: map[string]int{}}
	rpcURL, err := url.Parse(p.Endpoints[runtime.BindingJSONRPC])
	if err != nil {
		t.Fatal(err)
	}
	restURL := p.Endpoints[runtime.BindingHTTPJSON]
	addr := rpcURL.Host
	done := func() bool {
		select {
		case <-stop:
			return true
		case <-ctx.Done():
			return true
		default:
			return false
		}
	}
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return nil
		}
		return c
	}
	// Streams that never read: SendStreamingMessage of a long stream,
	// the request written, the response never read.
	for i := range 40 {
		wg.Go(func() {
			c := dial()
			if c == nil {
				return
			}
			defer c.Close()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"SendStreamingMessage","params":{"message":{"messageId":"never-%d","role":"ROLE_USER","parts":[{"text":"stream"}]}}}`, i, i)
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s", rpcURL.Path, addr, len(body), body)
			counts.add("never-reading stream")
			select {
			case <-stop:
			case <-ctx.Done():
			}
		})
	}
	// Slow bodies: a header promising 64 KiB, then a byte every 50 ms.
	for range 20 {
		wg.Go(func() {
			c := dial()
			if c == nil {
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 65536\r\n\r\n{", rpcURL.Path, addr)
			counts.add("slow body")
			for i := 0; i < 2000 && !done(); i++ {
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(u, body string, header http.Header) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	// Deep JSON: 18 KB of nested arrays in params and in a REST body.
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	for range 4 {
		wg.Go(func() {
			for i := 0; i < 5000 && !done(); i++ {
				post(rpcURL.String(), `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"metadata":{"x":`+deep+`}}}`, http.Header{})
				post(restURL+"/message:send", `{"message":{"metadata":{"x":`+deep+`}}}`, http.Header{})
				counts.add("deep JSON")
			}
		})
	}
	// Huge headers: 1 MiB of A2A-Extensions on HTTP, 1 MiB of metadata
	// on gRPC.
	huge := strings.Repeat("https://x.example/e,", 1<<20/20)
	grpcClient := p.Client(t, runtime.BindingGRPC)
	for range 2 {
		wg.Go(func() {
			for i := 0; i < 5000 && !done(); i++ {
				post(rpcURL.String(), `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, http.Header{"A2a-Extensions": {huge}, "Authorization": {"Bearer wrong"}})
				counts.add("huge header")
				gctx := metadata.AppendToOutgoingContext(ctx, "a2a-extensions", huge)
				_, _ = grpcClient.GetTask(gctx, &a2av1.GetTaskRequest{Id: "x"})
				counts.add("huge gRPC metadata")
			}
		})
	}
	return counts
}

// procMemory reads the current (VmRSS) and peak (VmHWM) resident memory of
// process pid from /proc, in bytes.
func procMemory(t *testing.T, pid int) (rss, peak int64) {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = n << 10
		case "VmHWM":
			peak = n << 10
		}
	}
	return rss, peak
}
