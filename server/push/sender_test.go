package push

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// receiver is a webhook on loopback that records what it gets and answers
// with the status its respond function picks.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []received
	arrived chan received
	respond func(n int) int // n: 1-based request number
	block   chan struct{}   // when not nil, requests wait for it to close
}

type received struct {
	path   string
	header http.Header
	event  *a2av1.StreamResponse
	raw    string
}

func newReceiver(t *testing.T, respond func(n int) int) *receiver {
	r := &receiver{arrived: make(chan received, 1000), respond: respond}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		ev := new(a2av1.StreamResponse)
		_ = runtime.UnmarshalJSON(body, ev)
		rec := received{path: req.URL.Path, header: req.Header.Clone(), event: ev, raw: string(body)}
		r.mu.Lock()
		r.got = append(r.got, rec)
		n := len(r.got)
		block := r.block
		r.mu.Unlock()
		r.arrived <- rec
		if block != nil {
			select {
			case <-block:
			case <-req.Context().Done():
			}
		}
		status := http.StatusOK
		if r.respond != nil {
			status = r.respond(n)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func (r *receiver) wait(t *testing.T) received {
	t.Helper()
	select {
	case rec := <-r.arrived:
		return rec
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the receiver within 10s")
		return received{}
	}
}

// failures collects what the failure hook reports.
type failures struct {
	mu  sync.Mutex
	got []Failure
	ch  chan Failure
}

func newFailures() *failures { return &failures{ch: make(chan Failure, 1000)} }

func (f *failures) hook(fl Failure) {
	f.mu.Lock()
	f.got = append(f.got, fl)
	f.mu.Unlock()
	f.ch <- fl
}

func (f *failures) wait(t *testing.T) Failure {
	t.Helper()
	select {
	case fl := <-f.ch:
		return fl
	case <-time.After(10 * time.Second):
		t.Fatal("the failure hook was not called within 10s")
		return Failure{}
	}
}

// outbox is a memory store's outbox with helpers that queue notifications
// the way the server does: a task write carrying events, for the configs of
// the task. It records the backoff of every retry and makes the retry due at
// once, so tests never sleep.
type outbox struct {
	*store.Memory
	mu       sync.Mutex
	versions map[string]int64 // tenant/task → version
	waits    []time.Duration
	attempts []int
}

// clock is the sender's fixed time in tests: after everything the store
// queues (at the real time), so every delivery is due.
var clock = time.Now().Add(time.Hour)

func newOutbox() *outbox { return &outbox{Memory: store.NewMemory(), versions: map[string]int64{}} }

func (o *outbox) RetryDelivery(ctx context.Context, id string, attempts int, at time.Time) error {
	o.mu.Lock()
	o.waits = append(o.waits, at.Sub(clock))
	o.attempts = append(o.attempts, attempts)
	o.mu.Unlock()
	return o.Memory.RetryDelivery(ctx, id, attempts, time.Time{})
}

func (o *outbox) retries() ([]time.Duration, []int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.waits), slices.Clone(o.attempts)
}

// send queues events for cfg (creating its task and storing cfg first when
// needed) in one write of the task.
func (o *outbox) send(t *testing.T, tenant string, cfg *a2av1.TaskPushNotificationConfig, events ...*a2av1.StreamResponse) {
	t.Helper()
	ctx := context.Background()
	key := tenant + "/" + cfg.GetTaskId()
	o.mu.Lock()
	v, ok := o.versions[key]
	o.mu.Unlock()
	task := &a2av1.Task{Id: cfg.GetTaskId(), ContextId: "ctx-1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.Now()}}
	if !ok {
		rec, _, err := o.CreateTask(ctx, store.Creation{Record: store.Record{Tenant: tenant, Task: task}})
		if err != nil {
			t.Fatalf("CreateTask: %v", err)
		}
		v = rec.Version
	}
	if _, err := o.PushConfig(ctx, tenant, cfg.GetTaskId(), cfg.GetId()); err != nil {
		if err := o.SavePushConfig(ctx, tenant, store.PushConfig{TaskPushNotificationConfig: cfg}); err != nil {
			t.Fatalf("SavePushConfig: %v", err)
		}
	}
	v, err := o.UpdateTask(ctx, store.Update{Tenant: tenant, Task: task, Expect: v, Events: events})
	if err != nil {
		t.Fatalf("UpdateTask: %v", err)
	}
	o.mu.Lock()
	o.versions[key] = v
	o.mu.Unlock()
}

// newSender returns a sender delivering from a new outbox, closed when the
// test ends.
func newSender(t *testing.T, opts ...Option) (*Sender, *outbox) {
	s := NewSender(opts...)
	s.now = func() time.Time { return clock }
	o := newOutbox()
	if err := s.Start(o); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s, o
}

func cfgFor(r *receiver, id string) *a2av1.TaskPushNotificationConfig {
	return &a2av1.TaskPushNotificationConfig{TaskId: "task-1", Id: id, Url: r.URL + "/hook/" + id}
}

func statusEvent() *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: "task-1", ContextId: "ctx-1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING},
	}}}
}

