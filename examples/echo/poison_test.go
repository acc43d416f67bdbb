//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// Bounds of the PostgreSQL poison scenario (docs/limits.md, "One caller's
// bad string").
const (
	// poisonLoops anonymous goroutines send poisonCalls messages each.
	poisonLoops, poisonCalls = 4, 100
	// poisonWellBehaved is how many messages the well-behaved caller sends
	// meanwhile, and poisonMinSuccess the share that must succeed.
	poisonWellBehaved = 200
	poisonMinSuccess  = 0.99
	// poisonStreams "stream 20" tasks run meanwhile; none may fail.
	poisonStreams = 30
)

// TestPostgresPoisonedContextID is issue 26's reproduction: examples/echo
// on PostgreSQL, poisonLoops anonymous goroutines sending a message whose
// contextId holds a NUL byte (which PostgreSQL's text cannot store), with
// an inline push config to a loopback webhook, while a well-behaved caller
// sends messages and poisonStreams streams run. Before, the refused
// statement rolled back whole group-commit batches: the well-behaved
// caller's SendMessage failed 64 % of the time with an internal error and
// the streams' tasks went FAILED. Now the poisoned messages are
// InvalidParams at the server's edge, and at least poisonMinSuccess of the
// well-behaved messages succeed (all do, in practice) and every stream's
// task COMPLETES. Bounded in count and by a deadline.
func TestPostgresPoisonedContextID(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the echo binary and runs it on PostgreSQL")
	}
	t.Parallel() // its own processes, ports and store
	url := pgtest.URL(t)
	store := pgtest.WithSchema(url, pgtest.Schema(t, url))
	var hooks atomic.Int64
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hooks.Add(1) }))
	defer hook.Close()

	bin := proctest.Build(t, ".", ".")
	p := proctest.Start(t, bin, proctest.Options{Args: []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
		"--store", store, "--allow-private-webhooks", "--chunk-interval", "20ms"}})
	rpc := p.Endpoints[runtime.BindingJSONRPC]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// The poison: the request, as raw JSON-RPC.
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","contextId":"a\u0000b","role":"ROLE_USER","parts":[{"text":"hello"}]},`+
		`"configuration":{"taskPushNotificationConfig":{"url":%q}}}}`, hook.URL+"/hook")
	stop := make(chan struct{})
	var poisonWG sync.WaitGroup
	var poisoned, poisonRefused atomic.Int64
	var poisonOther sync.Map
	for range poisonLoops {
		poisonWG.Add(1)
		go func() {
			defer poisonWG.Done()
			hc := &http.Client{Timeout: 30 * time.Second}
			for range poisonCalls {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rpc, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				resp, err := hc.Do(req)
				if err != nil {
					poisonOther.Store(err.Error(), true)
					continue
				}
				var out struct {
					Error *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				poisoned.Add(1)
				switch {
				case err == nil && out.Error != nil && out.Error.Code == -32602 && strings.Contains(out.Error.Message, "message.contextId"):
					poisonRefused.Add(1)
				case err != nil:
					poisonOther.Store(err.Error(), true)
				case out.Error == nil:
					poisonOther.Store("accepted", true)
				default:
					poisonOther.Store(fmt.Sprintf("%d %s", out.Error.Code, out.Error.Message), true)
				}
			}
		}()
	}

	// Another caller's streams, started next to the poison.
	streamer := p.Client(t, runtime.BindingJSONRPC)
	type streamEnd struct {
		state a2av1.TaskState
		err   error
	}
	ends := make(chan streamEnd, poisonStreams)
	for i := range poisonStreams {
		go func() {
			last := a2av1.TaskState_TASK_STATE_UNSPECIFIED
			var err error
			for ev, e := range streamer.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("stream 20 #%d", i))}) {
				if e != nil {
					err = e
					break
				}
				if s := proctest.StateOf(ev); s != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
					last = s
				}
			}
			ends <- streamEnd{last, err}
		}()
	}

	// The well-behaved caller: poisonLoops connections at once (so that its
	// writes share batches with the poisoned ones), on every binding in turn.
	clients := p.Clients(t)
	var mu sync.Mutex
	ok, failedStates := 0, 0
	errs := map[string]int{}
	var callers sync.WaitGroup
	for w := range poisonLoops {
		callers.Add(1)
		go func() {
			defer callers.Done()
			for i := w; i < poisonWellBehaved; i += poisonLoops {
				b := proctest.Bindings[i%len(proctest.Bindings)]
				resp, err := clients[b].SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("hello %d", i))})
				mu.Lock()
				switch {
				case err != nil:
					errs[err.Error()]++
				case resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED:
					failedStates++
					errs["state "+resp.GetTask().GetStatus().GetState().String()]++
				default:
					ok++
				}
				mu.Unlock()
			}
		}()
	}
	callers.Wait()
	streamStates := map[a2av1.TaskState]int{}
	for range poisonStreams {
		e := <-ends
		if e.err != nil {
			errs["stream: "+e.err.Error()]++
		}
		streamStates[e.state]++
	}
	close(stop)
	poisonWG.Wait()

	var other []string
	poisonOther.Range(func(k, _ any) bool { other = append(other, k.(string)); return true })
	rate := float64(ok) / poisonWellBehaved
	t.Logf("poisoned messages sent %d, refused as InvalidParams %d, otherwise %v; well-behaved %d/%d succeeded (%.1f %%); streams ended %v; webhook posts %d; errors %v",
		poisoned.Load(), poisonRefused.Load(), other, ok, poisonWellBehaved, 100*rate, streamStates, hooks.Load(), errs)
	if rate < poisonMinSuccess {
		t.Errorf("well-behaved success rate %.1f %% < %.0f %%: %v", 100*rate, 100*poisonMinSuccess, errs)
	}
	if failedStates > 0 || streamStates[a2av1.TaskState_TASK_STATE_COMPLETED] != poisonStreams {
		t.Errorf("other callers' tasks did not all complete: %d messages not COMPLETED, streams ended %v", failedStates, streamStates)
	}
	if poisonRefused.Load() != poisoned.Load() || len(other) > 0 {
		t.Errorf("poisoned messages: %d of %d refused as InvalidParams naming message.contextId; otherwise %v", poisonRefused.Load(), poisoned.Load(), other)
	}
	if poisoned.Load() == 0 {
		t.Error("no poisoned message was sent: the test proved nothing")
	}
}
