package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// The official JS SDK (@a2a-js/sdk, pinned in jspeer/package.json and
// package-lock.json) takes part as Node programs in ./jspeer: client.mjs
// runs its v0.3 legacyCompat client transports through the echo contract
// and prints one step report per line (sdkpeer's shape); server.mjs serves
// the echo contract as A2A v0.3 only. TestMain installs the lockfile's
// packages with "npm ci" when jspeer/node_modules is missing or older than
// the lockfile. Without Node ≥ 20 the JS tests skip, saying so; with
// A2AGEN_TEST_JS set (CI sets it) they fail instead.

// jsEnv is the variable that turns a missing Node or npm into a failure.
const jsEnv = "A2AGEN_TEST_JS"

var (
	nodeBin     string // node, when found
	jsSkipWhy   string // why the JS tests cannot run here ("" when they can)
	jsSetupErr  error  // npm ci failed
	jspeerDir   = "jspeer"
	nodeVersion = regexp.MustCompile(`^v(\d+)\.`)
)

// setupJSPeer finds Node (≥ 20, as @a2a-js/sdk 1.3 requires) and npm and
// installs jspeer's locked packages when they are missing or stale.
func setupJSPeer(ctx context.Context) {
	node, err := exec.LookPath("node")
	if err != nil {
		jsSkipWhy = "node is not installed (the JS SDK interop tests need Node 20 or newer)"
		return
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	m := nodeVersion.FindSubmatch(bytes.TrimSpace(out))
	if err != nil || m == nil {
		jsSkipWhy = fmt.Sprintf("node --version: %q, %v", out, err)
		return
	}
	if major, _ := strconv.Atoi(string(m[1])); major < 20 {
		jsSkipWhy = fmt.Sprintf("node is %s; @a2a-js/sdk 1.3 needs Node 20 or newer", bytes.TrimSpace(out))
		return
	}
	nodeBin = node
	lock, err := os.Stat(filepath.Join(jspeerDir, "package-lock.json"))
	if err != nil {
		jsSetupErr = err
		return
	}
	installed, err := os.Stat(filepath.Join(jspeerDir, "node_modules", ".package-lock.json"))
	if err == nil && !installed.ModTime().Before(lock.ModTime()) {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		jsSkipWhy = "npm is not installed (needed to install jspeer's packages)"
		return
	}
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = jspeerDir
	if msg, err := cmd.CombinedOutput(); err != nil {
		jsSetupErr = fmt.Errorf("npm ci in %s: %w\n%s", jspeerDir, err, msg)
	}
}

// requireJS skips (or, with A2AGEN_TEST_JS set, fails) a test that needs
// the JS peer where Node is missing, and fails it when npm ci failed.
func requireJS(t *testing.T) {
	t.Helper()
	if jsSetupErr != nil {
		t.Fatalf("the JS peer could not be installed: %v", jsSetupErr)
	}
	if jsSkipWhy != "" {
		if os.Getenv(jsEnv) != "" {
			t.Fatalf("%s (%s is set, so this is a failure)", jsSkipWhy, jsEnv)
		}
		t.Skipf("%s; set %s=1 to make this a failure", jsSkipWhy, jsEnv)
	}
}

// runJSClient runs jspeer/client.mjs against a card on one binding.
func runJSClient(t *testing.T, cardURL, binding string, extra ...string) sdkClientRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	args := append([]string{"client.mjs", "--card", cardURL, "--binding", binding}, extra...)
	cmd := exec.CommandContext(ctx, nodeBin, args...)
	cmd.Dir = jspeerDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	run := sdkClientRun{err: err, stderr: stderr.String()}
	dec := json.NewDecoder(&stdout)
	for {
		var s stepReport
		if derr := dec.Decode(&s); derr != nil {
			if !errors.Is(derr, io.EOF) {
				t.Errorf("jspeer client printed something that is not a step report: %v", derr)
			}
			break
		}
		run.steps = append(run.steps, s)
	}
	return run
}

// jsDeviations are the steps the JS SDK's v0.3 client cannot pass against
// any server, keyed by binding, with the reason (each seen in its source).
var jsDeviations = map[string]map[string]string{
	// The v0.3 gRPC and HTTP+JSON transports read events through
	// FromProto.taskArtifactUpdateEvent (dist/compat/v0_3/client), which
	// copies lastChunk but not append, so every chunk reads as a new artifact.
	"GRPC":      {"stream-5-chunks": "the JS SDK's v0.3 gRPC client drops TaskArtifactUpdateEvent.append"},
	"HTTP+JSON": {"stream-5-chunks": "the JS SDK's v0.3 HTTP+JSON client drops TaskArtifactUpdateEvent.append"},
}

// jsWaiting names the bindings whose JS client runs wait for a2agen's side
// of issue 25, with what they wait for (skipped until it lands).
var jsWaiting = map[string]string{}

// jsClientKnown are the JS client's steps skipped against examples/echo
// --v03 when they fail, by binding, with the reason (failures on a2agen's
// side still to fix); once fixed they pass as any other step. None today:
// the last (a ProtoJSON send without configuration.blocking read as
// blocking, issue 25) is fixed.
var jsClientKnown = map[string]map[string]string{}

// v03PushWaiting says what the check that deliveries to configs registered
// over v0.3 arrive in v0.3 form (the Task) waits for ("" once it landed).
var v03PushWaiting = ""

