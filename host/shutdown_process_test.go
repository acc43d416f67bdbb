package host_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// startSlowAgent builds (proctest.Build: once per content) and starts testdata/slowagent (host.Main)
// on free ports, moved there by A2A_LISTEN, with args. The test runs in
// parallel with the other process tests.
func startSlowAgent(t *testing.T, args ...string) *proctest.Process {
	t.Helper()
	return startSlowAgentEnv(t, nil, args...)
}

// startSlowAgentEnv is startSlowAgent with more environment variables.
func startSlowAgentEnv(t *testing.T, env []string, args ...string) *proctest.Process {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs an agent process")
	}
	t.Parallel()
	bin := proctest.Build(t, ".", "./testdata/slowagent")
	return proctest.Start(t, bin, proctest.Options{
		Args: append([]string{"-store", "memory"}, args...),
		Env:  append([]string{"A2A_LISTEN=127.0.0.1:18080=127.0.0.1:0, 127.0.0.1:19090=127.0.0.1:0"}, env...),
	})
}

// liveStream is a stream being read in the background.
type liveStream struct {
	binding runtime.Binding
	working chan struct{} // closed once the execution sent progress
	task    string        // the task's id, from the first event; set before working is closed
	done    chan struct{}
	events  []*a2av1.StreamResponse
	err     error
}

// openStreams sends text as a streaming message on every binding of p and
// returns once every execution has sent progress (an artifact chunk).
func openStreams(t *testing.T, p *proctest.Process, text string) []*liveStream {
	t.Helper()
	var out []*liveStream
	for _, b := range proctest.Bindings {
		s := &liveStream{binding: b, working: make(chan struct{}), done: make(chan struct{})}
		c := p.Client(t, b)
		go func() {
			defer close(s.done)
			for ev, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: proctest.UserMessage(text)}) {
				if err != nil {
					s.err = err
					break
				}
				if len(s.events) == 0 {
					s.task = ev.GetTask().GetId()
				}
				if ev.GetArtifactUpdate() != nil && len(s.events) > 0 && s.events[len(s.events)-1].GetArtifactUpdate() == nil {
					close(s.working)
				}
				s.events = append(s.events, ev)
			}
		}()
		out = append(out, s)
	}
	awaitWorking(t, out, "the stream ended before the work began")
	return out
}

// subscribeAll subscribes, on the binding of each stream, to the task that
// stream started (SubscribeToTask), and returns once every subscription
// has its first event (the task).
func subscribeAll(t *testing.T, p *proctest.Process, streams []*liveStream) []*liveStream {
	t.Helper()
	var out []*liveStream
	for _, st := range streams {
		id := st.task
		if id == "" {
			t.Fatalf("%s: the stream's first event is not a task", st.binding)
		}
		s := &liveStream{binding: st.binding, working: make(chan struct{}), done: make(chan struct{})}
		c := p.Client(t, st.binding)
		go func() {
			defer close(s.done)
			for ev, err := range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: id}) {
				if err != nil {
					s.err = err
					break
				}
				if len(s.events) == 0 {
					close(s.working)
				}
				s.events = append(s.events, ev)
			}
		}()
		out = append(out, s)
	}
	awaitWorking(t, out, "the subscription ended before its first event")
	return out
}

// awaitWorking waits (at most 20 s each) until every stream has closed its
// working channel; a stream that ends first fails the test with ended.
func awaitWorking(t *testing.T, streams []*liveStream, ended string) {
	t.Helper()
	for _, s := range streams {
		select {
		case <-s.working:
		case <-s.done:
			t.Fatalf("%s: %s: %v, %v", s.binding, ended, describeEvents(s.events), s.err)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: not working after 20s", s.binding)
		}
	}
}

func (s *liveStream) wait(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the stream did not end within 30s", s.binding)
	}
}

func (s *liveStream) last() *a2av1.StreamResponse {
	if len(s.events) == 0 {
		return nil
	}
	return s.events[len(s.events)-1]
}

func describeEvents(evs []*a2av1.StreamResponse) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, proctest.Describe(ev))
	}
	return out
}

// refused reports whether nothing accepts connections at addr any more.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