func numbered(i int) *a2av1.StreamResponse {
	return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
		TaskId: "task-1", ContextId: "ctx-1",
		Artifact: &a2av1.Artifact{ArtifactId: "a", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: fmt.Sprint(i)}}}},
	}}}
}

func TestDeliveryRequest(t *testing.T) {
	r := newReceiver(t, nil)
	_, q := newSender(t, AllowPrivateNetworks())
	cfg := cfgFor(r, "p1")
	cfg.Token = "tok-123"
	cfg.Authentication = &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "secret"}
	ev := statusEvent()
	q.send(t, "t", cfg, ev)
	got := r.wait(t)
	for h, want := range map[string]string{
		"Content-Type":             "application/a2a+json",
		"Authorization":            "Bearer secret",
		"X-A2A-Notification-Token": "tok-123",
		"A2A-Notification-Token":   "tok-123",
	} {
		if v := got.header.Get(h); v != want {
			t.Errorf("header %s = %q, want %q", h, v, want)
		}
	}
	if !proto.Equal(got.event, ev) {
		t.Errorf("body %s does not decode to the event sent", got.raw)
	}
	if !strings.Contains(got.raw, `"statusUpdate"`) || !strings.Contains(got.raw, `"taskId":"task-1"`) {
		t.Errorf("body %s is not a camelCase StreamResponse", got.raw)
	}
}

func TestNoAuthorizationWithoutCredentials(t *testing.T) {
	r := newReceiver(t, nil)
	_, q := newSender(t, AllowPrivateNetworks())
	cfg := cfgFor(r, "p1")
	cfg.Authentication = &a2av1.AuthenticationInfo{Scheme: "Bearer"}
	q.send(t, "", cfg, statusEvent())
	got := r.wait(t)
	for _, h := range []string{"Authorization", TokenHeader, AltTokenHeader} {
		if v := got.header.Get(h); v != "" {
			t.Errorf("header %s = %q, want none", h, v)
		}
	}
}

func TestPerConfigOrdering(t *testing.T) {
	r := newReceiver(t, nil)
	_, q := newSender(t, AllowPrivateNetworks())
	const n = 100
	a, b := cfgFor(r, "a"), cfgFor(r, "b")
	b.TaskId = "task-2" // a write queues an event for every config of its task
	for i := range n {
		q.send(t, "", a, numbered(i))
		q.send(t, "", b, numbered(i))
	}
	perConfig := map[string][]string{}
	for range 2 * n {
		got := r.wait(t)
		perConfig[got.path] = append(perConfig[got.path], got.event.GetArtifactUpdate().GetArtifact().GetParts()[0].GetText())
	}
	for path, texts := range perConfig {
		for i, text := range texts {
			if text != fmt.Sprint(i) {
				t.Fatalf("events for %s arrived out of order: %v", path, texts)
			}
		}
	}
	if len(perConfig) != 2 {
		t.Fatalf("requests went to %d webhooks, want 2", len(perConfig))
	}
}

