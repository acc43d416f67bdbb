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
	"gopkg.in/yaml.v3"

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
			bf := "--binding=" + b

			golden(t, "send", ok(t, bf, "send", base, "hello"))
			golden(t, "send-message", ok(t, bf, "send", base, "message", "hi"))
			golden(t, "send-stream", ok(t, bf, "send", "--stream", base, "stream", "3"))

			// -o json: one SendMessageResponse; the ids drive the rest.
			sent := jsonLines(t, ok(t, bf, "send", base, "input", "-o", "json"))
			if len(sent) != 1 || str(field(sent[0], "task", "status", "state")) != "TASK_STATE_INPUT_REQUIRED" {
				t.Fatalf("send input -o json: %v", sent)
			}
			task, ctxID := str(field(sent[0], "task", "id")), str(field(sent[0], "task", "contextId"))

			golden(t, "get", ok(t, bf, "get", base, task))
			got := jsonLines(t, ok(t, bf, "get", base, task, "--history", "1", "-o", "json"))
			if h, _ := field(got[0], "history").([]any); len(h) != 1 {
				t.Errorf("get --history 1: %d history messages", len(h))
			}
			var y map[string]any
			if err := yaml.Unmarshal([]byte(ok(t, bf, "get", base, task, "-o", "yaml")), &y); err != nil || str(field(y, "id")) != task {
				t.Errorf("get -o yaml: %v, %v", y, err)
			}

			// A follow-up completes the INPUT_REQUIRED task.
			golden(t, "send-follow-up", ok(t, bf, "send", base, "--task", task, "--context", ctxID, "--history", "2", "more"))

			golden(t, "list", ok(t, bf, "list", base, "--context", ctxID))
			pages := jsonLines(t, ok(t, bf, "list", base, "--context", ctxID, "--page-size", "1", "--all", "-o", "json"))
			if len(pages) != 1 {
				t.Errorf("list --all: %d pages of one task, want 1", len(pages))
			}

			// cancel and subscribe on a slow task.
			slow := jsonLines(t, ok(t, bf, "send", base, "--return-immediately", "--context", ctxID, "slow", "2000", "-o", "json"))
			slowID := str(field(slow[0], "task", "id"))
			golden(t, "cancel", ok(t, bf, "cancel", base, slowID))
			r := a2a(t, nil, bf, "subscribe", base, slowID)
			if r.code != exitA2A || !strings.Contains(r.stderr, "UnsupportedOperation") {
				t.Errorf("subscribe to a canceled task: exit %d, %s", r.code, r.stderr)
			}
			running := jsonLines(t, ok(t, bf, "send", base, "--return-immediately", "slow", "300", "-o", "json"))
			events := jsonLines(t, ok(t, bf, "subscribe", base, str(field(running[0], "task", "id")), "-o", "json"))
			last := events[len(events)-1]
			if str(field(events[0], "task", "id")) != str(field(running[0], "task", "id")) ||
				str(field(last, "statusUpdate", "status", "state")) != "TASK_STATE_COMPLETED" {
				t.Errorf("subscribe -o json: first %v, last %v", events[0], last)
			}

			// subscribe in text: the task as it is (WORKING: the test waits
			// for it, so the snapshot does not depend on timing), then the
			// events up to the end of the task.
			working := jsonLines(t, ok(t, bf, "send", base, "--return-immediately", "slow", "1000", "-o", "json"))
			workingID := str(field(working[0], "task", "id"))
			waitForState(t, bf, base, workingID, "TASK_STATE_WORKING")
			golden(t, "subscribe", ok(t, bf, "subscribe", base, workingID))

			// A stream in JSON is one StreamResponse per line.
			lines := jsonLines(t, ok(t, bf, "send", "--stream", base, "stream", "2", "-o", "json"))
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
			bf := "--binding=" + b
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
			ok(t, bf, "send", base, "--push-url", hook+"/wrong", "--push-token", "not-it", "input")
			waitFor(t, &stderr, "missing or wrong token")

			// The inline webhook of send gets every event of the task.
			ok(t, bf, "send", base, "--return-immediately", "--push-url", hook+"/hook", "--push-token", "hook-token", "slow", "100")
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
			sent := jsonLines(t, ok(t, bf, "send", base, "input", "-o", "json"))
			task := str(field(sent[0], "task", "id"))
			golden(t, "push-create", ok(t, bf, "push", "create", base, task, hook+"/later", "--token", "t0k", "--id", "cfg-1"))
			golden(t, "push-get", ok(t, bf, "push", "get", base, task, "cfg-1"))
			golden(t, "push-list", ok(t, bf, "push", "list", base, task))
			golden(t, "push-delete", ok(t, bf, "push", "delete", base, task, "cfg-1"))
			if out := ok(t, bf, "push", "list", base, task); !strings.Contains(out, "no push configs") {
				t.Errorf("push list after delete:\n%s", out)
			}
			if l := jsonLines(t, ok(t, bf, "push", "list", base, task, "-o", "json")); field(l[0], "configs") != nil {
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
		got := str(field(jsonLines(t, ok(t, bindingFlag, "get", base, task, "-o", "json"))[0], "status", "state"))
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
	golden(t, "card", ok(t, "card", base))
	card := jsonLines(t, ok(t, "card", base, "-o", "json"))
	if str(card[0]["name"]) != "echo" {
		t.Errorf("card -o json: %v", card[0])
	}
	for _, b := range bindingFlags {
		ext := ok(t, "--binding", b, "card", base, "--extended", "--auth", "Bearer "+echoToken)
		golden(t, "card-extended", ext)
		env := map[string]string{envToken: echoToken, envAgentURL: base}
		if r := a2a(t, env, "--binding", b, "card", "--extended"); r.code != exitOK || normalise(r.stdout) != normalise(ext) {
			t.Errorf("card --extended with %s and %s: exit %d\n%s%s", envToken, envAgentURL, r.code, r.stdout, r.stderr)
		}
		if r := a2a(t, nil, "--binding", b, "card", base, "--extended", "--auth", "Bearer wrong"); r.code != exitA2A {
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
		{"no URL", nil, []string{"get"}, exitUsage, "missing the agent URL"},
		{"not a URL", nil, []string{"send", "hello"}, exitUsage, `"hello" is not an agent URL`},
		{"unknown flag", nil, []string{"send", base, "--nope"}, exitUsage, "unknown flag: --nope"},
		{"bad binding", nil, []string{"--binding", "soap", "get", base, "t"}, exitUsage, `--binding "soap"`},
		{"bad output", nil, []string{"-o", "xml", "get", base, "t"}, exitUsage, `-o "xml"`},
		{"bad header", nil, []string{"--header", "nope", "get", base, "t"}, exitUsage, `--header "nope"`},
		{"nothing to send", nil, []string{"send", base}, exitUsage, "nothing to send"},
		{"bad data", nil, []string{"send", base, "--data", "{"}, exitUsage, "--data"},
		{"bad state", nil, []string{"list", base, "--state", "sleeping"}, exitUsage, "input-required"},
		{"get takes a task", nil, []string{"get", base}, exitUsage, "[URL] TASK"},
		{"unknown task", nil, []string{"get", base, "no-such-task"}, exitA2A, "TaskNotFound"},
		{"unknown task over gRPC", nil, []string{"--binding", "grpc", "cancel", base, "no-such-task"}, exitA2A, "TaskNotFound"},
		{"unsupported version", nil, []string{"--a2a-version", "9.9", "get", base, "t"}, exitA2A, "VersionNotSupported"},
		{"nobody there", nil, []string{"get", "http://127.0.0.1:1", "t"}, exitTransport, "connection refused"},
		{"failed task", nil, []string{"send", base, "fail"}, exitTaskEnded, "ended FAILED"},
		{"rejected task", nil, []string{"send", "--stream", base, "reject"}, exitTaskEnded, "ended REJECTED"},
		{"URL from the environment", map[string]string{envAgentURL: base}, []string{"get", "no-such-task"}, exitA2A, "TaskNotFound"},
		{"unsigned card, signature required", nil, []string{"card", base, "--verify-key", "testdata/key.pub.pem", "--require-signature"}, exitFail, "no signatures"},
		{"signature required without keys", nil, []string{"card", base, "--require-signature"}, exitUsage, "--verify-key"},
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
		sent := jsonLines(t, ok(t, "--binding", b, "--auth", "Bearer "+echoToken, "send", base, "input", "-o", "json"))
		task := str(field(sent[0], "task", "id"))
		r := a2a(t, nil, "-v", "--binding", b, "--auth", "Bearer "+echoToken, "--header", "X-Api-Key=key-value",
			"push", "create", base, task, "http://127.0.0.1:9/hook", "--token", "push-secret")
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", b, r.code, r.stderr)
		}
		for _, secret := range []string{echoToken, "push-secret", "key-value"} {
			if strings.Contains(r.stderr, secret) {
				t.Errorf("%s: -v log shows %q:\n%s", b, secret, r.stderr)
			}
		}
		for _, want := range []string{"> CreateTaskPushNotificationConfig", "Bearer ****", `"token":"****"`, "< CreateTaskPushNotificationConfig"} {
			if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(want)) {
				t.Errorf("%s: -v log lacks %q:\n%s", b, want, r.stderr)
			}
		}
	}
}
