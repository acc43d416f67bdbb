package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// evidence maps each requirement id of the a2a-cli specification's
// COMPLIANCE.md that docs/cli-compliance.yaml marks pass to the test that
// shows it, running the built a2a against a live agent.
// TestComplianceReportIsBacked fails when the report claims a requirement
// this table lacks, or this table proves one the report does not claim.
var evidence = map[string]func(*testing.T, *harness){
	"A2ACLI_CARD_GET_001":       cardGet001,
	"A2ACLI_SEND_001":           send001,
	"A2ACLI_SEND_002":           send002,
	"A2ACLI_SEND_003":           send003,
	"A2ACLI_SEND_004":           send004,
	"A2ACLI_SEND_005":           send005,
	"A2ACLI_SEND_006":           send006,
	"A2ACLI_TASK_GET_001":       taskGet001,
	"A2ACLI_TASK_CANCEL_001":    taskCancel001,
	"A2ACLI_INTERACT_001":       interact001,
	"A2ACLI_INTERACT_002":       interact002,
	"A2ACLI_INTERACT_003":       interact003,
	"A2ACLI_INTERACT_004":       interact004,
	"A2ACLI_INTERACT_005":       interact005,
	"A2ACLI_TASK_POLL_001":      taskPoll001,
	"A2ACLI_TASK_POLL_002":      taskPoll002,
	"A2ACLI_TASK_POLL_003":      taskPoll003,
	"A2ACLI_TASK_POLL_004":      taskPoll004,
	"A2ACLI_OUT_001":            out001,
	"A2ACLI_OUT_002":            out002,
	"A2ACLI_OUT_003":            out003,
	"A2ACLI_OUT_004":            out004,
	"A2ACLI_OUT_005":            out005,
	"A2ACLI_OUT_006":            out006,
	"A2ACLI_EXIT_001":           exit001,
	"A2ACLI_EXIT_002":           exit002,
	"A2ACLI_AUTH_001":           auth001,
	"A2ACLI_AUTH_002":           auth002,
	"A2ACLI_AUTH_003":           auth003,
	"A2ACLI_AUTH_004":           auth004,
	"A2ACLI_TX_001":             tx001,
	"A2ACLI_TX_002":             tx002,
	"A2ACLI_TX_003":             tx003,
	"A2ACLI_VER_001":            ver001,
	"A2ACLI_DEFAULT_001":        default001,
	"A2ACLI_CONFIG_001":         config001,
	"A2ACLI_CLI_001":            cli001,
	"A2ACLI_SKILL_001":          skill001,
	"A2ACLI_SKILL_002":          skill002,
	"A2ACLI_CARD_GET_002":       cardGet002,
	"A2ACLI_TASK_LIST_001":      taskList001,
	"A2ACLI_TASK_SUBSCRIBE_001": taskSubscribe001,
	"A2ACLI_TASK_SUBSCRIBE_002": taskSubscribe002,
	"A2ACLI_AUTH_005":           auth005,
	"A2ACLI_AUTH_006":           auth006,
	"A2ACLI_AUTH_007":           auth007,
	"A2ACLI_TX_004":             tx004,
	"A2ACLI_VER_003":            ver003,
	"A2ACLI_CONFIG_002":         config002,
	"A2ACLI_DOWNLOAD_001":       download001,
	"A2ACLI_OUT_007":            out007,
	"A2ACLI_CONFORM_001":        conform001,
	"A2ACLI_CLI_002":            cli002,
	"A2ACLI_PUSH_001":           push001,
	"A2ACLI_CARD_GET_003":       cardGet003,
	"A2ACLI_AUTH_008":           auth008,
	"A2ACLI_CARD_GET_004":       cardGet004,
	"A2ACLI_CARD_GET_005":       cardGet005,
	"A2ACLI_PUSH_002":           push002,
	"A2ACLI_CHAT_001":           chat001,
	"A2ACLI_TX_005":             tx005,
	"A2ACLI_AUTH_009":           auth009,
	"A2ACLI_AUTH_010":           auth010,
	"A2ACLI_AUTH_011":           auth011,
	"A2ACLI_DEMO_SERVER_001":    demoServer001,
	"A2ACLI_VER_002":            ver002,
}

// TestCompliance runs the evidence of every requirement, each a subtest
// named by its id.
func TestCompliance(t *testing.T) {
	h := newHarness(t)
	ids := make([]string, 0, len(evidence))
	for id := range evidence {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			t.Parallel() // each makes its own tasks, files and agents
			evidence[id](t, h)
		})
	}
}

// sendJSON sends text and returns the SendMessageResponse.
func sendJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	return oneJSON(t, run0(t, append(append([]string{"send"}, args...), "-o", "json")...))
}

func cardGet001(t *testing.T, h *harness) {
	for _, ref := range []string{h.echo, h.echo + runtime.AgentCardPath, strings.TrimPrefix(h.echo, "http://")} {
		r := cli(t, cliOpts{}, "card", "get", "-a", ref)
		if strings.HasPrefix(ref, "http") {
			expect(t, r, 0, "Name: echo", "Interface: JSONRPC 1.0", "Interface: GRPC 1.0")
		} else {
			// A bare host is read over https: the echo agent speaks plain
			// HTTP, so the failure names TLS — the reference was resolved.
			expect(t, r, exitUnreachable, "https://"+ref)
		}
	}
	file := writeCardFile(t, h.echo, nil)
	for _, ref := range []string{file, "file://" + file} {
		expect(t, cli(t, cliOpts{}, "card", "get", "-a", ref), 0, "Name: echo")
		// The card file selects the transport of the next call.
		expect(t, cli(t, cliOpts{}, "send", "-a", ref, "hello", "--debug"), 0, "> SendMessage JSONRPC", "Echo: hello")
	}
}

func send001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		for _, auth := range [][]string{nil, {"--bearer", echoToken}} {
			r := run0(t, append([]string{"--transport", b, "send", "-a", h.echo, "hello"}, auth...)...)
			expect(t, r, 0, "State: COMPLETED", "Echo: hello")
		}
	}
}

func send002(t *testing.T, h *harness) {
	start := time.Now()
	r := run0(t, "send", "-a", h.echo, "slow 400", "--poll-interval", "100ms")
	expect(t, r, 0, "State: COMPLETED")
	if time.Since(start) < 400*time.Millisecond {
		t.Errorf("send returned before the task could finish")
	}
	for _, flag := range []string{"--async", "--return-immediately", "--no-wait"} {
		m := sendJSON(t, "-a", h.echo, flag, "slow 600000")
		state := str(field(m, "task", "status", "state"))
		if str(field(m, "task", "id")) == "" || str(field(m, "task", "contextId")) == "" || state == "TASK_STATE_COMPLETED" {
			t.Errorf("%s: %v", flag, m)
		}
	}
}

func send003(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := run0(t, "--transport", b, "send", "-a", h.echo, "--stream", "stream 2", "-o", "json")
		if n := len(strings.Split(strings.TrimSpace(r.stdout), "\n")); n < 4 {
			t.Errorf("%s: %d events streamed:\n%s", b, n, r.stdout)
		}
		// A direct message is the one object of the stream.
		r = run0(t, "--transport", b, "send", "-a", h.echo, "--stream", "message hi", "-o", "json")
		if m := oneJSON(t, r); field(m, "message") == nil {
			t.Errorf("%s: the message reply: %v", b, m)
		}
	}
	// A card without streaming: no hang, the blocking answer instead.
	noStream := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) { c.Capabilities.Streaming = proto.Bool(false) })
	r := cli(t, cliOpts{}, "send", "-a", noStream, "--stream", "hello", "-o", "json")
	expect(t, r, 0, "does not declare streaming")
	if m := oneJSON(t, r); str(field(m, "task", "status", "state")) != "TASK_STATE_COMPLETED" {
		t.Errorf("fallback answer: %v", m)
	}
}

