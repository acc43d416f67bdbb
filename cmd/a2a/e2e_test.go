package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// The tests run the command in-process (run, with its cobra root) against
// the echo agent of examples/echo as a real process on loopback, on every
// binding. The human-readable output of each command is compared with the
// golden files in testdata/golden (ids, timestamps and ports normalised);
// go test -update rewrites them.

var update = flag.Bool("update", false, "rewrite the golden files")

// echoBinary is examples/echo, built by TestMain (proctest.Executable:
// shared with the other packages' tests through the build cache).
var echoBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	bin, err := proctest.Executable("../..", "./examples/echo")
	if err != nil {
		fmt.Fprintf(os.Stderr, "building examples/echo: %v\n", err)
		os.Exit(1)
	}
	echoBinary = bin
	// The compliance tests run the built command, as users do.
	if a2aBinary, err = proctest.Executable("../..", "./cmd/a2a"); err != nil {
		fmt.Fprintf(os.Stderr, "building cmd/a2a: %v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// echoToken is the bearer token the echo agent is started with.
const echoToken = "s3cret-token"

// startEcho runs the echo agent and returns its base URL (where the card
// is).
func startEcho(t *testing.T) string {
	t.Helper()
	p := proctest.Start(t, echoBinary, proctest.Options{Args: []string{
		"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--allow-private-webhooks",
		"--token", echoToken, "--chunk-interval", "20ms",
	}})
	return strings.TrimSuffix(p.Endpoints["card"], runtime.AgentCardPath)
}

// result is what one run of the command printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// a2a runs the command line with env as its environment.
func a2a(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := run(ctx, args, environment{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return env[k] },
	})
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// ok runs the command and fails the test unless it exits 0.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := a2a(t, nil, args...)
	if r.code != exitOK {
		t.Fatalf("a2a %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a
// webhook receiver and the reads of the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalise replaces ids (numbered in order of appearance), times and
// loopback ports by placeholders of the same width, so that output
// compares across runs and tables keep their layout.
func normalise(s string) string {
	ids := map[string]string{}
	s = uuidRE.ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := ids[id]; !ok {
			ids[id] = placeholder(fmt.Sprintf("ID%d", len(ids)+1), len(id))
		}
		return ids[id]
	})
	s = timeRE.ReplaceAllStringFunc(s, func(ts string) string { return placeholder("TIME", len(ts)) })
	return portRE.ReplaceAllString(s, "127.0.0.1:<PORT>")
}

// placeholder is <name> padded with dashes to width.
func placeholder(name string, width int) string {
	p := "<" + name
	for len(p) < width-1 {
		p += "-"
	}
	return p + ">"
}

// golden compares the normalised output with testdata/golden/name.txt.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	got = normalise(got)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// jsonLines decodes each line of out as a JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q: %v", line, err)
		}
		objs = append(objs, m)
	}
	return objs
}

// field reads a path of object members.
func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[p]
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

var bindingFlags = []string{"jsonrpc", "rest", "grpc"}