// TestJSClientV03ToOurDualEcho runs the official JS SDK's v0.3 client
// (legacyCompat JSON-RPC, HTTP+JSON and gRPC transports, from its card
// resolver on the echo's card) against examples/echo --v03: send (task,
// direct message, contextId, input-required and follow-up, fail, reject,
// returnImmediately), get with history, cancel, the typed errors
// TaskNotFound and TaskNotCancelable, streams, resubscription, the cards,
// and the four push-config calls with delivery to a webhook here.
func TestJSClientV03ToOurDualEcho(t *testing.T) {
	t.Parallel()
	requireJS(t)
	ours := startOurV03Echo(t)
	hook := newWebhook(t)
	for _, b := range bindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			skipIfWaiting(t, jsWaiting, b)
			run := runJSClient(t, ours.endpoints["card"], b, "--webhook", hook.url(), "--bearer", echoBearer)
			if len(run.steps) == 0 {
				t.Fatalf("jspeer client ran no step (%v); stderr:\n%s", run.err, run.stderr)
			}
			for _, s := range run.steps {
				t.Run(s.Scenario+"/"+s.Step, func(t *testing.T) {
					if why, known := jsClientKnown[b][s.Step]; known && !s.OK {
						t.Skip("known: " + why + " (" + s.Problem + ")")
					}
					if why, known := jsDeviations[b][s.Step]; known {
						if s.OK {
							t.Errorf("passes now although %s (deviation gone?)", why)
						}
						return
					}
					if !s.OK {
						t.Errorf("%s: %s (error reason %q: %s; fields %v)", s.Op, s.Problem, s.Reason, s.Error, s.Fields)
					}
				})
			}
			t.Run("push-delivery", func(t *testing.T) {
				// Derived from the returnImmediately failure, when it fails.
				if why, known := jsClientKnown[b]["push-delivery"]; known {
					if s, ran := run.step("returnImmediately-then-poll"); ran && !s.OK {
						t.Skip("known: " + why)
					}
				}
				created, ok := run.step("create-push-config")
				if !ok || !created.OK {
					t.Fatalf("the push scenario did not create its config: %+v", created)
				}
				posts := hook.waitTerminal(t, fmt.Sprint(created.Fields["taskId"]))
				checkDeliveries(t, posts, "Bearer push-secret", "X-A2A-Notification-Token", fmt.Sprint(created.Fields["token"]))
				t.Run("in-v0.3-form", func(t *testing.T) {
					if v03PushWaiting != "" {
						t.Skip("waiting: " + v03PushWaiting)
					}
					checkV03TaskDeliveries(t, posts)
				})
			})
		})
	}
}

// checkV03TaskDeliveries checks what a v0.3 receiver expects from a config
// registered over v0.3: every delivery a bare v0.3 event, among them the
// Task in its terminal state.
func checkV03TaskDeliveries(t *testing.T, posts []pushPost) {
	t.Helper()
	for i, p := range posts {
		if p.form != "0.3" {
			t.Errorf("delivery %d is in the %s form (%.120s), want a bare v0.3 event", i, p.form, p.body)
		}
	}
	if !slices.ContainsFunc(posts, func(p pushPost) bool {
		return p.form == "0.3" && p.event.GetTask() != nil && eventState(p.event) == a2av1.TaskState_TASK_STATE_COMPLETED
	}) {
		t.Errorf("no delivery is the completed Task in v0.3 form; got %v", describePosts(posts))
	}
}

// startJSServer runs jspeer/server.mjs (the JS SDK serving v0.3 only).
func startJSServer(t *testing.T) *peer {
	t.Helper()
	return startPeer(t, "jspeer server", nodeBin, []string{"card", "jsonrpc", "rest", "grpc"}, filepath.Join(jspeerDir, "server.mjs"))
}

// jsV03Quirks is how the JS SDK's v0.3 server answers where a2agen's
// clients must take more than one answer. Its push sender sends the
// config's token (as X-A2A-Notification-Token) only when the config has no
// authentication, so with both set no token header arrives (pushTokenHeader
// ""). Over gRPC it reads v0.3's GetTaskRequest.history_length, which has
// no presence, as 0 when absent: a GetTask without historyLength answers no
// history there.
func jsV03Quirks(binding string) peerQuirks {
	return peerQuirks{
		messageToTerminalTask:    runtime.ErrUnsupportedOperation,
		subscribeToTerminalTask:  runtime.ErrUnsupportedOperation,
		missingPushConfig:        runtime.ErrTaskNotFound,
		noListTasks:              true,
		historyLengthUnsetIsZero: binding == "GRPC",
	}
}

// ourJSWaiting: like jsWaiting, for a2agen's clients against the JS SDK's
// v0.3 server.
var ourJSWaiting = map[string]string{}

// TestOurV03ClientsToJSServer drives the official JS SDK serving A2A v0.3
// only (jspeer/server.mjs: its legacyCompat JSON-RPC and HTTP+JSON
// handlers, LegacyA2AService over gRPC, its v0.3 card) with a2agen's typed
// client from agentcard.Discover on that card, which picks the 0.3
// interface of each binding (compat/a2av03's JSON-RPC and HTTP+JSON
// transports, compat/a2av03grpc's): every operation of the echo contract.
func TestOurV03ClientsToJSServer(t *testing.T) {
	t.Parallel()
	requireJS(t)
	js := startJSServer(t)
	hook := newWebhook(t)
	for _, b := range v03Bindings {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			skipIfWaiting(t, ourJSWaiting, b)
			c, err := agentcard.Discover(stepContext(t), httpBase(t, js.endpoints["card"]),
				agentcard.WithBindings(runtime.Binding(b)),
				agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
			if err != nil {
				t.Fatalf("agentcard.Discover of the JS SDK's v0.3 card: %v", err)
			}
			defer c.Close()
			if got, v := c.Interface.GetProtocolBinding(), c.Interface.GetProtocolVersion(); got != b || v != "0.3" {
				t.Fatalf("Discover chose %s %s, want %s 0.3", got, v, b)
			}
			runEchoContract(t, b, c, hook, jsV03Quirks(b))
		})
	}
}