func send004(t *testing.T, h *harness) {
	for _, b := range []string{"jsonrpc", "rest"} {
		r := run0(t, "--transport", b, "send", "-a", h.rich.base, "artifacts")
		expect(t, r, 0, "Artifact ID: all-kinds", "Artifact Name: all kinds", "Artifact:\na text part\n\n",
			"Artifact Data:\n{\n  \"city\": \"Oslo\",", "Artifact File: report.pdf (application/pdf, 15 bytes)",
			"Artifact File: big.zip (application/zip) "+h.rich.base+"/files/big.zip")
	}
}

func send005(t *testing.T, h *harness) {
	dir := t.TempDir()
	bin, txt := filepath.Join(dir, "report.bin"), filepath.Join(dir, "notes.txt")
	os.WriteFile(bin, []byte("x"), 0o644)
	os.WriteFile(txt, []byte("y"), 0o644)
	r := run0(t, "send", "-a", h.echo, "--debug", "--file", bin, "--media-type", "application/pdf", "--file", txt, "hello")
	if !strings.Contains(r.stderr, `"filename":"report.bin","mediaType":"application/pdf"`) && !strings.Contains(r.stderr, `"mediaType":"application/pdf"`) {
		t.Errorf("--media-type did not reach the part:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, `"mediaType":"text/plain"`) {
		t.Errorf("the .txt part's type was not inferred:\n%s", r.stderr)
	}
	expect(t, cli(t, cliOpts{}, "send", "-a", h.echo, "--media-type", "text/plain", "--text", "x"), exitUsage, "A2ACLI_ERR_USAGE", "--media-type")
}

func send006(t *testing.T, h *harness) {
	r := cli(t, cliOpts{stdin: `{"from":"stdin"}`}, "send", "-a", h.echo, "--debug",
		"--text", "first", "--data", "-", "--text", "third", "--data", `{"k":1}`)
	expect(t, r, 0)
	i1, i2, i3, i4 := strings.Index(r.stderr, `"text":"first"`), strings.Index(r.stderr, `"from":"stdin"`), strings.Index(r.stderr, `"text":"third"`), strings.Index(r.stderr, `"k":1`)
	if i1 < 0 || i2 < i1 || i3 < i2 || i4 < i3 {
		t.Errorf("parts not in the order given (%d %d %d %d):\n%s", i1, i2, i3, i4, r.stderr)
	}
}

func taskGet001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		id := str(field(sendJSON(t, "--transport", b, "-a", h.echo, "hello"), "task", "id"))
		r := run0(t, "--transport", b, "task", "get", "-a", h.echo, id, "--history", "1")
		expect(t, r, 0, "Task ID: "+id, "State: COMPLETED", "Artifact:\nEcho: hello", "History Role: user")
		m := oneJSON(t, run0(t, "--transport", b, "task", "get", "-a", h.echo, id, "-o", "json"))
		if arts, _ := field(m, "artifacts").([]any); len(arts) != 1 {
			t.Errorf("%s: the Task's artifacts: %v", b, m)
		}
	}
}

func taskCancel001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		id := str(field(sendJSON(t, "--transport", b, "-a", h.echo, "--async", "slow 600000"), "task", "id"))
		expect(t, run0(t, "--transport", b, "task", "cancel", "-a", h.echo, id), 0, "State: CANCELED")
		// Idempotent: canceling again shows the canceled task.
		expect(t, cli(t, cliOpts{}, "--transport", b, "task", "cancel", "-a", h.echo, id), 0, "State: CANCELED")
	}
}

func interact001(t *testing.T, h *harness) {
	first := sendJSON(t, "-a", h.echo, "hello")
	ctx := str(field(first, "task", "contextId"))
	next := sendJSON(t, "-a", h.echo, "--context-id", ctx, "again")
	if str(field(next, "task", "contextId")) != ctx || str(field(next, "task", "id")) == str(field(first, "task", "id")) {
		t.Errorf("--context-id: a new task in the context, got %v", next)
	}
}

func interact002(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		in := sendJSON(t, "--transport", b, "-a", h.echo, "input")
		id, ctx := str(field(in, "task", "id")), str(field(in, "task", "contextId"))
		done := sendJSON(t, "--transport", b, "-a", h.echo, "--task-id", id, "Paris")
		if str(field(done, "task", "id")) != id || str(field(done, "task", "status", "state")) != "TASK_STATE_COMPLETED" {
			t.Errorf("%s: --task-id alone: %v", b, done)
		}
		in = sendJSON(t, "--transport", b, "-a", h.echo, "input")
		id2, ctx2 := str(field(in, "task", "id")), str(field(in, "task", "contextId"))
		sendJSON(t, "--transport", b, "-a", h.echo, "--task-id", id2, "--context-id", ctx2, "Paris")
		// Mismatched ids and an unknown task fail, start nothing, and
		// point at --debug.
		in = sendJSON(t, "--transport", b, "-a", h.echo, "input")
		id3 := str(field(in, "task", "id"))
		r := cli(t, cliOpts{}, "--transport", b, "send", "-a", h.echo, "--task-id", id3, "--context-id", ctx, "x")
		if r.code == 0 || !strings.Contains(r.stderr, "--debug") || !strings.Contains(r.stderr, "no new task") {
			t.Errorf("%s: mismatched ids: exit %d\n%s", b, r.code, r.stderr)
		}
		r = cli(t, cliOpts{}, "--transport", b, "send", "-a", h.echo, "--task-id", "no-such-task", "--context-id", ctx, "x")
		expect(t, r, exitFail, "TaskNotFoundError", "--debug")
		list := oneJSON(t, run0(t, "--transport", b, "task", "list", "-a", h.echo, "--context-id", ctx, "-o", "json"))
		if tasks, _ := field(list, "tasks").([]any); len(tasks) != 1 {
			t.Errorf("%s: the context holds %d tasks after the refused sends, want 1", b, len(tasks))
		}
	}
}

func interact003(t *testing.T, h *harness) {
	r := run0(t, "send", "-a", h.echo, "hello", "--debug")
	req := r.stderr[strings.Index(r.stderr, "> {"):]
	req = req[:strings.Index(req, "\n")]
	if strings.Contains(req, "taskId") || strings.Contains(req, "contextId") {
		t.Errorf("the first message carries ids the tool made up: %s", req)
	}
}

func interact004(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := run0(t, "--transport", b, "send", "-a", h.echo, "input")
		id := regexp.MustCompile(`Task ID: (\S+)`).FindStringSubmatch(r.stdout)
		ctx := regexp.MustCompile(`Context ID: (\S+)`).FindStringSubmatch(r.stdout)
		if id == nil || ctx == nil {
			t.Fatalf("%s: no ids:\n%s", b, r.stdout)
		}
		expect(t, r, 0, "State: INPUT_REQUIRED", "a2a send --task-id "+id[1]+" --context-id "+ctx[1])
		r = run0(t, "--transport", b, "send", "-a", h.echo, "hello")
		expect(t, r, 0, "Task ID: ", "Context ID: ", "State: COMPLETED")
	}
}

func interact005(t *testing.T, h *harness) {
	home := t.TempDir()
	one := oneJSON(t, cli(t, cliOpts{home: home}, "send", "-a", h.echo, "input", "-o", "json"))
	two := oneJSON(t, cli(t, cliOpts{home: home}, "send", "-a", h.echo, "hello", "-o", "json"))
	if str(field(one, "task", "contextId")) == str(field(two, "task", "contextId")) {
		t.Errorf("the second send continued the first's context on its own")
	}
	filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Errorf("a2a left %s behind: it keeps no session state", p)
		}
		return nil
	})
	if r := cli(t, cliOpts{}, "send", "--continue", "-a", h.echo, "x"); r.code != exitUsage {
		t.Errorf("--continue exists")
	}
}

func taskPoll001(t *testing.T, h *harness) {
	// A task that runs for ten minutes: task get answers with it running
	// (a get that waited would not return), whatever the load.
	running := str(field(sendJSON(t, "-a", h.echo, "--async", "slow 600000"), "task", "id"))
	if once := run0(t, "task", "get", "-a", h.echo, running); strings.Contains(once.stdout, "State: COMPLETED") {
		t.Errorf("task get waited: %s", once.stdout)
	}
	id := str(field(sendJSON(t, "-a", h.echo, "--async", "slow 500"), "task", "id"))
	expect(t, run0(t, "task", "get", "-a", h.echo, id, "--wait", "--poll-interval", "100ms"), 0, "State: COMPLETED")
}