func TestRetryWithBackoffThenSuccess(t *testing.T) {
	r := newReceiver(t, func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	fl := newFailures()
	s, q := newSender(t, AllowPrivateNetworks(), WithBackoff(100*time.Millisecond, time.Second), OnFailure(fl.hook))
	q.send(t, "", cfgFor(r, "p"), statusEvent())
	for range 3 {
		r.wait(t)
	}
	closeSender(t, s)
	if len(fl.got) != 0 {
		t.Fatalf("failure hook called: %+v", fl.got)
	}
	waits, attempts := q.retries()
	if len(waits) != 2 || !slices.Equal(attempts, []int{1, 2}) {
		t.Fatalf("retries scheduled: waits %v, attempts %v; want 2 (between 3 attempts) recording 1 and 2 attempts", waits, attempts)
	}
	checkWait(t, waits[0], 100*time.Millisecond)
	checkWait(t, waits[1], 200*time.Millisecond)
	if n := q.Stats().PendingDeliveries; n != 0 {
		t.Fatalf("%d deliveries left in the outbox after success, want 0", n)
	}
}

// checkWait checks a jittered wait for the given step: in [step/2, step].
func checkWait(t *testing.T, d, step time.Duration) {
	t.Helper()
	if d < step/2 || d > step {
		t.Errorf("wait %v is outside [%v, %v]", d, step/2, step)
	}
}

func closeSender(t *testing.T, s *Sender) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestGiveUpAfterMaxAttempts(t *testing.T) {
	r := newReceiver(t, func(int) int { return http.StatusInternalServerError })
	fl := newFailures()
	s, q := newSender(t, AllowPrivateNetworks(), WithMaxAttempts(5), WithBackoff(100*time.Millisecond, 300*time.Millisecond), OnFailure(fl.hook))
	cfg := cfgFor(r, "p")
	q.send(t, "ten", cfg, statusEvent())
	f := fl.wait(t)
	var se *StatusError
	if f.Attempts != 5 || !errors.As(f.Err, &se) || se.StatusCode != 500 || f.Tenant != "ten" || f.Config.GetUrl() != cfg.GetUrl() || f.ID == "" {
		t.Fatalf("failure = %+v, want 5 attempts ending in a 500 StatusError for the config sent", f)
	}
	if r.count() != 5 {
		t.Fatalf("receiver got %d requests, want 5", r.count())
	}
	closeSender(t, s)
	waits, _ := q.retries()
	if len(waits) != 4 {
		t.Fatalf("%d retries scheduled, want 4", len(waits))
	}
	for i, step := range []time.Duration{100, 200, 300, 300} { // doubling, capped
		checkWait(t, waits[i], step*time.Millisecond)
	}
	if n := q.Stats().PendingDeliveries; n != 0 {
		t.Fatalf("%d deliveries left in the outbox after giving up, want 0", n)
	}
}

func TestPermanentFailuresAreNotRetried(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusTemporaryRedirect} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			target := newReceiver(t, nil)
			r := newReceiver(t, func(int) int { return status })
			if status == http.StatusTemporaryRedirect {
				r.Config.Handler = http.RedirectHandler(target.URL, status)
			}
			fl := newFailures()
			_, q := newSender(t, AllowPrivateNetworks(), OnFailure(fl.hook))
			q.send(t, "", cfgFor(r, "p"), statusEvent())
			f := fl.wait(t)
			var se *StatusError
			if f.Attempts != 1 || !errors.As(f.Err, &se) || se.StatusCode != status {
				t.Fatalf("failure = %+v, want one attempt and StatusError %d", f, status)
			}
			if target.count() != 0 {
				t.Fatal("the redirect was followed")
			}
		})
	}
}

func TestRetryableStatuses(t *testing.T) {
	for status, want := range map[int]bool{408: true, 425: true, 429: true, 500: true, 502: true, 503: true, 400: false, 403: false, 404: false, 410: false, 301: false} {
		if got := retryable(&StatusError{StatusCode: status}); got != want {
			t.Errorf("retryable(%d) = %v, want %v", status, got, want)
		}
	}
	if !retryable(errors.New("connection reset")) {
		t.Error("a transport error is not retried")
	}
	if retryable(fmt.Errorf("dial: %w", ErrBlockedAddress)) {
		t.Error("a blocked address is retried")
	}
}

func TestAttemptTimeout(t *testing.T) {
	r := newReceiver(t, nil)
	r.block = make(chan struct{})
	defer close(r.block)
	fl := newFailures()
	_, q := newSender(t, AllowPrivateNetworks(), WithTimeout(50*time.Millisecond), WithMaxAttempts(1), OnFailure(fl.hook))
	q.send(t, "", cfgFor(r, "p"), statusEvent())
	f := fl.wait(t)
	if !errors.Is(f.Err, context.DeadlineExceeded) {
		t.Fatalf("failure error = %v, want a deadline error", f.Err)
	}
}

