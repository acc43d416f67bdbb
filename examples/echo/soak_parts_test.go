//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// Bounds of the many-part soak (docs/limits.md, "Soak test").
const (
	// manyPartsRequests is how many many-part requests the soak sends,
	// manyPartsBytes about how large each is.
	manyPartsRequests = 100
	manyPartsBytes    = 5 << 20
	// manyPartsRSSBound is the most resident memory (VmHWM) the echo
	// process may reach through them.
	manyPartsRSSBound = 300 << 20
)

// TestSoakManyParts runs examples/echo (memory store) as a real process and
// sends it manyPartsRequests requests of about 5 MB, each a message of
// many parts, from four anonymous clients at once over every binding — the
// attack of issue 26, which took RSS to 2.1 GB in 35 requests when every
// such message was kept. Each must be refused, naming the limit
// (MaxJSONValues before decoding, or MaxPartsPerMessage after), the
// process's peak RSS must stay under manyPartsRSSBound, and the agent must
// still serve. Then it sends as many messages of one 3.9 MB part, within
// every budget: they are accepted, and MaxBytesPerOwner keeps what
// anonymous callers leave behind bounded, under the same RSS bound.
// Bounded in count (and by a deadline); runs with
// A2AGEN_SOAK like TestSoak (make soak), or alone with
// A2AGEN_SOAK_PARTS=1.
func TestSoakManyParts(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test: builds and loads the echo binary")
	}
	if os.Getenv("A2AGEN_SOAK") == "" && os.Getenv("A2AGEN_SOAK_PARTS") == "" {
		t.Skip("soak test: set A2AGEN_SOAK=1 (make soak) to run it")
	}
	bin := proctest.Build(t, ".", ".")
	p := proctest.Start(t, bin, proctest.Options{Args: []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, idle := procMemory(t, p.Pid())

	// Two kinds of 5 MB message: one-character parts (350,000 on JSON, a
	// million on gRPC), refused on their bytes before decoding
	// (runtime.MaxJSONValues); and 40,000 parts of 120 characters, within
	// MaxJSONValues, decoded and then refused (MaxPartsPerMessage).
	message := func(parts int, text string) string {
		part := `{"text":"` + text + `"},`
		return `{"messageId":"many","role":"ROLE_USER","parts":[` + strings.TrimSuffix(strings.Repeat(part, parts), ",") + `]}`
	}
	tiny := message(manyPartsBytes/13, "x")
	decodable := message(40_000, strings.Repeat("y", 120))
	rpcBody := func(msg string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":` + msg + `}}`
	}
	grpcMsg := &a2av1.Message{MessageId: "many", Role: a2av1.Role_ROLE_USER, Parts: make([]*a2av1.Part, manyPartsBytes/5)}
	for i := range grpcMsg.Parts {
		grpcMsg.Parts[i] = server.TextPart("x")
	}
	grpcClient := p.Client(t, runtime.BindingGRPC)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()

	// refusedJSON posts body and checks the answer names limit.
	refusedJSON := func(url, body, limit string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if err != nil {
			return err
		}
		if !strings.Contains(string(answer), `"limit":"`+limit+`"`) {
			return fmt.Errorf("answer %s %.300s does not name %s", resp.Status, answer, limit)
		}
		return nil
	}
	rpcURL, restURL := p.Endpoints[runtime.BindingJSONRPC], p.Endpoints[runtime.BindingHTTPJSON]+"/message:send"
	senders := []func() error{
		func() error { return refusedJSON(rpcURL, rpcBody(tiny), "MaxJSONValues") },
		func() error { return refusedJSON(restURL, `{"message":`+decodable+`}`, "MaxPartsPerMessage") },
		func() error { return refusedJSON(rpcURL, rpcBody(decodable), "MaxPartsPerMessage") },
		func() error {
			_, err := grpcClient.SendMessage(ctx, &a2av1.SendMessageRequest{Message: grpcMsg})
			if re := runtime.ErrorOrInternal(err); err == nil || re.Code() != runtime.CodeInvalidRequest || re.Metadata()["limit"] != "MaxJSONValues" {
				return fmt.Errorf("got %v, want InvalidRequest naming MaxJSONValues", err)
			}
			return nil
		},
	}
	var wg sync.WaitGroup
	for i, send := range senders {
		wg.Go(func() {
			for range manyPartsRequests / len(senders) {
				if err := send(); err != nil {
					t.Errorf("many-part request from client %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	_, refusedPeak := procMemory(t, p.Pid())

	// Then as many messages of one 3.9 MB part, within every budget:
	// accepted and echoed, and kept as finished tasks until
	// MaxBytesPerOwner (anonymous callers together) removes the oldest.
	accepted := strings.Repeat("z", 3_900_000)
	for i := range 2 {
		wg.Go(func() {
			c := grpcClient
			if i == 1 {
				c = p.Client(t, runtime.BindingJSONRPC)
			}
			for range manyPartsRequests / 2 {
				resp, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(accepted)})
				if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
					t.Errorf("a 3.9 MB message within the budgets: %v, %v", resp.GetTask().GetStatus().GetState(), err)
					return
				}
			}
		})
	}
	wg.Wait()

	rss, peak := procMemory(t, p.Pid())
	t.Logf("%d many-part requests of about %d MiB, 4 clients, then %d accepted messages of 3.9 MB, 2 clients: echo RSS idle %d MiB, peak through the refused %d MiB, after all %d MiB, peak %d MiB",
		manyPartsRequests, manyPartsBytes>>20, manyPartsRequests, idle>>20, refusedPeak>>20, rss>>20, peak>>20)
	if peak > manyPartsRSSBound {
		t.Errorf("echo's peak RSS %d MiB exceeds the documented %d MiB", peak>>20, manyPartsRSSBound>>20)
	}
	if _, err := grpcClient.SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage("after")}); err != nil {
		t.Errorf("SendMessage after the many-part requests: %v", err)
	}
}