func taskPoll002(t *testing.T, h *harness) {
	id := str(field(sendJSON(t, "-a", h.echo, "--async", "slow 600000"), "task", "id"))
	r := cli(t, cliOpts{}, "task", "get", "-a", h.echo, id, "--wait", "--poll-interval", "100ms", "--timeout", "1s", "--debug")
	expect(t, r, exitTimeout, "A2ACLI_ERR_TIMEOUT", id)
	// Bounded: about a call per interval, with backoff, never a busy loop.
	if n := strings.Count(r.stderr, "> GetTask"); n < 2 || n > 11 {
		t.Errorf("%d GetTask calls in 1s at --poll-interval 100ms", n)
	}
	// Interruptible: Ctrl-C ends the wait; the task id is on screen.
	// The signal is sent once the wait has begun (its first GetTask is on
	// stderr), not after a fixed time a loaded machine may not keep.
	cmd := exec.Command(a2aBinary, "task", "get", "-a", h.echo, id, "--wait", "--poll-interval", "100ms", "--debug")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "> GetTask")
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the wait did not end on SIGINT")
	}
	if !strings.Contains(stderr.String(), id) {
		t.Errorf("the interrupted wait did not show the task id:\n%s", stderr.String())
	}
}

func taskPoll003(t *testing.T, h *harness) {
	id := str(field(sendJSON(t, "-a", h.echo, "input"), "task", "id"))
	start := time.Now()
	expect(t, run0(t, "task", "get", "-a", h.echo, id, "--wait"), 0, "State: INPUT_REQUIRED")
	if time.Since(start) > 10*time.Second {
		t.Errorf("the wait on an interrupted task took %v", time.Since(start))
	}
	expect(t, run0(t, "send", "-a", h.rich.base, "auth"), 0, "State: AUTH_REQUIRED")
	// UNSPECIFIED is neither terminal nor interrupted: the wait goes on.
	fa := startFakeAgent(t)
	r := run0(t, "task", "get", "-a", fa.base, "fake-task", "--wait", "--poll-interval", "50ms")
	expect(t, r, 0, "State: COMPLETED")
	fa.mu.Lock()
	polls := fa.getTasks
	fa.mu.Unlock()
	if polls < 3 {
		t.Errorf("stopped after %d polls", polls)
	}
}

func taskPoll004(t *testing.T, h *harness) {
	fa := startFakeAgent(t)
	r := run0(t, "send", "-a", fa.base, "--stream", "hello", "--poll-interval", "50ms")
	expect(t, r, 0, "polling task fake-task instead", "State: COMPLETED")
}

func out001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		m := sendJSON(t, "--transport", b, "-a", h.echo, "fail")
		if str(field(m, "task", "id")) == "" || str(field(m, "task", "contextId")) == "" || str(field(m, "task", "status", "state")) != "TASK_STATE_FAILED" {
			t.Errorf("%s: %v", b, m)
		}
		r := run0(t, "--transport", b, "send", "-a", h.echo, "fail")
		expect(t, r, 0, "Task ID: ", "Context ID: ", "State: FAILED")
		if strings.Contains(r.stdout, "warning") || !strings.Contains(r.stderr, "warning") {
			t.Errorf("%s: diagnostics on stdout or missing from stderr:\n%s\n%s", b, r.stdout, r.stderr)
		}
	}
}

func out002(t *testing.T, h *harness) {
	m := sendJSON(t, "-a", h.echo, "stream 3")
	if str(field(m, "task", "status", "state")) != "TASK_STATE_COMPLETED" {
		t.Errorf("not the terminal task: %v", m)
	}
	ctx := str(field(m, "task", "contextId"))
	sendJSON(t, "-a", h.echo, "--context-id", ctx, "again")
	l := oneJSON(t, run0(t, "task", "list", "-a", h.echo, "--context-id", ctx, "--page-size", "1", "--all", "-o", "json"))
	if tasks, _ := field(l, "tasks").([]any); len(tasks) != 2 {
		t.Errorf("task list --all: %v", l)
	}
	// A2ACLI_OUTPUT=json never turns on JSON Lines.
	r := cli(t, cliOpts{env: map[string]string{"A2ACLI_OUTPUT": "json", "A2ACLI_STREAM": "true"}}, "send", "-a", h.echo, "stream 2")
	oneJSON(t, r)
}

func out003(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := run0(t, "--transport", b, "send", "-a", h.echo, "--stream", "stream 3", "-o", "json")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var last map[string]any
		for _, l := range lines {
			last = nil
			if err := json.Unmarshal([]byte(l), &last); err != nil {
				t.Fatalf("%s: not one object per line: %q", b, l)
			}
		}
		if str(field(last, "statusUpdate", "status", "state")) != "TASK_STATE_COMPLETED" {
			t.Errorf("%s: last line %v", b, last)
		}
		id := str(field(sendJSON(t, "--transport", b, "-a", h.echo, "hello"), "task", "id"))
		r = cli(t, cliOpts{}, "--transport", b, "task", "subscribe", "-a", h.echo, id, "--stream", "-o", "json")
		ls := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code == 0 || !strings.Contains(ls[len(ls)-1], `{"error":{"code":"UnsupportedOperationError"`) {
			t.Errorf("%s: a stream ending in an error: exit %d\n%s", b, r.code, r.stdout)
		}
	}
}

func out004(t *testing.T, h *harness) {
	var envelopes []string
	for _, b := range bindingFlags {
		r := cli(t, cliOpts{}, "--transport", b, "task", "get", "-a", h.echo, "no-such-task", "-o", "json")
		m := oneJSON(t, r)
		envelopes = append(envelopes, str(field(m, "error", "code")))
		if field(m, "error", "a2aCode") != float64(-32001) || str(field(m, "error", "hint")) == "" {
			t.Errorf("%s: %v", b, m)
		}
	}
	if envelopes[0] != "TaskNotFoundError" || envelopes[1] != envelopes[0] || envelopes[2] != envelopes[0] {
		t.Errorf("the same error differs across bindings: %v", envelopes)
	}
	m := oneJSON(t, cli(t, cliOpts{}, "task", "get", "-a", deadAddress(t), "t", "-o", "json"))
	if str(field(m, "error", "code")) != "A2ACLI_ERR_UNREACHABLE" || field(m, "error", "a2aCode") != nil {
		t.Errorf("a CLI-local failure: %v", m)
	}
}

func out005(t *testing.T, h *harness) {
	for _, args := range [][]string{
		{"send", "-a", h.echo, "hello"}, {"send", "-a", h.rich.base, "artifacts"}, {"send", "-a", h.echo, "--stream", "stream 2"},
		{"card", "get", "-a", h.echo}, {"send", "-a", h.echo, "message hi"},
	} {
		r := run0(t, args...)
		if strings.ContainsAny(r.stdout, "\r\033") {
			t.Errorf("%v: control characters", args)
		}
		checkTextFloor(t, r.stdout)
	}
	// chat with stdout and stdin not terminals: no prompt, no blocking.
	r := cli(t, cliOpts{stdin: "hello\n"}, "chat", "-a", h.echo)
	expect(t, r, 0, "Echo: hello")
	if strings.Contains(r.stderr, "you>") {
		t.Errorf("chat prompted without a terminal")
	}
}

func out006(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		m := sendJSON(t, "--transport", b, "-a", h.echo, "--async", "slow 600000")
		if str(field(m, "task", "id")) == "" || str(field(m, "task", "contextId")) == "" {
			t.Errorf("%s: %v", b, m)
		}
	}
}

