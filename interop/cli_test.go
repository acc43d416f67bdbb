package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2agen/a2agen/interop/internal/peerproc"
)

// TestCLIAgainstSDKServer runs the a2a command (cmd/a2a, built from the
// main module) against the official Go SDK's server on every binding:
// card, send (blocking and streaming), get, list, cancel, subscribe, the
// push config commands, webhook listen receiving the SDK server's
// deliveries on loopback, and the exit codes of the a2a-cli specification
// for an A2A error (1) and a failed task (0, the outcome in a warning). Output is -o json (webhook listen's text aside), the
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
				cmd := exec.CommandContext(cctx, bin, append([]string{"--transport", b}, args...)...)
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

			if card := ok("card", "get", "-a", cardURL); get(card[0], "name") == "" {
				t.Errorf("card: %v", card)
			}
			sent := ok("send", "-a", cardURL, "hello")
			if get(sent[0], "task", "status", "state") != "TASK_STATE_COMPLETED" {
				t.Errorf("send hello: %v", sent)
			}
			task, ctxID := get(sent[0], "task", "id"), get(sent[0], "task", "contextId")
			if got := ok("task", "get", "-a", cardURL, task); get(got[0], "id") != task {
				t.Errorf("get: %v", got)
			}
			if list := ok("task", "list", "-a", cardURL, "--context-id", ctxID); !strings.Contains(mustJSON(t, list), task) {
				t.Errorf("list --context: %v", list)
			}
			events := ok("send", "--stream", "-a", cardURL, "stream", "3")
			last := events[len(events)-1]
			if len(events) < 4 || get(last, "statusUpdate", "status", "state") != "TASK_STATE_COMPLETED" {
				t.Errorf("send --stream: %d events, last %v", len(events), last)
			}
			slow := ok("send", "--async", "-a", cardURL, "slow", "5000")
			if c := ok("task", "cancel", "-a", cardURL, get(slow[0], "task", "id")); get(c[0], "status", "state") != "TASK_STATE_CANCELED" {
				t.Errorf("cancel: %v", c)
			}

			// subscribe follows a running task to its end: the task first,
			// COMPLETED last.
			running := ok("send", "--async", "-a", cardURL, "slow", "1000")
			runID := get(running[0], "task", "id")
			sub := ok("task", "subscribe", "--stream", "-a", cardURL, runID)
			if lastSub := sub[len(sub)-1]; get(sub[0], "task", "id") != runID ||
				get(lastSub, "statusUpdate", "status", "state") != "TASK_STATE_COMPLETED" {
				t.Errorf("subscribe: first %v, last %v", sub[0], lastSub)
			}

			// webhook listen receives the SDK server's deliveries, first
			// for an inline config of send, then for one made with push
			// create; the push commands read and delete it.
			hook := startWebhookListen(ctx, t, bin, "hook-token")
			inline := ok("send", "--async", "--push-url", hook.url+"/inline", "--push-token", "hook-token", "-a", cardURL, "slow", "100")
			hook.waitFor(t, "Delivery: /inline\nTask ID: "+get(inline[0], "task", "id")+"\nToken: verified\nEvent: status COMPLETED\n")

			input := ok("send", "-a", cardURL, "input")
			inTask, inCtx := get(input[0], "task", "id"), get(input[0], "task", "contextId")
			created := ok("task", "push-config", "create", "-a", cardURL, inTask, hook.url+"/later", "--token", "hook-token", "--id", "cfg-1")
			if get(created[0], "id") != "cfg-1" || get(created[0], "taskId") != inTask || get(created[0], "url") != hook.url+"/later" {
				t.Errorf("push create: %v", created)
			}
			if got := ok("task", "push-config", "get", "-a", cardURL, inTask, "cfg-1"); get(got[0], "id") != "cfg-1" || get(got[0], "url") != hook.url+"/later" {
				t.Errorf("push get: %v", got)
			}
			if list := ok("task", "push-config", "list", "-a", cardURL, inTask); !strings.Contains(mustJSON(t, list), hook.url+"/later") {
				t.Errorf("push list: %v", list)
			}
			ok("send", "--task-id", inTask, "--context-id", inCtx, "-a", cardURL, "more")
			hook.waitFor(t, "Delivery: /later\nTask ID: "+inTask+"\nToken: verified\nEvent: status COMPLETED\n")
			ok("task", "push-config", "delete", "-a", cardURL, inTask, "cfg-1")
			if list := ok("task", "push-config", "list", "-a", cardURL, inTask); strings.Contains(mustJSON(t, list), "cfg-1") {
				t.Errorf("push list after delete: %v", list)
			}
			if _, errOut, code := a2a("task", "push-config", "get", "-a", cardURL, inTask, "cfg-1"); code != 1 {
				t.Errorf("push get after delete: exit %d, %s", code, errOut)
			}
			hook.stop(t)

			if _, errOut, code := a2a("task", "get", "-a", cardURL, "no-such-task"); code != 1 || !strings.Contains(errOut, "Code: TaskNotFoundError") {
				t.Errorf("get no-such-task: exit %d, %s", code, errOut)
			}
			// The command did its job: exit 0, the outcome in a warning.
			if _, errOut, code := a2a("send", "-a", cardURL, "fail"); code != 0 || !strings.Contains(errOut, "ended FAILED") {
				t.Errorf("send fail: exit %d, %s", code, errOut)
			}
		})
	}
}

// webhookListen is a2a webhook listen running as a process on loopback.
type webhookListen struct {
	url    string
	cmd    *exec.Cmd
	stdout *lockedBuffer
}

// startWebhookListen runs a2a webhook listen on a free loopback port,
// accepting deliveries that carry token, until stop.
func startWebhookListen(ctx context.Context, t *testing.T, bin, token string) *webhookListen {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "webhook", "listen", "127.0.0.1:0", "--token", token)
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &webhookListen{cmd: cmd, stdout: stdout}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	re := regexp.MustCompile(`listening on (http://\S+)/`)
	for deadline := time.Now().Add(30 * time.Second); h.url == ""; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			h.url = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("webhook listen printed no address: %q", stderr.String())
		}
	}
	return h
}

// waitFor waits until the receiver printed want.
func (h *webhookListen) waitFor(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(h.stdout.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("webhook listen did not print %q; it printed:\n%s", want, h.stdout.String())
		}
	}
}

// stop interrupts the receiver, which should then exit 0.
func (h *webhookListen) stop(t *testing.T) {
	t.Helper()
	if err := h.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Wait(); err != nil {
		t.Errorf("webhook listen, interrupted: %v", err)
	}
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
