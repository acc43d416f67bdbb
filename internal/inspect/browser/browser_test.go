package browser

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a2agen/a2agen/internal/inspect"
)

// chromiumPath is Debian's chromium; the tests never download a browser.
const chromiumPath = "/usr/bin/chromium"

// screenshots, when set (make inspect-screenshots), is the directory the
// tests write the main views' PNGs to (docs/inspect).
var screenshots = os.Getenv("A2AGEN_INSPECT_SCREENSHOTS")

// repoRoot is the main module's directory.
const repoRoot = "../../.."

func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("the browser tests need Debian's chromium at %s (apt-get install -y chromium): %v", chromiumPath, err)
	}
}

// build compiles a command of the main module into the test's temp dir.
func build(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// startProcess runs bin and returns the lines it printed that match re,
// once it printed want of them.
func startProcess(t *testing.T, bin string, env []string, args ...string) *bufio.Scanner {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return bufio.NewScanner(stdout)
}

// startEcho runs examples/echo on loopback (webhooks to loopback allowed)
// and returns its base URL.
func startEcho(t *testing.T) string {
	t.Helper()
	sc := startProcess(t, build(t, "./examples/echo"), nil, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--allow-private-webhooks")
	re := regexp.MustCompile(`^agent card\s+(http://\S+)/\.well-known/agent-card\.json`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, readerOf(sc)) }()
			return m[1]
		}
	}
	t.Fatal("examples/echo printed no card line")
	return ""
}

type scannerReader struct{ sc *bufio.Scanner }

func (r scannerReader) Read(p []byte) (int, error) {
	if !r.sc.Scan() {
		return 0, io.EOF
	}
	return copy(p, r.sc.Text()+"\n"), nil
}

func readerOf(sc *bufio.Scanner) io.Reader { return scannerReader{sc} }