func exit001(t *testing.T, h *harness) {
	expect(t, cli(t, cliOpts{}, "send", "-a", h.echo, "hello"), 0)
	expect(t, cli(t, cliOpts{}, "task", "get", "-a", h.echo, "no-such-task"), exitFail, "TaskNotFoundError")
	expect(t, cli(t, cliOpts{}, "send", "-a", h.echo, "--nope"), exitUsage, "A2ACLI_ERR_USAGE")
	expect(t, cli(t, cliOpts{}, "send", "-a", deadAddress(t), "x"), exitUnreachable, "A2ACLI_ERR_UNREACHABLE")
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", h.echo+"/no/card.json"), exitUnreachable, "A2ACLI_ERR_CARD_NOT_FOUND")
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", h.echo, "--extended"), exitAuth, "A2ACLI_ERR_CREDENTIALS_MISSING")
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", h.echo, "--extended", "--bearer", "wrong"), exitAuth, "A2ACLI_ERR_AUTH_FAILED")
	expect(t, cli(t, cliOpts{}, "send", "-a", h.echo, "slow 5000", "--timeout", "500ms"), exitTimeout, "A2ACLI_ERR_TIMEOUT")
}

func exit002(t *testing.T, h *harness) {
	for _, c := range []struct{ text, state string }{{"fail", "FAILED"}, {"reject", "REJECTED"}, {"input", "INPUT_REQUIRED"}} {
		expect(t, cli(t, cliOpts{}, "send", "-a", h.echo, c.text), 0, "State: "+c.state, "warning: task")
	}
	expect(t, cli(t, cliOpts{}, "send", "-a", h.rich.base, "auth"), 0, "State: AUTH_REQUIRED", "warning: task")
}

func auth001(t *testing.T, h *harness) {
	// Bearer, from the flag and from its variable, on every binding: the
	// tasks of the token's subject are listed.
	for _, b := range bindingFlags {
		id := str(field(sendJSON(t, "--transport", b, "-a", h.echo, "--bearer", echoToken, "input"), "task", "id"))
		for _, o := range []struct {
			args []string
			env  map[string]string
		}{{[]string{"--bearer", echoToken}, nil}, {nil, map[string]string{"A2ACLI_BEARER": echoToken}}} {
			r := cli(t, cliOpts{env: o.env}, append([]string{"--transport", b, "task", "list", "-a", h.echo}, o.args...)...)
			expect(t, r, 0, "Task ID: "+id)
		}
	}
	// API keys in a header, a query parameter and a cookie, as declared.
	for _, loc := range []string{"header", "query", "cookie"} {
		ra := startRichAgent(t, &richOptions{apiKey: &a2av1.APIKeySecurityScheme{Location: loc, Name: "X-Key"}})
		expect(t, cli(t, cliOpts{}, "send", "-a", ra.base, "hello"), exitAuth, "A2ACLI_ERR_CREDENTIALS_MISSING")
		expect(t, cli(t, cliOpts{}, "send", "-a", ra.base, "--api-key", "k3y-value", "hello"), 0, "State: COMPLETED")
		expect(t, cli(t, cliOpts{env: map[string]string{"A2ACLI_API_KEY": "k3y-value"}}, "send", "-a", ra.base, "hello"), 0, "State: COMPLETED")
	}
	// --svc-param is its own thing, and not documented as authentication.
	r := run0(t, "send", "-a", h.echo, "--svc-param", "X-Trace:abc", "hello", "--debug")
	expect(t, r, 0, "> X-Trace: ****")
	help := run0(t, "--help").stdout
	line := help[strings.Index(help, "--svc-param"):]
	line = line[:strings.Index(line, "\n")]
	if strings.Contains(strings.ToLower(line), "auth") || strings.Contains(strings.ToLower(line), "credential") {
		t.Errorf("--svc-param is documented as authentication: %s", line)
	}
}

func auth002(t *testing.T, h *harness) {
	help := run0(t, "--help").stdout
	for _, want := range []string{"A2ACLI_BEARER", "A2ACLI_API_KEY", "process table"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	// The flag wins over the variable.
	r := cli(t, cliOpts{env: map[string]string{"A2ACLI_BEARER": "wrong"}}, "card", "get", "-a", h.echo, "--extended", "--bearer", echoToken)
	expect(t, r, 0, "Skill: echo-extended")
}

func auth003(t *testing.T, h *harness) {
	ra := startRichAgent(t, &richOptions{tls: &tls.Config{}})
	expect(t, cli(t, cliOpts{}, "send", "-a", ra.base, "hello"), exitUnreachable, "A2ACLI_ERR_UNREACHABLE", "--cacert")
	r := cli(t, cliOpts{}, "send", "-a", ra.base, "--insecure", "--bearer", "tok", "hello")
	expect(t, r, 0, "WARNING: --insecure", "State: COMPLETED")
	r = cli(t, cliOpts{}, "send", "-a", ra.base, "--cacert", certPEM(t, ra.srv), "hello")
	expect(t, r, 0, "State: COMPLETED")
	if strings.Contains(r.stderr, "WARNING") {
		t.Errorf("a warning with verification on:\n%s", r.stderr)
	}
}

func auth004(t *testing.T, h *harness) {
	ra := startRichAgent(t, &richOptions{apiKey: &a2av1.APIKeySecurityScheme{Location: "query", Name: "key"}})
	r := cli(t, cliOpts{}, "send", "-a", ra.base, "--api-key", "k3y-value", "--svc-param", "X-Secret:svc-s3cret", "hello", "--debug", "--verbose")
	expect(t, r, 0)
	for _, b := range bindingFlags {
		r2 := cli(t, cliOpts{}, "--transport", b, "send", "-a", h.echo, "--bearer", echoToken, "--svc-param", "X-Secret:svc-s3cret", "hello", "--debug", "--verbose")
		expect(t, r2, 0, "> SendMessage")
		r.stderr += r2.stderr
	}
	for _, secret := range []string{"k3y-value", "svc-s3cret", echoToken} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("--debug shows %q", secret)
		}
	}
}

func tx001(t *testing.T, h *harness) {
	// The card's order decides: a card listing gRPC first is called over gRPC.
	file := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) {
		slices.Reverse(c.SupportedInterfaces)
	})
	expect(t, run0(t, "send", "-a", file, "hello", "--debug"), 0, "> SendMessage GRPC")
	expect(t, run0(t, "send", "-a", h.echo, "hello", "--debug"), 0, "> SendMessage JSONRPC")
}

func tx002(t *testing.T, h *harness) {
	restGRPC := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) { c.SupportedInterfaces = c.SupportedInterfaces[1:] })
	expect(t, run0(t, "send", "-a", restGRPC, "hello", "--debug"), 0, "> SendMessage HTTP+JSON")
	expect(t, run0(t, "--transport", "jsonrpc", "--transport", "grpc", "--transport", "rest", "send", "-a", restGRPC, "hello", "--debug"), 0, "> SendMessage GRPC")
	expect(t, run0(t, "--transport", "jsonrpc", "send", "-a", restGRPC, "hello", "--debug"), 0, "offers none of --transport", "> SendMessage HTTP+JSON")
}

func tx003(t *testing.T, h *harness) {
	base, rec := startRecordingEcho(t)
	withTenant := writeCardFile(t, base, func(c *a2av1.AgentCard) {
		for _, i := range c.SupportedInterfaces {
			i.Tenant = "acme"
		}
	})
	for _, b := range bindingFlags {
		rec.take()
		id := str(field(sendJSON(t, "--transport", b, "-a", withTenant, "input"), "task", "id"))
		run0(t, "--transport", b, "task", "get", "-a", withTenant, id)
		for _, c := range rec.take() {
			if c.tenant != "acme" {
				t.Errorf("%s: a call without the interface's tenant: %+v", b, c)
			}
		}
		run0(t, "--transport", b, "send", "-a", base, "hello")
		for _, c := range rec.take() {
			if c.tenant != "" {
				t.Errorf("%s: a tenant the interface does not declare: %+v", b, c)
			}
		}
	}
}

