//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// Bounds of the listing soak (docs/limits.md, "Listing at 200,000 tasks").
const (
	// listSoakTasks is how many tasks the echo process holds
	// before the listings start (A2AGEN_SOAK_LIST_TASKS sets another
	// number), in contexts of listSoakContextTasks.
	listSoakTasks        = 200_000
	listSoakContextTasks = 200
	// listSoakLoops is how many connections loop ListTasks meanwhile.
	listSoakLoops = 4
)

// TestSoakListing is issue 26's listing scenario, on the memory store and
// on SQLite: examples/echo runs as a process, clients fill it with
// listSoakTasks tasks (hello, in contexts of listSoakContextTasks, over
// 40 owners: the per-owner budgets keep fewer of one owner's),
// then the well-behaved clients of TestSoak send their messages once
// undisturbed and once while listSoakLoops connections loop anonymous
// ListTasks calls over JSON-RPC — by a context that has no tasks (the call
// that walked every anonymous task before), by a full context, by context
// and status. The well-behaved p99 next to the listings must stay within
// soakSlowdown × the undisturbed p99 (taken as at least soakFloor), and a
// listing of a full context must report its exact totalSize. It logs both
// p99s and the listings' own p50 and p99. Runs with A2AGEN_SOAK (make
// soak) or alone with A2AGEN_SOAK_LIST=1; bounded by counts and a deadline
// of 15 minutes.
func TestSoakListing(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test: builds and loads the echo binary")
	}
	if os.Getenv("A2AGEN_SOAK") == "" && os.Getenv("A2AGEN_SOAK_LIST") == "" {
		t.Skip("soak test: set A2AGEN_SOAK=1 (make soak) or A2AGEN_SOAK_LIST=1 to run it, on an otherwise idle machine")
	}
	tasks := listSoakTasks
	if v := os.Getenv("A2AGEN_SOAK_LIST_TASKS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2*40*listSoakContextTasks {
			t.Fatalf("A2AGEN_SOAK_LIST_TASKS=%q: want a number of at least %d (two contexts of each of 40 owners)", v, 2*40*listSoakContextTasks)
		}
		tasks = n
	}
	bin := proctest.Build(t, ".", ".")
	// Every store keeps at most about 8,000 finished hello tasks of one
	// owner (host.DefaultMaxTerminalTasksPerOwner, MaxBytesPerOwner, which
	// echo applies; anonymous callers are one owner), so the tasks are
	// spread over the anonymous owner and 39 bearer subjects: an anonymous
	// listing meets its 5,000 among the 200,000.
	for _, c := range []struct {
		st     string
		owners int
	}{{"memory", 40}, {"sqlite", 40}} {
		st := c.st
		t.Run(st, func(t *testing.T) {
			url := st
			if st == "sqlite" {
				url = "sqlite:" + filepath.Join(t.TempDir(), "echo.db")
			}
			// Every finished task is kept: the listings must meet them all.
			p := proctest.Start(t, bin, proctest.Options{Args: []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
				"--store", url, "--max-terminal-tasks", "0"}})
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			clients := p.Clients(t)

			fillers := []a2av1.A2AServiceClient{clients[runtime.BindingGRPC]}
			for k := 1; k < c.owners; k++ {
				fillers = append(fillers, p.Client(t, runtime.BindingGRPC, runtime.WithHeader("Authorization", fmt.Sprintf("Bearer filler-%02d", k))))
			}
			began := time.Now()
			fillContexts(ctx, t, fillers, tasks)
			t.Logf("%s: %d tasks stored in %v, %d of them anonymous", st, tasks, time.Since(began).Round(time.Millisecond), tasks/c.owners)

			calls := 150
			baseline := wellBehaved(ctx, t, clients, calls)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			lists := loopListings(ctx, t, p.Endpoints[runtime.BindingJSONRPC], stop, &wg)
			loaded := wellBehaved(ctx, t, clients, calls)
			close(stop)
			wg.Wait()
			p50, p99, n := lists.percentiles()
			t.Logf("%s, %d tasks: well-behaved p99 undisturbed %v, next to %d listing loops %v (%.1f×); %d listings, p50 %v, p99 %v",
				st, tasks, baseline, listSoakLoops, loaded, float64(loaded)/float64(baseline), n, p50, p99)
			if n == 0 {
				t.Error("no listing succeeded")
			}
			if limit := soakSlowdown * max(baseline, soakFloor); loaded > limit {
				t.Errorf("p99 next to the listings %v > %d × max(undisturbed %v, %v)", loaded, soakSlowdown, baseline, soakFloor)
			}
			// The control: the same loops sending the cheapest call there
			// is (GetTask of a task that does not exist), so the log tells
			// what any four closed loops cost the well-behaved clients on
			// this machine, listings or not.
			stop = make(chan struct{})
			gets := loopCalls(ctx, t, p.Endpoints[runtime.BindingJSONRPC], "GetTask", []string{`{"id":"no-such-task"}`}, stop, &wg)
			control := wellBehaved(ctx, t, clients, calls)
			close(stop)
			wg.Wait()
			_, _, gn := gets.percentiles()
			t.Logf("%s, control: next to %d loops of GetTask (unknown id, %d calls) the well-behaved p99 is %v (%.1f×)",
				st, listSoakLoops, gn, control, float64(control)/float64(baseline))
			// Every task is still there, and counted exactly.
			list, err := clients[runtime.BindingGRPC].ListTasks(ctx, &a2av1.ListTasksRequest{ContextId: soakContext(0)})
			if err != nil || list.GetTotalSize() != listSoakContextTasks || len(list.GetTasks()) != 50 {
				t.Errorf("ListTasks of a full context: total %d, %d tasks, %v; want %d, 50", list.GetTotalSize(), len(list.GetTasks()), err, listSoakContextTasks)
			}
		})
	}
}