// startInspector serves an inspector in-process and returns its page URL.
func startInspector(t *testing.T, agent string) *inspect.Server {
	t.Helper()
	s, err := inspect.New(inspect.Options{AgentURL: agent})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// browser starts headless Chromium with a fresh profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// run does the steps in order, failing the test with what at the first
// error.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// text is the visible text of the first element matching the CSS selector.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// eval is the value of a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// shot saves a screenshot of the page when screenshots are asked for.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if screenshots == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()) // the viewport: what a user sees
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(screenshots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func tab(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(css(fmt.Sprintf(`#tabs button[data-tab=%q]`, name)))
}

// TestInspectorAgainstEcho drives the page against examples/echo: the card
// renders and passes the checks; on every interface a chat turn completes,
// a stream updates its artifact in place, and an input-required task is
// continued by the next message; a push delivery appears, token verified;
// the wire view shows the JSON-RPC request with its envelope (the first
// chat message, streamed).
func TestInspectorAgainstEcho(t *testing.T) {
	needChromium(t)
	agent := startEcho(t)
	s := startInspector(t, agent)
	ctx := browser(t)
	run(t, ctx, "open the page and the card",
		chromedp.Navigate(s.URL()),
		chromedp.WaitVisible(css(`#checks-ok`)))
	if name, checks := text(t, ctx, `.card-name`), text(t, ctx, `#checks`); name != "echo" || !strings.Contains(checks, "All checks pass") {
		t.Fatalf("card view: name %q, checks %q", name, checks)
	}
	shot(t, ctx, "card")
	for i := range 3 {
		t.Run(fmt.Sprintf("interface %d", i), func(t *testing.T) {
			run(t, ctx, "a chat turn",
				chromedp.SetValue(css(`#iface`), fmt.Sprint(i)),
				tab("chat"),
				chromedp.Click(css(`#chat-reset`)),
				chromedp.SetValue(css(`#chat-text`), "hello there"),
				chromedp.Click(css(`#chat-send`)),
				chromedp.WaitVisible(css(`#transcript .task .state.completed`)))
			// A stream: three chunks appended to one artifact, the last marked.
			run(t, ctx, "a stream",
				chromedp.SetValue(css(`#chat-text`), "stream 3"),
				chromedp.Click(css(`#chat-send`)),
				chromedp.WaitVisible(css(`#transcript .task:last-of-type .artifact.complete`)))
			if got := text(t, ctx, `#transcript .task:last-of-type .artifact.complete .artifact-body`); got != "chunk 1/3;chunk 2/3;chunk 3/3;" {
				t.Errorf("the streamed artifact reads %q, want the three chunks in one part", got)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#transcript .artifact").length`); n != 2 {
				t.Errorf("%d artifacts in the transcript, want 2 (the chunks updated one in place)", n)
			}
			run(t, ctx, "input required",
				chromedp.SetValue(css(`#chat-text`), "input"),
				chromedp.Click(css(`#chat-send`)),
				chromedp.WaitVisible(css(`#transcript .state.input-required`)))
			if line := text(t, ctx, `#chat-context-line`); !strings.Contains(line, "continues task") {
				t.Errorf("after input-required the page says %q", line)
			}
			run(t, ctx, "the follow-up",
				chromedp.SetValue(css(`#chat-text`), "the missing piece"),
				chromedp.Click(css(`#chat-send`)),
				chromedp.Poll[chromedp.Void](`document.querySelectorAll("#transcript .task .state.completed").length === 3`))
			if follow := text(t, ctx, `#transcript .task:nth-of-type(6)`); !strings.Contains(follow, "Echo: the missing piece") {
				t.Errorf("the continued task shows %q", follow)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#transcript .task").length`); n != 3 {
				t.Errorf("%d tasks in the transcript, want 3 (the follow-up continued the third)", n)
			}
			if i == 0 {
				shot(t, ctx, "chat")
			}
		})
	}
	// Push: a slow task, a config to the inspector's receiver, the deliveries.
	run(t, ctx, "a slow task, answered at once",
		chromedp.SetValue(css(`#iface`), "0"),
		chromedp.Click(css(`#chat-reset`)),
		chromedp.Click(css(`#chat-stream`)), // unticked: SendMessage
		chromedp.Click(css(`#chat-async`)),  // returnImmediately: the task is still working
		chromedp.SetValue(css(`#chat-text`), "slow 1500"),
		chromedp.Click(css(`#chat-send`)),
		chromedp.WaitVisible(css(`#transcript .task`)))
	_ = eval[bool](t, ctx, `document.getElementById("chat-stream").checked = true; document.getElementById("chat-async").checked = false; true`)
	taskID := eval[string](t, ctx, `document.querySelector("#transcript .task").dataset.task`)
	run(t, ctx, "push config and delivery",
		tab("push"),
		chromedp.SetValue(css(`#push-task`), taskID),
		chromedp.Click(css(`#push-create`)),
		chromedp.WaitVisible(css(`#push-table`)),
		chromedp.WaitVisible(css(`#deliveries li.verified`)))
	if d := text(t, ctx, `#deliveries`); !strings.Contains(d, "token verified") || !strings.Contains(d, taskID) {
		t.Errorf("deliveries: %q", d)
	}
	shot(t, ctx, "push")
	run(t, ctx, "wire view",
		tab("wire"),
		chromedp.WaitVisible(css(`#wire li.request.binding-JSONRPC`)))
	if wire := text(t, ctx, `#wire li.request.binding-JSONRPC pre`); !strings.Contains(wire, `"jsonrpc": "2.0"`) || !strings.Contains(wire, `"method": "SendStreamingMessage"`) {
		t.Errorf("the wire view's first JSON-RPC request:\n%s", wire)
	}
	shot(t, ctx, "wire")
	run(t, ctx, "tasks",
		tab("tasks"),
		chromedp.SetValue(css(`#task-id`), taskID),
		chromedp.Click(css(`#task-get`)),
		chromedp.WaitVisible(css(`#task-detail .task`)))
	shot(t, ctx, "tasks")
}

// TestPageRefusedWithoutToken: the page's URL without its token is refused,
// in the browser as over plain HTTP.
func TestPageRefusedWithoutToken(t *testing.T) {
	needChromium(t)
	s := startInspector(t, "")
	ctx := browser(t)
	bare := strings.Split(s.URL(), "?")[0]
	run(t, ctx, "open without token", chromedp.Navigate(bare))
	if body := text(t, ctx, `body`); !strings.Contains(body, "missing or wrong session token") {
		t.Errorf("the page without token shows %q", body)
	}
	resp, err := http.Get(bare)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET without token: %s", resp.Status)
	}
}