func ver001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := run0(t, "--transport", b, "send", "-a", h.echo, "hello", "--debug")
		if n, m := strings.Count(r.stderr, "> SendMessage"), strings.Count(strings.ToLower(r.stderr), "a2a-version: 1.0"); m < n || n == 0 {
			t.Errorf("%s: %d calls, %d with A2A-Version 1.0:\n%s", b, n, m, r.stderr)
		}
	}
	only03 := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) {
		for _, i := range c.SupportedInterfaces {
			i.ProtocolVersion = "0.3"
		}
	})
	expect(t, cli(t, cliOpts{}, "send", "-a", only03, "hello"), exitFail, "A2ACLI_ERR_CARD_INVALID", "--a2a-version 0.3")
	expect(t, cli(t, cliOpts{}, "--a2a-version", "9.9", "send", "-a", h.echo, "hello"), exitFail, "VersionNotSupportedError")
}

func default001(t *testing.T, h *harness) {
	help := run0(t, "--help").stdout
	for _, want := range []string{"the card's order", "--async", "text output", "--verbose", "never below 1.0", "--insecure", "--transport", "--output"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks the default %q", want)
		}
	}
	// Each default overridden by its flag.
	expect(t, run0(t, "--transport", "grpc", "send", "-a", h.echo, "hello", "--debug"), 0, "> SendMessage GRPC")
	if m := sendJSON(t, "-a", h.echo, "--async", "slow 600000"); str(field(m, "task", "status", "state")) == "TASK_STATE_COMPLETED" {
		t.Errorf("--async waited")
	}
	oneJSON(t, run0(t, "send", "-a", h.echo, "hello", "-o", "json"))
	expect(t, run0(t, "task", "get", "-a", h.echo, str(field(sendJSON(t, "-a", h.echo, "hello"), "task", "id")), "--verbose"), 0, "History Role: user")
	expect(t, cli(t, cliOpts{}, "--a2a-version", "9.9", "send", "-a", h.echo, "hello"), exitFail, "VersionNotSupportedError")
	ra := startRichAgent(t, &richOptions{tls: &tls.Config{}})
	expect(t, cli(t, cliOpts{}, "send", "-a", ra.base, "--insecure", "hello"), 0, "WARNING: --insecure")
}

func config001(t *testing.T, h *harness) {
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "a2a-cli")
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, ".env"), []byte("A2ACLI_BEARER="+echoToken+"\n"), 0o644)
	r := cli(t, cliOpts{home: home}, "config", "show")
	expect(t, r, 0, "bearer: **** (file "+filepath.Join(cfgDir, ".env"), "readable by other users")
	if strings.Contains(r.stdout, echoToken) {
		t.Errorf("config show shows the secret")
	}
	// Tokens auth login stores are 0600; nothing records task ids.
	o := startOAuthServer(t, echoToken)
	card := ccCard(t, h, o)
	run := cli(t, cliOpts{home: home}, "auth", "login", "-a", card, "--client-id", "cli-client", "--client-secret", "cli-secret", "--flow", "client-credentials")
	expect(t, run, 0, "Token Stored In")
	fi, err := os.Stat(filepath.Join(cfgDir, "tokens.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("tokens.json: %v, %v", fi, err)
	}
	id := str(field(oneJSON(t, cli(t, cliOpts{home: home}, "send", "-a", h.echo, "input", "-o", "json")), "task", "id"))
	filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); err == nil && !info.IsDir() && strings.Contains(string(b), id) {
			t.Errorf("%s records the task id", p)
		}
		return nil
	})
}

func cli001(t *testing.T, h *harness) {
	expect(t, run0(t, "help"), 0, "Usage:", "Available Commands:")
	expect(t, run0(t, "help", "send"), 0, "Usage:", "Examples:")
	expect(t, run0(t, "send", "--help"), 0, "--async", "(default")
	for _, v := range []string{"-v", "--version"} {
		expect(t, run0(t, v), 0, "a2a ", "A2A protocol 1.0")
	}
}

func skill001(t *testing.T, h *harness) {
	skills, _ := filepath.Glob("skill/*/SKILL.md")
	all, _ := filepath.Glob("skill/SKILL.md")
	if len(all)+len(skills) != 1 {
		t.Fatalf("want exactly one SKILL.md, found %v %v", all, skills)
	}
	b, err := os.ReadFile("skill/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, "\n"); n > 60 {
		t.Errorf("SKILL.md has %d lines; keep it lean", n)
	}
	for _, want := range []string{"a2a help", "--help", "-o json", "--stream", "--task-id", "--context-id", "A2ACLI_BEARER", "compatibility:"} {
		if !strings.Contains(s, want) {
			t.Errorf("SKILL.md lacks %q", want)
		}
	}
	// It defers to runtime help rather than listing every command.
	for _, cmd := range []string{"push-config", "download", "demo-server", "conformance", "completion"} {
		if strings.Contains(s, cmd) {
			t.Errorf("SKILL.md inlines the command %q", cmd)
		}
	}
	// Its examples run against a live agent as written.
	id := str(field(sendJSON(t, "-a", h.echo, "input"), "task", "id"))
	expect(t, run0(t, "send", "-a", h.echo, "--task-id", id, "Paris"), 0, "State: COMPLETED")
}

func skill002(t *testing.T, h *harness) {
	b, _ := os.ReadFile("skill/SKILL.md")
	for _, word := range []string{"MUST", "SHALL", "SHOULD", "A2ACLI_", "§"} {
		if strings.Contains(strings.ReplaceAll(string(b), "A2ACLI_BEARER", ""), strings.ReplaceAll(word, "A2ACLI_", "A2ACLI_E")) && word != "A2ACLI_" {
			t.Errorf("SKILL.md restates normative text (%q)", word)
		}
	}
	if strings.Contains(string(b), "A2ACLI_ERR") || regexp.MustCompile(`A2ACLI_[A-Z]+_\d{3}`).MatchString(string(b)) {
		t.Errorf("SKILL.md cites requirement ids")
	}
}