// TestSlowReceiverDelaysOnlyItsConfig: while one receiver holds a request,
// the other config's deliveries go on, and the held config's next delivery
// waits for the first (per-config order).
func TestSlowReceiverDelaysOnlyItsConfig(t *testing.T) {
	slow, fast := newReceiver(t, nil), newReceiver(t, nil)
	slow.block = make(chan struct{})
	_, q := newSender(t, AllowPrivateNetworks())
	q.send(t, "", cfgFor(slow, "slow"), numbered(0))
	slow.wait(t) // held
	q.send(t, "", cfgFor(slow, "slow"), numbered(1))
	for i := range 5 {
		q.send(t, "", &a2av1.TaskPushNotificationConfig{TaskId: "task-2", Id: "fast", Url: fast.URL + "/hook"}, numbered(i))
		if got := fast.wait(t); got.event.GetArtifactUpdate().GetArtifact().GetParts()[0].GetText() != fmt.Sprint(i) {
			t.Fatalf("fast receiver got %s, want event %d", got.raw, i)
		}
	}
	if slow.count() != 1 {
		t.Fatalf("slow receiver got %d requests while holding the first, want 1", slow.count())
	}
	close(slow.block)
	if got := slow.wait(t); got.event.GetArtifactUpdate().GetArtifact().GetParts()[0].GetText() != "1" {
		t.Fatalf("slow receiver's second request %s, want event 1", got.raw)
	}
}

// TestNotificationID: every attempt of a delivery carries the same id, the
// one the outbox gave it.
func TestNotificationID(t *testing.T) {
	r := newReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	_, q := newSender(t, AllowPrivateNetworks(), WithBackoff(time.Millisecond, time.Millisecond))
	q.send(t, "", cfgFor(r, "p"), statusEvent())
	a, b := r.wait(t), r.wait(t)
	id := a.header.Get(IDHeader)
	if id == "" || b.header.Get(IDHeader) != id || !strings.HasPrefix(id, "task-1/") || !strings.HasSuffix(id, "/p") {
		t.Fatalf("notification ids %q and %q, want one store.DeliveryID (task-1/…/p) on both attempts", id, b.header.Get(IDHeader))
	}
}

// TestRetriesSurviveARestart: the attempt count lives in the outbox, so a
// new sender (a restarted agent) continues where the old one stopped and
// gives up after the total number of attempts.
func TestRetriesSurviveARestart(t *testing.T) {
	r := newReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	fl := newFailures()
	first := NewSender(AllowPrivateNetworks(), WithMaxAttempts(3), OnFailure(fl.hook))
	first.now = func() time.Time { return clock }
	q := newOutbox()
	q.send(t, "", cfgFor(r, "p"), statusEvent())
	// Let the first sender make exactly one attempt: retries it schedules
	// are due an hour after its clock.
	first.now = func() time.Time { return clock }
	stopAfterOne := &retryLater{outbox: q}
	if err := first.Start(stopAfterOne); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	closeSender(t, first)
	if len(fl.got) != 0 {
		t.Fatalf("the first sender gave up: %+v", fl.got)
	}
	second := NewSender(AllowPrivateNetworks(), WithMaxAttempts(3), OnFailure(fl.hook))
	second.now = func() time.Time { return clock.Add(2 * time.Hour) }
	if err := second.Start(q); err != nil {
		t.Fatal(err)
	}
	defer closeSender(t, second)
	f := fl.wait(t)
	if f.Attempts != 3 || r.count() != 3 {
		t.Fatalf("after the restart: gave up after %d attempts, %d requests; want 3 in total", f.Attempts, r.count())
	}
}

// retryLater schedules retries an hour later than asked.
type retryLater struct{ *outbox }

func (o *retryLater) RetryDelivery(ctx context.Context, id string, attempts int, at time.Time) error {
	return o.Memory.RetryDelivery(ctx, id, attempts, at.Add(time.Hour))
}

func TestSSRFGuardAtDialTime(t *testing.T) {
	r := newReceiver(t, nil)
	port := r.URL[strings.LastIndex(r.URL, ":")+1:]
	for _, url := range []string{
		r.URL,                      // 127.0.0.1 literal
		"http://localhost:" + port, // a name resolved to loopback when dialled
		"http://[::ffff:127.0.0.1]:" + port,
	} {
		t.Run(url, func(t *testing.T) {
			fl := newFailures()
			_, q := newSender(t, OnFailure(fl.hook))
			q.send(t, "", &a2av1.TaskPushNotificationConfig{TaskId: "t", Id: "p", Url: url}, statusEvent())
			f := fl.wait(t)
			if !errors.Is(f.Err, ErrBlockedAddress) || f.Attempts != 1 {
				t.Fatalf("failure = %+v, want ErrBlockedAddress after one attempt", f)
			}
		})
	}
	if r.count() != 0 {
		t.Fatalf("the guard let %d requests through", r.count())
	}
}