func hostPort(t *testing.T, endpoint string) string {
	t.Helper()
	if !strings.Contains(endpoint, "://") {
		return endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestSIGTERMDrainsStreams: on SIGTERM the agent stops accepting
// connections at once, lets the running executions finish within the grace
// period — each stream, on every binding, ends with its task's COMPLETED —
// and exits 0.
func TestSIGTERMDrainsStreams(t *testing.T) {
	p := startSlowAgent(t)
	streams := openStreams(t, p, "1500ms")
	p.Signal(t, syscall.SIGTERM)
	for _, b := range []string{runtime.BindingJSONRPC, runtime.BindingGRPC} {
		addr := hostPort(t, p.Endpoints[b])
		if !proctest.Poll(5*time.Second, func() bool { return refused(addr) }) {
			t.Errorf("%s: %s still accepts connections after SIGTERM", b, addr)
		}
	}
	for _, s := range streams {
		s.wait(t)
		if s.err != nil || proctest.StateOf(s.last()) != a2av1.TaskState_TASK_STATE_COMPLETED {
			t.Errorf("%s: stream ended with %v after %v, want COMPLETED", s.binding, s.err, describeEvents(s.events))
		}
	}
	if code := p.Wait(t, 20*time.Second); code != 0 {
		t.Errorf("exit %d after a complete drain, want 0; stderr:\n%s", code, p.Stderr())
	}
	if want := "shutting down: 3 executions may run 10s longer"; !strings.Contains(p.Stderr(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, p.Stderr())
	}
}

// TestSIGINTCancelsAfterGrace: executions still running at the end of
// the grace period (here from A2A_SHUTDOWN_GRACE) have their contexts
// canceled with server.ErrShutdown as the cause (the skill puts it in its
// failure message); every stream — SendStreamingMessage and
// SubscribeToTask, on every binding — ends with that FAILED status; the
// exit code says that work was canceled.
func TestSIGINTCancelsAfterGrace(t *testing.T) {
	p := startSlowAgentEnv(t, []string{"A2A_SHUTDOWN_GRACE=300ms"})
	streams := openStreams(t, p, "60s")
	streams = append(streams, subscribeAll(t, p, streams)...)
	p.Signal(t, syscall.SIGINT)
	for _, s := range streams {
		s.wait(t)
		st := s.last().GetStatusUpdate().GetStatus()
		if s.err != nil || st.GetState() != a2av1.TaskState_TASK_STATE_FAILED ||
			server.MessageText(st.GetMessage()) != "stopped: "+server.ErrShutdown.Error() {
			t.Errorf("%s: stream ended with %v after %v (last status %v), want FAILED with the cause", s.binding, s.err, describeEvents(s.events), st)
		}
	}
	if code := p.Wait(t, 20*time.Second); code != 1 {
		t.Errorf("exit %d, want 1; stderr:\n%s", code, p.Stderr())
	}
	if want := "3 executions still running at the end of the 300ms shutdown grace period: canceled"; !strings.Contains(p.Stderr(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, p.Stderr())
	}
}

// TestShutdownEndsStreamsOfStuckExecutions: executions that ignore the
// cancel keep their tasks WORKING; their streams (SendStreamingMessage and
// SubscribeToTask, on every binding) still end with an error event naming
// the task's state (never a bare cut), and the process exits 1.
func TestShutdownEndsStreamsOfStuckExecutions(t *testing.T) {
	p := startSlowAgent(t, "-shutdown-grace", "0")
	streams := openStreams(t, p, "60s ignore")
	streams = append(streams, subscribeAll(t, p, streams)...)
	p.Signal(t, syscall.SIGTERM)
	for _, s := range streams {
		s.wait(t)
		var e *runtime.Error
		if !errors.As(s.err, &e) || !strings.Contains(e.Message(), "shutting down") || !strings.Contains(e.Message(), "WORKING") {
			t.Errorf("%s: stream ended with %v after %v, want an error event saying the agent is shutting down and the task is WORKING",
				s.binding, s.err, describeEvents(s.events))
		}
	}
	if code := p.Wait(t, 20*time.Second); code != 1 {
		t.Errorf("exit %d, want 1; stderr:\n%s", code, p.Stderr())
	}
	if want := "3 executions did not return within 5s of being canceled"; !strings.Contains(p.Stderr(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, p.Stderr())
	}
}

// TestSecondSignalExitsAtOnce: a second signal during the shutdown ends the
// process at once with 128+SIGTERM.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	p := startSlowAgent(t, "-shutdown-grace", "60s")
	openStreams(t, p, "60s")
	p.Signal(t, syscall.SIGTERM)
	if !proctest.Poll(10*time.Second, func() bool { return strings.Contains(p.Stderr(), "shutting down") }) {
		t.Fatalf("no shutdown message after SIGTERM:\n%s", p.Stderr())
	}
	select {
	case <-p.Exited():
		t.Fatalf("exited after one signal with work left; stderr:\n%s", p.Stderr())
	case <-time.After(200 * time.Millisecond):
	}
	// With 60s of grace left, an exit within Wait's bound is the second
	// signal's doing.
	p.Signal(t, syscall.SIGTERM)
	if code := p.Wait(t, 5*time.Second); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d after a second SIGTERM, want %d; stderr:\n%s", code, 128+int(syscall.SIGTERM), p.Stderr())
	}
	if !strings.Contains(p.Stderr(), "again: exiting at once") {
		t.Errorf("stderr does not explain the exit:\n%s", p.Stderr())
	}
}
