package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// The official Go SDK's v0.3 line (github.com/a2aproject/a2a-go v0.3.15,
// the old module path) runs as ./sdkpeer03, a module of its own (its types
// would clash with the v2 SDK's), built by TestMain into sdkpeer03Bin.

// sdkV03LineBindings are the bindings the v0.3 line serves: JSON-RPC and
// gRPC (it has no HTTP+JSON server).
var sdkV03LineBindings = []string{"JSONRPC", "GRPC"}

// sdkV03LineQuirks is how the v0.3 line's server answers where a2agen's
// clients must take more than one answer; its resubscriptions start with
// the next event, without the Task.
func sdkV03LineQuirks(binding string) peerQuirks {
	return peerQuirks{
		messageToTerminalTask:    runtime.ErrInvalidParams,
		subscribeToTerminalTask:  runtime.ErrTaskNotFound,
		missingPushConfig:        runtime.ErrInternal,
		pushTokenHeader:          "X-A2A-Notification-Token",
		noListTasks:              true,
		historyLengthZeroIsUnset: binding == "GRPC",
		subscribeWithoutSnapshot: true,
	}
}

// TestOurV03ClientsToSDKV03LineServer drives the Go SDK's v0.3 line
// serving the echo contract (sdkpeer03 serve: a2asrv's JSON-RPC handler,
// a2agrpc's a2a.v1.A2AService, its v0.3 card without supportedInterfaces)
// with a2agen's typed client from agentcard.Discover on that card, on
// every binding it serves: every operation of the echo contract, streams,
// resubscription, push configs with delivery and typed errors included.
func TestOurV03ClientsToSDKV03LineServer(t *testing.T) {
	t.Parallel()
	sdk := startPeer(t, "sdkpeer03 serve", sdkpeer03Bin, []string{"card", "jsonrpc", "grpc"}, "serve")
	hook := newWebhook(t)
	for _, b := range sdkV03LineBindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			c, err := agentcard.Discover(stepContext(t), httpBase(t, sdk.endpoints["card"]),
				agentcard.WithBindings(runtime.Binding(b)),
				agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
			if err != nil {
				t.Fatalf("agentcard.Discover of the v0.3 line's card: %v", err)
			}
			defer c.Close()
			// The card's protocolVersion is "0.3.0"; its interfaces are read with it.
			if got, v := c.Interface.GetProtocolBinding(), c.Interface.GetProtocolVersion(); got != b || !strings.HasPrefix(v, "0.3") {
				t.Fatalf("Discover chose %s %s, want %s 0.3", got, v, b)
			}
			runEchoContract(t, b, c, hook, sdkV03LineQuirks(b))
		})
	}
}

// v03Delivery is one delivery as sdkpeer03's webhook decoded it.
type v03Delivery struct {
	Kind    string `json:"kind"`
	TaskID  string `json:"taskId"`
	State   string `json:"state"`
	Token   string `json:"token"`
	Problem string `json:"problem"`
}

// v03Received reads what sdkpeer03's webhook has decoded so far.
func v03Received(t *testing.T, hookURL string) []v03Delivery {
	t.Helper()
	u, err := url.Parse(hookURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/received"
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	var got []v03Delivery
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return got
}

// TestV03WebhookOfTheSDKV03LineGetsTasks: a push receiver built on the Go
// SDK's v0.3 line (sdkpeer03 webhook, which reads every body as the SDK's
// a2a.Task, as that line's own sender posts it) registered through
// examples/echo --v03 by the v2 SDK's v0.3 client on every binding (the
// push scenario: a config created while a task runs, and an inline one)
// receives the task's completed Task.
func TestV03WebhookOfTheSDKV03LineGetsTasks(t *testing.T) {
	t.Parallel()
	if v03PushWaiting != "" {
		t.Skip("waiting: " + v03PushWaiting)
	}
	ours := startOurV03Echo(t)
	receiver := startPeer(t, "sdkpeer03 webhook", sdkpeer03Bin, []string{"webhook"}, "webhook")
	hookURL := receiver.endpoints["webhook"]
	for _, b := range bindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			skipIfWaiting(t, v03Waiting, sdkBuilds[0].version+" "+b)
			run := runSDKClient(t, ours.endpoints["card"], b, "push", "-version", "0.3", "-webhook", hookURL, "-bearer", echoBearer)
			for _, step := range []string{"create-push-config", "inline-push-config"} {
				s, ok := run.step(step)
				if !ok || !s.OK {
					t.Fatalf("the push scenario's step %s: %+v; stderr:\n%s", step, s, run.stderr)
				}
				taskID := fmt.Sprint(s.Fields["taskId"])
				deadline := time.Now().Add(15 * time.Second)
				for {
					got := v03Received(t, hookURL)
					var mine []v03Delivery
					for _, d := range got {
						if d.TaskID == taskID || d.Problem != "" {
							mine = append(mine, d)
						}
					}
					if slices.ContainsFunc(mine, func(d v03Delivery) bool { return d.State == "completed" && d.Kind == "task" }) {
						for _, d := range mine {
							if d.Problem != "" {
								t.Errorf("%s: a delivery the v0.3 receiver could not read as a Task: %s", step, d.Problem)
							}
						}
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: no completed Task (kind task) for task %s within 15s; the receiver decoded %+v", step, taskID, mine)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
}