// TestCommandsOnEveryBinding runs every task command on each binding; the
// human-readable output is the same on all three (one golden file each).
func TestCommandsOnEveryBinding(t *testing.T) {
	base := startEcho(t)
	for _, b := range bindingFlags {
		t.Run(b, func(t *testing.T) {
			bf := "--transport=" + b

			golden(t, "send", ok(t, bf, "send", "-a", base, "hello"))
			golden(t, "send-message", ok(t, bf, "send", "-a", base, "message", "hi"))
			golden(t, "send-stream", ok(t, bf, "send", "--stream", "-a", base, "stream", "3"))

			// -o json: one SendMessageResponse; the ids drive the rest.
			sent := jsonLines(t, ok(t, bf, "send", "-a", base, "input", "-o", "json"))
			if len(sent) != 1 || str(field(sent[0], "task", "status", "state")) != "TASK_STATE_INPUT_REQUIRED" {
				t.Fatalf("send input -o json: %v", sent)
			}
			task, ctxID := str(field(sent[0], "task", "id")), str(field(sent[0], "task", "contextId"))

			golden(t, "get", ok(t, bf, "task", "get", "-a", base, task))
			got := jsonLines(t, ok(t, bf, "task", "get", "-a", base, task, "--history", "1", "-o", "json"))
			if h, _ := field(got[0], "history").([]any); len(h) != 1 {
				t.Errorf("get --history 1: %d history messages", len(h))
			}

			// A follow-up completes the INPUT_REQUIRED task.
			golden(t, "send-follow-up", ok(t, bf, "send", "-a", base, "--task-id", task, "--context-id", ctxID, "--history", "2", "more"))

			golden(t, "list", ok(t, bf, "task", "list", "-a", base, "--context-id", ctxID))
			pages := jsonLines(t, ok(t, bf, "task", "list", "-a", base, "--context-id", ctxID, "--page-size", "1", "--all", "-o", "json"))
			if tasks, _ := field(pages[0], "tasks").([]any); len(pages) != 1 || len(tasks) != 1 {
				t.Errorf("list --all -o json: %d documents, want 1 ListTasksResponse: %v", len(pages), pages)
			}

			// cancel and subscribe on a slow task.
			slow := jsonLines(t, ok(t, bf, "send", "-a", base, "--async", "--context-id", ctxID, "slow", "2000", "-o", "json"))
			slowID := str(field(slow[0], "task", "id"))
			golden(t, "cancel", ok(t, bf, "task", "cancel", "-a", base, slowID))
			r := a2a(t, nil, bf, "task", "subscribe", "--stream", "-a", base, slowID)
			if r.code != exitFail || !strings.Contains(r.stderr, "Code: UnsupportedOperationError") {
				t.Errorf("subscribe to a canceled task: exit %d, %s", r.code, r.stderr)
			}
			// Subscribed once WORKING, with seconds to spare before the end:
			// the call is in this process, so a loaded machine still makes it.
			running := jsonLines(t, ok(t, bf, "send", "-a", base, "--async", "slow", "2000", "-o", "json"))
			waitForState(t, bf, base, str(field(running[0], "task", "id")), "TASK_STATE_WORKING")
			events := jsonLines(t, ok(t, bf, "task", "subscribe", "--stream", "-a", base, str(field(running[0], "task", "id")), "-o", "json"))
			last := events[len(events)-1]
			if str(field(events[0], "task", "id")) != str(field(running[0], "task", "id")) ||
				str(field(last, "statusUpdate", "status", "state")) != "TASK_STATE_COMPLETED" {
				t.Errorf("subscribe -o json: first %v, last %v", events[0], last)
			}

			// subscribe in text: the task as it is (WORKING: the test waits
			// for it, so the snapshot does not depend on timing), then the
			// events up to the end of the task.
			working := jsonLines(t, ok(t, bf, "send", "-a", base, "--async", "slow", "2000", "-o", "json"))
			workingID := str(field(working[0], "task", "id"))
			waitForState(t, bf, base, workingID, "TASK_STATE_WORKING")
			golden(t, "subscribe", ok(t, bf, "task", "subscribe", "--stream", "-a", base, workingID))

			// A stream in JSON is one StreamResponse per line.
			lines := jsonLines(t, ok(t, bf, "send", "--stream", "-a", base, "stream", "2", "-o", "json"))
			if len(lines) != 5 || field(lines[0], "task") == nil || field(lines[2], "artifactUpdate") == nil {
				t.Errorf("send --stream -o json: %d lines: %v", len(lines), lines)
			}
		})
	}
}

