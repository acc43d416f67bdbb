package interop

import (
	"fmt"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// v03Deviations are the steps the official Go SDK's v0.3 client (v2.3.1
// and v2.4.0, a2acompat/a2av0) cannot pass against any server, keyed by binding: v0.3
// JSON-RPC has no tasks/list, and the SDK's v0.3 HTTP+JSON client rewrites
// the list response's member names to camelCase before reading them into
// snake_case fields, so it never sees totalSize or nextPageToken (its own
// v0.3 server's answers included).
var v03Deviations = map[string]map[string]bool{
	"JSONRPC": {"list-by-context-newest-first": true, "list-filter-status": true, "list-artifacts-only-when-asked": true,
		"list-pages": true, "list-statusTimestampAfter": true},
	"HTTP+JSON": {"list-by-context-newest-first": true, "list-pages": true},
	// v0.3's gRPC GetTaskRequest.history_length has no presence: the SDK
	// sends historyLength 0 as absent, which reads as "all history". The
	// v0.3.0 proto has no ListTasks rpc; the SDK's a2agrpc/v0 calls one
	// (a2a.v1.A2AService/ListTasks, its own addition), which a server of
	// the v0.3.0 proto answers Unimplemented. (Its client sends
	// CreateTaskPushNotificationConfig without the REQUIRED config_id when
	// the config has no id, which a2agen accepts: see
	// TestDeviation_V03GRPCCreatePushConfigWithoutConfigID.)
	"GRPC": {"get-task-historyLength-0": true, "list-by-context-newest-first": true, "list-filter-status": true,
		"list-artifacts-only-when-asked": true, "list-pages": true, "list-statusTimestampAfter": true},
}

// v03Waiting names the runs of an SDK build and binding that wait for
// a2agen's side of issue 25 and are skipped until it lands, with what they
// wait for.
var v03Waiting = map[string]string{}

// skipIfWaiting skips a run listed in v03Waiting.
func skipIfWaiting(t *testing.T, waiting map[string]string, key string) {
	t.Helper()
	if why, ok := waiting[key]; ok {
		t.Skip("waiting: " + why)
	}
}

// TestSDKV03ClientToOurDualEcho runs every scenario of the official Go
// SDK's v0.3 client transports (a separate process) against a2agen's
// examples/echo --v03, on JSON-RPC, HTTP+JSON and gRPC, with the SDK at the
// version go.mod pins and at v2.3.1: send, tasks, cancel, errors, stream,
// resubscribe, the extended card, extensions and push configs with
// delivery to a webhook in this process; its v0.3 gRPC client (a2agrpc/v0)
// against the echo's a2a.v1.A2AService. A task the SDK made over v0.3 is
// then read over v1.0 by a2agen's client (one store).
func TestSDKV03ClientToOurDualEcho(t *testing.T) {
	t.Parallel()
	if echoBuildErr != nil {
		t.Fatalf("examples/echo does not build: %v", echoBuildErr)
	}
	ours := startPeer(t, "examples/echo --v03", echoBin, []string{"card", "jsonrpc", "rest", "grpc"}, append(echoArgs(), "-v03")...)
	hook := newWebhook(t)
	for _, sdk := range sdkBuilds {
		for _, b := range bindings {
			t.Run(sdk.version+"/"+b, func(t *testing.T) {
				t.Parallel()
				skipIfWaiting(t, v03Waiting, sdk.version+" "+b)
				run := runSDKClientOf(t, *sdk.bin, ours.endpoints["card"], b, "all", "-version", "0.3", "-webhook", hook.url(), "-bearer", echoBearer)
				if len(run.steps) == 0 {
					t.Fatalf("sdkpeer client ran no step (%v); stderr:\n%s", run.err, run.stderr)
				}
				for _, s := range run.steps {
					t.Run(s.Scenario+"/"+s.Step, func(t *testing.T) {
						if !s.OK && !v03Deviations[b][s.Step] {
							t.Errorf("%s: %s (error reason %q: %s; fields %v)", s.Op, s.Problem, s.Reason, s.Error, s.Fields)
						}
					})
				}
				t.Run("push-delivery", func(t *testing.T) {
					checkPushScenario(t, run, hook, ourV03PushHeaders)
					for _, step := range []string{"create-push-config", "inline-push-config"} {
						if s, ok := run.step(step); ok {
							checkV03PushForm(t, hook, fmt.Sprint(s.Fields["taskId"]))
						}
					}
				})
				// One store for both versions: the task the SDK made over v0.3
				// is read over v1.0 on the same binding by a2agen's client.
				t.Run("task-read-over-v1.0", func(t *testing.T) {
					s, ok := run.step("hello-completes-with-echo-artifact")
					id, _ := s.Fields["taskId"].(string)
					if !ok || id == "" {
						t.Fatalf("no task id from the SDK's send step (%v)", s)
					}
					c := ourClient(t, b, ours.endpoints[map[string]string{"JSONRPC": "jsonrpc", "HTTP+JSON": "rest", "GRPC": "grpc"}[b]])
					task, err := c.GetTask(stepContext(t), &a2av1.GetTaskRequest{Id: id})
					if err != nil {
						t.Fatalf("GetTask over v1.0 of the task made over v0.3: %v", err)
					}
					wantState(t, task, a2av1.TaskState_TASK_STATE_COMPLETED)
					wantArtifacts(t, task, "Echo: hello")
				})
			})
		}
	}
}