func soakContext(i int) string { return fmt.Sprintf("soak-%05d", i) }

// fillContexts sends n hello messages from 16 goroutines, the i-th through
// clients[i%len(clients)] (one per owner), listSoakContextTasks per context
// of each owner.
func fillContexts(ctx context.Context, t *testing.T, clients []a2av1.A2AServiceClient, n int) {
	t.Helper()
	perOwner := n / len(clients)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				msg := proctest.UserMessage("hello")
				msg.ContextId = soakContext(i / len(clients) % max(perOwner/listSoakContextTasks, 1))
				resp, err := clients[i%len(clients)].SendMessage(ctx, &a2av1.SendMessageRequest{Message: msg})
				if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
					t.Errorf("filling: task %d: %v, %v", i, resp.GetTask().GetStatus().GetState(), err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// listLatencies collects the latencies of the listing loops.
type listLatencies struct {
	mu  sync.Mutex
	lat []time.Duration
}

func (l *listLatencies) percentiles() (p50, p99 time.Duration, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lat) == 0 {
		return 0, 0, 0
	}
	slices.Sort(l.lat)
	return l.lat[len(l.lat)/2], l.lat[len(l.lat)*99/100], len(l.lat)
}

// loopListings starts listSoakLoops goroutines, each with a connection of
// its own, that post anonymous ListTasks calls to the JSON-RPC endpoint
// until stop, at most 100,000 each.
func loopListings(ctx context.Context, t *testing.T, endpoint string, stop <-chan struct{}, wg *sync.WaitGroup) *listLatencies {
	return loopCalls(ctx, t, endpoint, "ListTasks", []string{
		`{"contextId":"nope"}`,
		`{"contextId":"` + soakContext(0) + `"}`,
		`{"contextId":"` + soakContext(1) + `","status":"TASK_STATE_COMPLETED","pageSize":10}`,
	}, stop, wg)
}

// loopCalls is loopListings' loop for any JSON-RPC method: listSoakLoops
// goroutines, each on a connection of its own, cycle through params. An
// answer must be a result (ListTasks) or, for GetTask, the TaskNotFound
// error the control expects.
func loopCalls(ctx context.Context, t *testing.T, endpoint, method string, params []string, stop <-chan struct{}, wg *sync.WaitGroup) *listLatencies {
	l := &listLatencies{}
	for g := range listSoakLoops {
		wg.Go(func() {
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer hc.CloseIdleConnections()
			mine := make([]time.Duration, 0, 4096)
			defer func() {
				l.mu.Lock()
				l.lat = append(l.lat, mine...)
				l.mu.Unlock()
			}()
			for i := range 100_000 {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params[(g+i)%len(params)] + `}`
				start := time.Now()
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				resp, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						t.Errorf("%s: %v", method, err)
					}
					return
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				answered := bytes.Contains(out, []byte(`"totalSize"`)) || bytes.Contains(out, []byte(`"tasks":[]`))
				if method == "GetTask" {
					answered = bytes.Contains(out, []byte(`-32001`))
				}
				if resp.StatusCode != http.StatusOK || !answered {
					t.Errorf("%s %s: %d %.300s", method, body, resp.StatusCode, out)
					return
				}
				mine = append(mine, time.Since(start))
			}
		})
	}
	return l
}
