package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2agen/a2agen/interop/internal/peerproc"
)

// TestCLIAgainstSDKServer runs the a2a command (cmd/a2a, built from the
// main module) against the official Go SDK's server on every binding:
// card, send (blocking and streaming), get, list, cancel, and the exit
// codes of an A2A error and of a failed task. Output is -o json, the
// stable form, so the test reads the SDK's answers as ProtoJSON.
func TestCLIAgainstSDKServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "a2a")
	if err := peerproc.Build(ctx, "..", bin, "./cmd/a2a"); err != nil {
		t.Fatalf("building cmd/a2a: %v", err)
	}
	sdk := startSDKPeer(t)
	cardURL := sdk.endpoints["card"]

	for _, b := range []string{"jsonrpc", "rest", "grpc"} {
		t.Run(b, func(t *testing.T) {
			a2a := func(args ...string) (string, string, int) {
				t.Helper()
				cctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				cmd := exec.CommandContext(cctx, bin, append([]string{"--binding", b}, args...)...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				if err != nil && !errors.As(err, &exit) {
					t.Fatalf("a2a %s: %v", strings.Join(args, " "), err)
				}
				return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
			}
			ok := func(args ...string) []map[string]any {
				t.Helper()
				out, errOut, code := a2a(append(args, "-o", "json")...)
				if code != 0 {
					t.Fatalf("a2a %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
				}
				var objs []map[string]any
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					var m map[string]any
					if err := json.Unmarshal([]byte(line), &m); err != nil {
						t.Fatalf("a2a %s: not one JSON object per line: %q", strings.Join(args, " "), line)
					}
					objs = append(objs, m)
				}
				return objs
			}
			get := func(m map[string]any, path ...string) string {
				var v any = m
				for _, p := range path {
					obj, _ := v.(map[string]any)
					v = obj[p]
				}
				s, _ := v.(string)
				return s
			}

			if card := ok("card", cardURL); get(card[0], "name") == "" {
				t.Errorf("card: %v", card)
			}
			sent := ok("send", cardURL, "hello")
			if get(sent[0], "task", "status", "state") != "TASK_STATE_COMPLETED" {
				t.Errorf("send hello: %v", sent)
			}
			task, ctxID := get(sent[0], "task", "id"), get(sent[0], "task", "contextId")
			if got := ok("get", cardURL, task); get(got[0], "id") != task {
				t.Errorf("get: %v", got)
			}
			if list := ok("list", cardURL, "--context", ctxID); !strings.Contains(mustJSON(t, list), task) {
				t.Errorf("list --context: %v", list)
			}
			events := ok("send", "--stream", cardURL, "stream", "3")
			last := events[len(events)-1]
			if len(events) < 4 || get(last, "statusUpdate", "status", "state") != "TASK_STATE_COMPLETED" {
				t.Errorf("send --stream: %d events, last %v", len(events), last)
			}
			slow := ok("send", "--return-immediately", cardURL, "slow", "5000")
			if c := ok("cancel", cardURL, get(slow[0], "task", "id")); get(c[0], "status", "state") != "TASK_STATE_CANCELED" {
				t.Errorf("cancel: %v", c)
			}
			if _, errOut, code := a2a("get", cardURL, "no-such-task"); code != 3 || !strings.Contains(errOut, "TaskNotFound") {
				t.Errorf("get no-such-task: exit %d, %s", code, errOut)
			}
			if _, errOut, code := a2a("send", cardURL, "fail"); code != 5 {
				t.Errorf("send fail: exit %d, %s", code, errOut)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