func TestCheckURL(t *testing.T) {
	guarded, open := NewSender(), NewSender(AllowPrivateNetworks())
	defer guarded.Close(context.Background())
	defer open.Close(context.Background())
	tests := []struct {
		url           string
		guarded, open bool // accepted?
	}{
		{"https://hooks.example.com/a2a", true, true},
		{"http://hooks.example.com:8080/x?y=1", true, true},
		{"ftp://hooks.example.com/", false, false},
		{"/relative", false, false},
		{"https://user:pw@hooks.example.com/", false, false},
		{"http://127.0.0.1:9/", false, true},
		{"http://localhost/", false, true},
		{"http://LOCALHOST./", false, true},
		{"http://[::1]/", false, true},
		{"http://192.168.0.10/", false, true},
		{"http://169.254.169.254/latest/meta-data", false, true},
		{"://bad", false, false},
	}
	for _, tc := range tests {
		if err := guarded.CheckURL(tc.url); (err == nil) != tc.guarded {
			t.Errorf("guarded CheckURL(%q) = %v, want accepted=%v", tc.url, err, tc.guarded)
		}
		if err := open.CheckURL(tc.url); (err == nil) != tc.open {
			t.Errorf("open CheckURL(%q) = %v, want accepted=%v", tc.url, err, tc.open)
		}
	}
}

// TestDeletedConfig: events written while a config existed are still
// delivered after it is deleted; later ones are not.
func TestDeletedConfig(t *testing.T) {
	r := newReceiver(t, nil)
	r.block = make(chan struct{})
	fl := newFailures()
	s, q := newSender(t, AllowPrivateNetworks(), OnFailure(fl.hook))
	cfg := cfgFor(r, "p")
	q.send(t, "t", cfg, numbered(0))
	r.wait(t)
	q.send(t, "t", cfg, numbered(1))
	if err := q.DeletePushConfig(context.Background(), "t", cfg.TaskId, cfg.Id); err != nil {
		t.Fatal(err)
	}
	close(r.block)
	r.wait(t)
	// A write after the delete queues nothing for the config.
	task := &a2av1.Task{Id: cfg.GetTaskId(), ContextId: "ctx-1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.Now()}}
	q.mu.Lock()
	v := q.versions["t/"+cfg.GetTaskId()]
	q.mu.Unlock()
	if _, err := q.UpdateTask(context.Background(), store.Update{Tenant: "t", Task: task, Expect: v, Events: []*a2av1.StreamResponse{numbered(2)}}); err != nil {
		t.Fatal(err)
	}
	closeSender(t, s)
	if r.count() != 2 || len(fl.got) != 0 || q.Stats().PendingDeliveries != 0 {
		t.Fatalf("after the delete: %d requests, failures %+v, %d pending; want the 2 events written before it, no failures, none pending",
			r.count(), fl.got, q.Stats().PendingDeliveries)
	}
}

func TestCloseLeavesUndeliveredInTheOutbox(t *testing.T) {
	r := newReceiver(t, nil)
	r.block = make(chan struct{})
	defer close(r.block)
	fl := newFailures()
	s := NewSender(AllowPrivateNetworks(), OnFailure(fl.hook))
	s.now = func() time.Time { return clock }
	q := newOutbox()
	if err := s.Start(q); err != nil {
		t.Fatal(err)
	}
	cfg := cfgFor(r, "p")
	q.send(t, "", cfg, numbered(0))
	r.wait(t)
	q.send(t, "", cfg, numbered(1))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want the context's error", err)
	}
	if len(fl.got) != 0 {
		t.Fatalf("failures %+v, want none: undelivered notifications are not given up", fl.got)
	}
	if n := q.Stats().PendingDeliveries; n != 2 {
		t.Fatalf("%d deliveries in the outbox after Close, want both (the cut attempt and the queued one)", n)
	}
	if err := s.Start(q); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed", err)
	}
}