// TestPushWithWebhookListen registers a webhook served by webhook listen
// (in the same process) on every binding and checks the deliveries it
// prints, then the config commands.
func TestPushWithWebhookListen(t *testing.T) {
	base := startEcho(t)
	for _, b := range bindingFlags {
		t.Run(b, func(t *testing.T) {
			bf := "--transport=" + b
			var stdout, stderr syncBuffer
			done := make(chan int, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			go func() {
				done <- run(ctx, []string{"webhook", "listen", "127.0.0.1:0", "--token", "hook-token", "--count", "4"},
					environment{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
			}()
			hook := waitForListen(t, &stderr)

			// A delivery with a wrong token is refused and reported.
			ok(t, bf, "send", "-a", base, "--push-url", hook+"/wrong", "--push-token", "not-it", "input")
			waitFor(t, &stderr, "missing or wrong token")

			// The inline webhook of send gets every event of the task.
			ok(t, bf, "send", "-a", base, "--async", "--push-url", hook+"/hook", "--push-token", "hook-token", "slow", "100")
			select {
			case code := <-done:
				if code != exitOK {
					t.Fatalf("webhook listen: exit %d\n%s", code, stderr.String())
				}
			case <-ctx.Done():
				t.Fatalf("webhook listen got %q", stdout.String())
			}
			golden(t, "webhook-listen", stdout.String())

			// The config commands, on a task waiting for input.
			sent := jsonLines(t, ok(t, bf, "send", "-a", base, "input", "-o", "json"))
			task := str(field(sent[0], "task", "id"))
			golden(t, "push-create", ok(t, bf, "task", "push-config", "create", "-a", base, task, hook+"/later", "--token", "t0k", "--id", "cfg-1"))
			golden(t, "push-get", ok(t, bf, "task", "push-config", "get", "-a", base, task, "cfg-1"))
			golden(t, "push-list", ok(t, bf, "task", "push-config", "list", "-a", base, task))
			golden(t, "push-delete", ok(t, bf, "task", "push-config", "delete", "-a", base, task, "cfg-1"))
			if out := ok(t, bf, "task", "push-config", "list", "-a", base, task); !strings.Contains(out, "Push Configs: 0") {
				t.Errorf("push list after delete:\n%s", out)
			}
			if l := jsonLines(t, ok(t, bf, "task", "push-config", "list", "-a", base, task, "-o", "json")); field(l[0], "configs") != nil {
				t.Errorf("push list -o json after delete: %v", l)
			}
		})
	}
}

// waitForState polls get until the task is in state.
func waitForState(t *testing.T, bindingFlag, base, task, state string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := str(field(jsonLines(t, ok(t, bindingFlag, "task", "get", "-a", base, task, "-o", "json"))[0], "status", "state"))
		if got == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s, not %s", task, got, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFor waits until out contains want.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", want, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitForListen returns the URL webhook listen printed on stderr.
func waitForListen(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`listening on (http://\S+)/`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("webhook listen printed no address: %q", stderr.String())
	return ""
}

func TestCard(t *testing.T) {
	base := startEcho(t)
	golden(t, "card", ok(t, "card", "get", "-a", base))
	card := jsonLines(t, ok(t, "card", "get", "-a", base, "-o", "json"))
	if str(card[0]["name"]) != "echo" {
		t.Errorf("card -o json: %v", card[0])
	}
	for _, b := range bindingFlags {
		ext := ok(t, "--transport", b, "card", "get", "-a", base, "--extended", "--bearer", echoToken)
		golden(t, "card-extended", ext)
		env := map[string]string{envToken: echoToken, envAgentURL: base}
		if r := a2a(t, env, "--transport", b, "card", "--extended"); r.code != exitOK || normalise(r.stdout) != normalise(ext) {
			t.Errorf("card --extended with %s and %s: exit %d\n%s%s", envToken, envAgentURL, r.code, r.stdout, r.stderr)
		}
		if r := a2a(t, nil, "--transport", b, "card", "get", "-a", base, "--extended", "--bearer", "wrong"); r.code != exitAuth || !strings.Contains(r.stderr, "A2ACLI_ERR_AUTH_FAILED") {
			t.Errorf("extended card with a wrong token: exit %d, %s", r.code, r.stderr)
		}
	}
}

// TestErrorsAndExitCodes checks the exit code of each kind of failure and
// that the message says what to fix.
func TestErrorsAndExitCodes(t *testing.T) {
	base := startEcho(t)
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"no agent", nil, []string{"task", "get", "t"}, exitUsage, "missing the agent"},
		{"unknown flag", nil, []string{"send", "-a", base, "--nope"}, exitUsage, "unknown flag: --nope"},
		{"bad transport", nil, []string{"--transport", "soap", "task", "get", "-a", base, "t"}, exitUsage, `--transport "soap"`},
		{"bad output", nil, []string{"-o", "xml", "task", "get", "-a", base, "t"}, exitUsage, `-o "xml"`},
		{"bad svc-param", nil, []string{"--svc-param", "nope", "task", "get", "-a", base, "t"}, exitUsage, `--svc-param "nope"`},
		{"nothing to send", nil, []string{"send", "-a", base}, exitUsage, "nothing to send"},
		{"bad data", nil, []string{"send", "-a", base, "--data", "{"}, exitUsage, "--data"},
		{"media type before any part", nil, []string{"send", "-a", base, "--media-type", "text/plain", "--text", "x"}, exitUsage, "--media-type"},
		{"bad state", nil, []string{"task", "list", "-a", base, "--status", "sleeping"}, exitUsage, "input-required"},
		{"get takes a task", nil, []string{"task", "get", "-a", base}, exitUsage, "TASK"},
		{"unknown task", nil, []string{"task", "get", "-a", base, "no-such-task"}, exitFail, "Code: TaskNotFoundError"},
		{"unknown task over gRPC", nil, []string{"--transport", "grpc", "task", "cancel", "-a", base, "no-such-task"}, exitFail, "Code: TaskNotFoundError"},
		{"unsupported version", nil, []string{"--a2a-version", "9.9", "task", "get", "-a", base, "t"}, exitFail, "Code: VersionNotSupportedError"},
		{"legacy version without its interface", nil, []string{"--a2a-version", "0.3", "task", "get", "-a", base, "t"}, exitUsage, "no interface of that version"},
		{"nobody there", nil, []string{"task", "get", "-a", "http://127.0.0.1:1", "t"}, exitUnreachable, "A2ACLI_ERR_UNREACHABLE"},
		{"no card there", nil, []string{"card", "get", "-a", base + "/nothing/card.json"}, exitUnreachable, "A2ACLI_ERR_CARD_NOT_FOUND"},
		{"agent from the environment", map[string]string{"A2ACLI_AGENT_CARD": base}, []string{"task", "get", "no-such-task"}, exitFail, "TaskNotFoundError"},
		{"agent from the old environment variable", map[string]string{envAgentURL: base}, []string{"task", "get", "no-such-task"}, exitFail, "TaskNotFoundError"},
		{"unsigned card, signature required", nil, []string{"card", "get", "-a", base, "--verify-key", "testdata/key.pub.pem", "--require-signature"}, exitFail, "no signatures"},
		{"signature required without keys", nil, []string{"card", "get", "-a", base, "--require-signature"}, exitUsage, "--verify-key"},
		{"timeout", nil, []string{"send", "-a", base, "--timeout", "300ms", "--poll-interval", "50ms", "slow 5000"}, exitTimeout, "A2ACLI_ERR_TIMEOUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a2a(t, tt.env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("a2a %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestVerboseMasksSecrets checks that -v logs the calls but none of the
// credentials: the bearer token, the push token.
func TestVerboseMasksSecrets(t *testing.T) {
	base := startEcho(t)
	for _, b := range bindingFlags {
		// Tasks belong to the caller that created them.
		sent := jsonLines(t, ok(t, "--transport", b, "--bearer", echoToken, "send", "-a", base, "input", "-o", "json"))
		task := str(field(sent[0], "task", "id"))
		r := a2a(t, nil, "--debug", "--transport", b, "--bearer", echoToken, "--svc-param", "X-Api-Key:key-value",
			"task", "push-config", "create", "-a", base, task, "http://127.0.0.1:9/hook", "--token", "push-secret")
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", b, r.code, r.stderr)
		}
		for _, secret := range []string{echoToken, "push-secret", "key-value"} {
			if strings.Contains(r.stderr, secret) {
				t.Errorf("%s: -v log shows %q:\n%s", b, secret, r.stderr)
			}
		}
		for _, want := range []string{"> CreateTaskPushNotificationConfig", "X-Api-Key: ****", `"token":"****"`, "< CreateTaskPushNotificationConfig"} {
			if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(want)) {
				t.Errorf("%s: -v log lacks %q:\n%s", b, want, r.stderr)
			}
		}
	}
}