func cardGet002(t *testing.T, h *harness) {
	expect(t, run0(t, "card", "get", "-a", h.echo, "--validate"), 0, "Validation: valid")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"name":"x","version":"1","surprise":true}`), 0o644)
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", filepath.Join(dir, "bad.json"), "--validate"), exitFail, "A2ACLI_ERR_CARD_INVALID")
	noName := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) { c.Name = "" })
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", noName, "--validate"), exitFail, "A2ACLI_ERR_CARD_INVALID", "name is required")
}

func taskList001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		ctx := str(field(sendJSON(t, "--transport", b, "-a", h.echo, "hello"), "task", "contextId"))
		sendJSON(t, "--transport", b, "-a", h.echo, "--context-id", ctx, "input")
		sendJSON(t, "--transport", b, "-a", h.echo, "--context-id", ctx, "fail")
		l := oneJSON(t, run0(t, "--transport", b, "task", "list", "-a", h.echo, "--context-id", ctx, "--status", "input-required", "-o", "json"))
		if tasks, _ := field(l, "tasks").([]any); len(tasks) != 1 {
			t.Errorf("%s: --status: %v", b, l)
		}
		page := oneJSON(t, run0(t, "--transport", b, "task", "list", "-a", h.echo, "--context-id", ctx, "--page-size", "2", "-o", "json"))
		next := str(field(page, "nextPageToken"))
		rest := oneJSON(t, run0(t, "--transport", b, "task", "list", "-a", h.echo, "--context-id", ctx, "--page-size", "2", "--page-token", next, "-o", "json"))
		if tasks, _ := field(rest, "tasks").([]any); next == "" || len(tasks) != 1 {
			t.Errorf("%s: pages: %v then %v", b, page, rest)
		}
		// Anonymous, no context: the hint says what to give.
		expect(t, cli(t, cliOpts{}, "--transport", b, "task", "list", "-a", h.echo), 0, "--context-id")
	}
}

// subscribeThenAnswer subscribes to id, a task of the echo agent waiting for
// input, and once the subscription has shown the task (its first line)
// answers the task, which completes it; it returns the subscription's lines.
// Nothing depends on timing: the task waits for the answer as long as it
// takes the subscription to start.
func subscribeThenAnswer(t *testing.T, h *harness, bindingFlag, id string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a2aBinary, "--transport", bindingFlag, "task", "subscribe", "-a", h.echo, id, "--stream", "-o", "json")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var got []string
	if !lines.Scan() {
		cmd.Wait()
		t.Fatalf("%s: the subscription ended without a line: %s", bindingFlag, stderr.String())
	}
	got = append(got, lines.Text())
	sendJSON(t, "--transport", bindingFlag, "-a", h.echo, "--task-id", id, "done")
	for lines.Scan() {
		got = append(got, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: the subscription: %v: %s", bindingFlag, err, stderr.String())
	}
	return got
}

// waitingTask starts a task of the echo agent that waits for input.
func waitingTask(t *testing.T, h *harness, bindingFlag string) string {
	t.Helper()
	m := sendJSON(t, "--transport", bindingFlag, "-a", h.echo, "input")
	if state := str(field(m, "task", "status", "state")); state != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("%s: the echo agent's input task is %s", bindingFlag, state)
	}
	return str(field(m, "task", "id"))
}

func taskSubscribe001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		lines := subscribeThenAnswer(t, h, b, waitingTask(t, h, b))
		if !strings.Contains(lines[0], `"task"`) || !strings.Contains(lines[len(lines)-1], "TASK_STATE_COMPLETED") {
			t.Errorf("%s: %s", b, strings.Join(lines, "\n"))
		}
	}
}

func taskSubscribe002(t *testing.T, h *harness) {
	id := waitingTask(t, h, "jsonrpc")
	// The first subscription is cut (its --timeout), the second resumes
	// with the whole task as its first event.
	cut := cli(t, cliOpts{}, "task", "subscribe", "-a", h.echo, id, "--stream", "-o", "json", "--timeout", "300ms")
	if cut.code != exitTimeout {
		t.Errorf("the cut subscription: exit %d %s", cut.code, cut.stderr)
	}
	first := subscribeThenAnswer(t, h, "jsonrpc", id)[0]
	var m map[string]any
	json.Unmarshal([]byte(first), &m)
	if str(field(m, "task", "id")) != id || str(field(m, "task", "contextId")) == "" {
		t.Errorf("the resumed stream does not start with the task: %s", first)
	}
}

// oauthCard is a card file of the echo agent declaring an OAuth 2.0 scheme
// of o (or, with oidc, an OpenID Connect scheme).
func oauthCard(t *testing.T, h *harness, o *oauthServer, oidc bool) string {
	return writeCardFile(t, h.echo, func(c *a2av1.AgentCard) {
		s := &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{
			Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_DeviceCode{DeviceCode: &a2av1.DeviceCodeOAuthFlow{
				DeviceAuthorizationUrl: o.url + "/device", TokenUrl: o.url + "/token", Scopes: map[string]string{"tasks": "use tasks"}}}}}}}
		if oidc {
			s = &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &a2av1.OpenIdConnectSecurityScheme{
				OpenIdConnectUrl: o.url + "/.well-known/openid-configuration"}}}
		}
		c.SecuritySchemes = map[string]*a2av1.SecurityScheme{"login": s}
	})
}

// ccCard is like oauthCard with the client-credentials flow.
func ccCard(t *testing.T, h *harness, o *oauthServer) string {
	return writeCardFile(t, h.echo, func(c *a2av1.AgentCard) {
		c.SecuritySchemes = map[string]*a2av1.SecurityScheme{"login": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{
			Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{
				TokenUrl: o.url + "/token", Scopes: map[string]string{"tasks": "use tasks"}}}}}}}}
	})
}

func auth005(t *testing.T, h *harness) {
	o := startOAuthServer(t, echoToken)
	card, home := oauthCard(t, h, o, false), t.TempDir()
	r := cli(t, cliOpts{home: home}, "auth", "login", "-a", card, "--client-id", "cli-client")
	expect(t, r, 0, "enter the code WDJB-MJHT", "Flow: device-code", "Token Stored In")
	// The token is the agent's: the extended card opens with it.
	expect(t, cli(t, cliOpts{home: home}, "card", "get", "-a", card, "--extended"), 0, "Skill: echo-extended")
}

func auth006(t *testing.T, h *harness) {
	o := startOAuthServer(t, echoToken)
	card, home := ccCard(t, h, o), t.TempDir()
	expect(t, cli(t, cliOpts{home: home}, "auth", "login", "-a", card, "--client-id", "cli-client", "--client-secret", "wrong"), exitAuth, "A2ACLI_ERR_AUTH_FAILED")
	r := cli(t, cliOpts{home: home, env: map[string]string{"A2ACLI_CLIENT_SECRET": "cli-secret"}}, "auth", "login", "-a", card, "--client-id", "cli-client")
	expect(t, r, 0, "Flow: client-credentials")
	expect(t, cli(t, cliOpts{home: home}, "card", "get", "-a", card, "--extended"), 0, "Skill: echo-extended")
}

func auth007(t *testing.T, h *harness) {
	o := startOAuthServer(t, echoToken)
	card, home := ccCard(t, h, o), t.TempDir()
	run := cli(t, cliOpts{home: home}, "auth", "login", "-a", card, "--client-id", "cli-client", "--client-secret", "cli-secret")
	expect(t, run, 0)
	path := filepath.Join(home, ".config", "a2a-cli", "tokens.json")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", path, fi, err)
	}
	// Attached on later calls: the task belongs to the token's subject and
	// is listed for it, on every binding, and never for anonymous callers.
	for _, b := range bindingFlags {
		id := str(field(oneJSON(t, cli(t, cliOpts{home: home}, "--transport", b, "send", "-a", card, "input", "-o", "json")), "task", "id"))
		expect(t, cli(t, cliOpts{home: home}, "--transport", b, "task", "list", "-a", card), 0, "Task ID: "+id)
		if r := cli(t, cliOpts{}, "--transport", b, "task", "list", "-a", card); strings.Contains(r.stdout, id) {
			t.Errorf("%s: an anonymous caller sees the logged-in task", b)
		}
	}
}

func tx004(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		expect(t, run0(t, "--transport", b, "send", "-a", h.echo, "hello", "--debug"), 0, "> SendMessage "+string(protocolBinding[b]))
	}
}

func ver003(t *testing.T, h *harness) {
	bare := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) { c.Capabilities = &a2av1.AgentCapabilities{} })
	expect(t, cli(t, cliOpts{}, "send", "-a", bare, "--stream", "hello"), 0, "does not declare streaming")
	r := cli(t, cliOpts{}, "task", "push-config", "list", "-a", bare, "t", "--debug")
	expect(t, r, exitUsage, "does not declare push notifications")
	if strings.Contains(r.stderr, "> ListTaskPushNotificationConfigs") {
		t.Errorf("called the agent anyway")
	}
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", bare, "--extended", "--bearer", echoToken), exitUsage, "does not declare an extended card")
	expect(t, cli(t, cliOpts{}, "task", "subscribe", "-a", bare, "t"), exitUsage, "does not declare streaming")
}

func config002(t *testing.T, h *harness) {
	home, work := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "a2a-cli"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "a2a-cli", ".env"), []byte("A2ACLI_OUTPUT=json\nA2ACLI_TIMEOUT=11s\nA2ACLI_TENANT=global\nA2ACLI_POLL_INTERVAL=3s\n"), 0o600)
	os.WriteFile(filepath.Join(work, ".env"), []byte("A2ACLI_TIMEOUT=22s\nA2ACLI_TENANT=local\n"), 0o600)
	agentFile := filepath.Join(t.TempDir(), "acme.env")
	os.WriteFile(agentFile, []byte("A2ACLI_AGENT_CARD="+h.echo+"\nA2ACLI_TENANT=acme\n"), 0o600)
	r := cli(t, cliOpts{home: home, dir: work, env: map[string]string{"A2ACLI_TENANT": "env"}}, "config", "show", "--timeout", "33s", "-o", "text")
	expect(t, r, 0, "timeout: 33s (flag --timeout)", "tenant: env (environment A2ACLI_TENANT)", "poll-interval: 3s (file "+filepath.Join(home, ".config", "a2a-cli", ".env"),
		"output: text (flag --output)", "verbose: false (default)")
	r = cli(t, cliOpts{home: home, dir: work}, "config", "show")
	m := oneJSON(t, r) // A2ACLI_OUTPUT=json from the global file
	settings, _ := m["settings"].([]any)
	found := false
	for _, s := range settings {
		s := s.(map[string]any)
		if s["name"] == "timeout" {
			found = s["value"] == "22s" && s["source"] == "file "+filepath.Join(work, ".env")+" (A2ACLI_TIMEOUT)"
		}
	}
	if !found {
		t.Errorf("the local file does not win over the global one: %v", m)
	}
	// Scoped by agent: --config names the agent's file, which replaces the local one.
	r = cli(t, cliOpts{home: home, dir: work}, "config", "show", "--config", agentFile, "-o", "text")
	expect(t, r, 0, "agent-card: "+h.echo, "tenant: acme (file "+agentFile)
	expect(t, cli(t, cliOpts{home: home, dir: work}, "send", "--config", agentFile, "--tenant", "", "hello", "-o", "text"), 0, "State: COMPLETED")
}

func download001(t *testing.T, h *harness) {
	dir := t.TempDir()
	id := str(field(sendJSON(t, "-a", h.rich.base, "artifacts"), "task", "id"))
	r := run0(t, "task", "download", "-a", h.rich.base, id, "--dir", dir)
	expect(t, r, 0, "Saved: "+filepath.Join(dir, "all kinds-1.txt"), "Saved: "+filepath.Join(dir, "report.pdf"), "Saved: "+filepath.Join(dir, "all kinds-2.json"))
	if b, _ := os.ReadFile(filepath.Join(dir, "report.pdf")); string(b) != "%PDF-1.7 twelve" {
		t.Errorf("report.pdf holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "big.zip")); string(b) != "zip bytes" {
		t.Errorf("big.zip (fetched from its URL) holds %q", b)
	}
	expect(t, cli(t, cliOpts{}, "task", "download", "-a", h.rich.base, id, "--dir", dir), exitUsage, "--force")
	id = str(field(sendJSON(t, "-a", h.echo, "hello"), "task", "id"))
	r = run0(t, "task", "download", "-a", h.echo, id, "--dir", dir)
	matches, _ := filepath.Glob(filepath.Join(dir, "*-1.txt"))
	found := false
	for _, m := range matches {
		if b, _ := os.ReadFile(m); string(b) == "Echo: hello" {
			found = true
		}
	}
	if !found {
		t.Errorf("echo's artifact was not saved: %s", r.stdout)
	}
}

func out007(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := run0(t, "--transport", b, "send", "-a", h.echo, "hello", "--debug")
		expect(t, r, 0, "> SendMessage "+string(protocolBinding[b]), `"text":"hello"`, "< SendMessage", `"Echo: hello"`, "GET "+h.echo+runtime.AgentCardPath)
		if strings.Contains(r.stdout, "> SendMessage") {
			t.Errorf("%s: the wire log is on stdout", b)
		}
	}
}

func conform001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := run0(t, "--transport", b, "conformance", "-a", h.echo, "--bearer", echoToken)
		expect(t, r, 0, "Route: native smoke check", "Check: an unknown task is TaskNotFoundError", "Check: GetExtendedAgentCard answers")
		if strings.Contains(r.stdout, "Result: fail") {
			t.Errorf("%s: %s", b, r.stdout)
		}
	}
	// A failing agent fails the check.
	fa := startFakeAgent(t)
	expect(t, cli(t, cliOpts{}, "conformance", "-a", fa.base), exitFail, "A2AGEN_CONFORMANCE_FAILED", "Result: fail")
	// With a TCK checkout, its runner is run against the agent.
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	tck := t.TempDir()
	os.WriteFile(filepath.Join(tck, "run_tck.py"), []byte("import sys\nprint('TCK ran with', ' '.join(sys.argv[1:]))\n"), 0o755)
	r := cli(t, cliOpts{env: map[string]string{"A2ACLI_TCK": tck}}, "conformance", "-a", h.echo)
	expect(t, r, 0, "Route: tck", "TCK ran with --sut-url "+h.echo+" --category mandatory")
}

func cli002(t *testing.T, h *harness) {
	for shell, want := range map[string]string{"bash": "bash completion", "zsh": "#compdef", "fish": "complete -c a2a", "powershell": "Register-ArgumentCompleter"} {
		expect(t, run0(t, "completion", shell), 0, want)
	}
}

func push001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		id := str(field(sendJSON(t, "--transport", b, "-a", h.echo, "input"), "task", "id"))
		pc := func(args ...string) cliRun {
			return run0(t, append([]string{"--transport", b, "task", "push-config"}, args...)...)
		}
		expect(t, pc("create", "-a", h.echo, id, "http://127.0.0.1:9/hook", "--id", "c1", "--token", "t0k"), 0, "Config ID: c1")
		expect(t, pc("get", "-a", h.echo, id, "c1"), 0, "URL: http://127.0.0.1:9/hook")
		expect(t, pc("list", "-a", h.echo, id), 0, "Push Configs: 1")
		expect(t, pc("delete", "-a", h.echo, id, "c1"), 0, "Deleted Config ID: c1")
		expect(t, pc("list", "-a", h.echo, id), 0, "Push Configs: 0")
	}
}

func cardGet003(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		expect(t, run0(t, "--transport", b, "card", "get", "-a", h.echo, "--extended", "--bearer", echoToken), 0, "Skill: echo-extended")
		expect(t, cli(t, cliOpts{}, "--transport", b, "card", "get", "-a", h.echo, "--extended"), exitAuth, "A2ACLI_ERR_CREDENTIALS_MISSING", "--bearer")
	}
	// Only a declared scheme carries the credential: a card declaring none
	// gets no token, so the extended card is refused.
	noScheme := writeCardFile(t, h.echo, func(c *a2av1.AgentCard) { c.SecuritySchemes = nil })
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", noScheme, "--extended", "--bearer", echoToken), exitAuth, "not sending the bearer token")
}

func auth008(t *testing.T, h *harness) {
	ra := startRichAgent(t, &richOptions{noSchema: true})
	r := cli(t, cliOpts{}, "send", "-a", ra.base, "--bearer", "t0ken-x", "--api-key", "k3y-x", "hello")
	expect(t, r, 0, "not sending the bearer token", "not sending the API key")
	for _, req := range ra.requests() {
		if req.Header.Get("Authorization") != "" || strings.Contains(req.URL.RawQuery, "k3y") || strings.Contains(req.Header.Get("Cookie"), "k3y") {
			t.Errorf("a credential reached %s %s", req.Method, req.URL)
		}
	}
	// Nor is the card fetch ever given one.
	ra2 := startRichAgent(t, nil)
	run0(t, "send", "-a", ra2.base, "--bearer", "t0ken-x", "hello")
	for _, req := range ra2.requests() {
		if req.URL.Path == runtime.AgentCardPath && req.Header.Get("Authorization") != "" {
			t.Errorf("the card fetch carried the token")
		}
	}
}

func cardGet004(t *testing.T, h *harness) {
	base, pemFile := startSignedCardServer(t)
	expect(t, run0(t, "card", "get", "-a", base, "--verify-key", pemFile), 0, "Signature: verified")
	expect(t, run0(t, "card", "get", "-a", base), 0, "Signature: unverifiable")
	expect(t, run0(t, "card", "get", "-a", h.echo), 0, "Signature: absent")
	other, _ := filepath.Abs("testdata/key.pub.pem")
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", base, "--verify-key", other), exitFail, "no signature of the card verified")
}

func cardGet005(t *testing.T, h *harness) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	file := writeCardFile(t, h.echo, nil)
	doc, _ := os.ReadFile(file)
	mux.HandleFunc("/.well-known/ai-catalog.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		json.NewEncoder(w).Encode(map[string]any{"specVersion": "1.0", "entries": []any{
			map[string]any{"identifier": "urn:air:example.com:mcp:weather", "type": "application/mcp-server-card+json", "url": "https://example.com/mcp"},
			map[string]any{"identifier": "urn:air:example.com:a2a:echo", "type": "application/a2a-agent-card+json", "url": h.echo + runtime.AgentCardPath},
			map[string]any{"identifier": "urn:air:example.com:a2a:inline", "displayName": "Inline echo", "type": "application/a2a-agent-card+json", "data": json.RawMessage(doc)},
		}})
	})
	catalog := srv.URL + "/.well-known/ai-catalog.json"
	expect(t, run0(t, "card", "get", "-a", catalog+"#urn:air:example.com:a2a:echo"), 0, "Name: echo")
	expect(t, run0(t, "send", "-a", catalog+"#urn:air:example.com:a2a:echo", "hello"), 0, "Echo: hello")
	expect(t, run0(t, "send", "-a", catalog+"#Inline echo", "hello"), 0, "Echo: hello")
	expect(t, cli(t, cliOpts{}, "send", "-a", catalog, "hello"), exitUsage, "urn:air:example.com:a2a:echo")
	expect(t, cli(t, cliOpts{}, "card", "get", "-a", catalog+"#nope"), exitUnreachable, "A2ACLI_ERR_CARD_NOT_FOUND")
}

func push002(t *testing.T, h *harness) {
	cmd := exec.Command(a2aBinary, "webhook", "listen", "127.0.0.1:0", "--token", "hook-token", "--count", "4", "-o", "json")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	hook := waitForListen(t, &stderr)
	run0(t, "send", "-a", h.echo, "--async", "--push-url", hook+"/hook", "--push-token", "hook-token", "slow 100")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("webhook listen: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("webhook listen got %q", stdout.String())
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 4 || !strings.Contains(lines[3], "TASK_STATE_COMPLETED") {
		t.Errorf("deliveries: %s", stdout.String())
	}
}

func chat001(t *testing.T, h *harness) {
	for _, b := range bindingFlags {
		r := cli(t, cliOpts{stdin: "input\nParis\nhello\n"}, "--transport", b, "chat", "-a", h.echo, "-o", "json")
		expect(t, r, 0)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s: %d answers:\n%s", b, len(lines), r.stdout)
		}
		var a1, a2, a3 map[string]any
		json.Unmarshal([]byte(lines[0]), &a1)
		json.Unmarshal([]byte(lines[1]), &a2)
		json.Unmarshal([]byte(lines[2]), &a3)
		if str(field(a1, "task", "status", "state")) != "TASK_STATE_INPUT_REQUIRED" ||
			str(field(a2, "task", "id")) != str(field(a1, "task", "id")) || str(field(a2, "task", "status", "state")) != "TASK_STATE_COMPLETED" ||
			str(field(a3, "task", "contextId")) != str(field(a1, "task", "contextId")) || str(field(a3, "task", "id")) == str(field(a1, "task", "id")) {
			t.Errorf("%s: the task and context were not carried across turns:\n%s", b, r.stdout)
		}
	}
	chatOnATerminal(t, h.echo)
}

// chatOnATerminal runs chat on a pseudo-terminal (util-linux script):
// it prompts, and the prompt names the task waiting for input.
func chatOnATerminal(t *testing.T, base string) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Log("no script command: chat on a terminal not exercised")
		return
	}
	cmd := exec.Command(script, "-qec", a2aBinary+" chat -a "+base, "/dev/null")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader("input\nParis\n\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chat on a terminal: %v\n%s", err, out)
	}
	s := strings.ReplaceAll(string(out), "\r", "")
	id := regexp.MustCompile(`Task ID: (\S+)`).FindStringSubmatch(s)
	if id == nil || !strings.Contains(s, "you> ") || !strings.Contains(s, "you (task "+id[1]+")> ") || !strings.Contains(s, "Echo: Paris") {
		t.Errorf("chat on a terminal:\n%s", s)
	}
}

func tx005(t *testing.T, h *harness) {
	expect(t, run0(t, "--transport", "grpc", "send", "-a", h.echo, "--stream", "stream 2", "--debug"), 0, "> SendStreamingMessage GRPC", "State: COMPLETED")
	id := str(field(sendJSON(t, "--transport", "grpc", "-a", h.echo, "input"), "task", "id"))
	expect(t, run0(t, "--transport", "grpc", "task", "get", "-a", h.echo, id), 0, "State: INPUT_REQUIRED")
}

func auth009(t *testing.T, h *harness) {
	ra := startRichAgent(t, &richOptions{tls: &tls.Config{ClientAuth: tls.RequireAnyClientCert}})
	ca := certPEM(t, ra.srv)
	expect(t, cli(t, cliOpts{}, "send", "-a", ra.base, "--cacert", ca, "hello"), exitUnreachable, "A2ACLI_ERR_UNREACHABLE")
	certFile, keyFile := clientCert(t)
	expect(t, run0(t, "send", "-a", ra.base, "--cacert", ca, "--cert", certFile, "--key", keyFile, "hello"), 0, "State: COMPLETED")
	expect(t, cli(t, cliOpts{}, "send", "-a", ra.base, "--cert", certFile, "hello"), exitUsage, "--cert and --key")
}

func auth010(t *testing.T, h *harness) {
	o := startOAuthServer(t, echoToken)
	card, home := oauthCard(t, h, o, true), t.TempDir()
	r := cli(t, cliOpts{home: home}, "auth", "login", "-a", card, "--client-id", "cli-client", "--client-secret", "cli-secret", "--flow", "client-credentials")
	expect(t, r, 0, "Security Scheme: login", "Flow: client-credentials")
	expect(t, cli(t, cliOpts{home: home}, "card", "get", "-a", card, "--extended"), 0, "Skill: echo-extended")
	// A bearer token goes to an OpenID Connect scheme as well.
	expect(t, run0(t, "card", "get", "-a", card, "--extended", "--bearer", echoToken), 0, "Skill: echo-extended")
}

func auth011(t *testing.T, h *harness) {
	for _, b := range []string{"jsonrpc", "rest"} {
		r := cli(t, cliOpts{}, "--transport", b, "send", "-a", h.rich.base, "auth", "--timeout", "20s")
		expect(t, r, 0, "State: AUTH_REQUIRED", "sign in to the calendar", "--bearer TOKEN")
		id := regexp.MustCompile(`Task ID: (\S+)`).FindStringSubmatch(r.stdout)[1]
		expect(t, run0(t, "--transport", b, "send", "-a", h.rich.base, "--task-id", id, "--bearer", "t0k", "signed in"), 0, "State: COMPLETED", "resumed: signed in")
	}
}

func demoServer001(t *testing.T, h *harness) {
	base := startDemoServer(t)
	for _, b := range bindingFlags {
		expect(t, run0(t, "--transport", b, "send", "-a", base, "hello"), 0, "Echo: hello")
	}
	expect(t, run0(t, "send", "-a", base, "--stream", "stream 2"), 0, "chunk 2/2;")
}

func ver002(t *testing.T, h *harness) {
	base, rec := startRecordingEcho(t)
	const uri = "https://example.com/ext/required/v1"
	required := writeCardFile(t, base, func(c *a2av1.AgentCard) {
		c.Capabilities.Extensions = []*a2av1.AgentExtension{{Uri: uri, Required: true}}
	})
	expect(t, cli(t, cliOpts{}, "send", "-a", required, "hello"), 0, "requires the extension "+uri, "--extension "+uri)
	for _, b := range bindingFlags {
		rec.take()
		r := cli(t, cliOpts{}, "--transport", b, "send", "-a", required, "--extension", uri, "hello")
		expect(t, r, 0)
		if strings.Contains(r.stderr, "requires the extension") {
			t.Errorf("%s: warned although declared", b)
		}
		for _, c := range rec.take() {
			if !slices.Contains(c.extensions, uri) {
				t.Errorf("%s: a call without the declared extension: %+v", b, c)
			}
		}
	}
}

// clientCert makes a self-signed client certificate and key (PEM files).
func clientCert(t *testing.T) (string, string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.NotFoundHandler()) // borrows httptest's key pair
	srv.Close()
	cert := srv.TLS.Certificates[0]
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	os.WriteFile(certFile, pemOf("CERTIFICATE", cert.Certificate[0]), 0o600)
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(keyFile, pemOf("PRIVATE KEY", key), 0o600)
	return certFile, keyFile
}
