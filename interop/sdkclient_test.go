package interop

import (
	"fmt"
	"testing"
)

// startOurEcho runs a2agen's examples/echo on loopback for the calling test,
// with loopback webhooks allowed (its SSRF guard refuses them by default).
func startOurEcho(t *testing.T) *peer {
	t.Helper()
	if echoBuildErr != nil {
		t.Fatalf("examples/echo does not build: %v", echoBuildErr)
	}
	return startPeer(t, "examples/echo", echoBin, []string{"card", "jsonrpc", "rest", "grpc"}, echoArgs()...)
}

// TestSDKClientToOurServer runs every scenario of the SDK's client against
// a2agen's examples/echo over each binding: all eleven operations, the
// error cases, streaming, re-subscription, and push delivery to a webhook
// in this process. Each step of the SDK peer's report is a subtest.
func TestSDKClientToOurServer(t *testing.T) {
	t.Parallel()
	ours := startOurEcho(t)
	hook := newWebhook(t)
	for _, b := range bindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			run := runSDKClient(t, ours.endpoints["card"], b, "all", "-webhook", hook.url(), "-bearer", echoBearer)
			reportSteps(t, run)
			t.Run("push-delivery", func(t *testing.T) {
				if echoLoopbackFlag == "" {
					t.Fatal("examples/echo has no flag to let its push sender deliver to loopback webhooks " +
						"(server/push.AllowPrivateNetworks); push delivery cannot be tested")
				}
				checkPushScenario(t, run, hook, ourPushHeaders)
			})
		})
	}
}

// TestSDKPeerSelfCheck runs the same scenarios of the SDK's client against
// the SDK peer's own server, expecting the SDK's known deviations: it shows
// that the peer implements the echo contract faithfully, so that what the
// other tests and the load benchmark compare is the same behaviour.
func TestSDKPeerSelfCheck(t *testing.T) {
	t.Parallel()
	sdk := startSDKPeer(t)
	hook := newWebhook(t)
	for _, b := range bindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			run := runSDKClient(t, sdk.endpoints["card"], b, "all", "-expect", "sdk", "-webhook", hook.url())
			reportSteps(t, run)
			t.Run("push-delivery", func(t *testing.T) {
				checkPushScenario(t, run, hook, sdkPushHeaders)
			})
		})
	}
}

// pushHeaders are what a server puts on its webhook requests.
type pushHeaders struct {
	contentType  string
	tokenHeaders []string
}

var (
	// ourPushHeaders: application/a2a+json and the token under both names (docs/operating.md, push notifications).
	ourPushHeaders = pushHeaders{"application/a2a+json", []string{"X-A2A-Notification-Token", "A2A-Notification-Token"}}
	// sdkPushHeaders: the SDK sender (v2.3.1 and v2.4.0: application/json and A2A-Notification-Token only).
	sdkPushHeaders = pushHeaders{"application/json", []string{"A2A-Notification-Token"}}
)

// checkPushScenario checks the deliveries the push scenario caused: the
// task with a config created while it ran, and the task with an inline
// config.
func checkPushScenario(t *testing.T, run sdkClientRun, hook *webhook, h pushHeaders) {
	t.Helper()
	created, ok := run.step("create-push-config")
	if !ok || !created.OK {
		t.Fatalf("the push scenario did not create its config: %+v", created)
	}
	taskID := fmt.Sprint(created.Fields["taskId"])
	posts := hook.waitTerminal(t, taskID)
	for _, th := range h.tokenHeaders {
		checkDeliveries(t, posts, "Bearer push-secret", th, fmt.Sprint(created.Fields["token"]))
	}
	for i, p := range posts {
		want := h.contentType
		if p.form == "0.3" {
			// A bare v0.3 event (a config registered over v0.3, issue 25)
			// goes out as plain JSON, as the SDKs' v0.3 senders post it.
			want = "application/json"
		}
		if got := p.header.Get("Content-Type"); got != want {
			t.Errorf("delivery %d (%s form): Content-Type %q, want %q", i, p.form, got, want)
		}
	}

	inline, ok := run.step("inline-push-config")
	if !ok || !inline.OK {
		t.Fatalf("the push scenario did not send its inline config: %+v", inline)
	}
	token := fmt.Sprint(inline.Fields["token"])
	posts = hook.waitTerminal(t, fmt.Sprint(inline.Fields["taskId"]))
	for i, p := range posts {
		if got := p.header.Get(h.tokenHeaders[0]); got != token {
			t.Errorf("inline config delivery %d (%s): %s %q, want %q", i, describeEvent(p.event), h.tokenHeaders[0], got, token)
		}
	}
}
