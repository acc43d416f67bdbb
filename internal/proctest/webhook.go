package proctest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// NotificationIDHeader is the header of a delivery's stable identity
// (push.IDHeader), spelled out here so that the tests check the wire.
const NotificationIDHeader = "X-A2A-Notification-Id"

// Delivery is one request a Webhook received.
type Delivery struct {
	Path   string
	Header http.Header
	// Event is the decoded body (a ProtoJSON StreamResponse); nil when it
	// did not decode (Err says why): a notification to a config registered
	// through A2A v0.3 is a v0.3 Task, which tests decode from Body.
	Event *a2av1.StreamResponse
	Err   error
	// Body is the request's body as received.
	Body []byte
	// Status is what the receiver answered.
	Status int
	// At is when the answer was written.
	At time.Time
}

// ID is the delivery's X-A2A-Notification-Id.
func (d Delivery) ID() string { return d.Header.Get(NotificationIDHeader) }

// Webhook is a push-notification receiver on 127.0.0.1. It answers 200
// unless told to refuse a path with Fail.
type Webhook struct {
	// URL is the receiver's base URL; webhooks are URL + a path.
	URL string

	srv     *httptest.Server
	mu      sync.Mutex
	got     []Delivery
	failing map[string]int // path → status to answer
	started time.Time
}

// NewWebhook starts a receiver, closed when the test ends (after the
// processes started later, which are killed first).
func NewWebhook(t testing.TB) *Webhook {
	w := &Webhook{failing: map[string]int{}, started: time.Now()}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	w.URL = w.srv.URL
	t.Cleanup(w.srv.Close)
	return w
}

func (w *Webhook) serve(rw http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	d := Delivery{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err == nil {
		ev := new(a2av1.StreamResponse)
		if err = runtime.UnmarshalJSON(body, ev); err == nil {
			d.Event = ev
		}
	}
	d.Err = err
	w.mu.Lock()
	defer w.mu.Unlock()
	d.Status = http.StatusOK
	if s, ok := w.failing[d.Path]; ok {
		d.Status = s
	}
	rw.WriteHeader(d.Status)
	d.At = time.Now()
	w.got = append(w.got, d)
}

// Fail makes the receiver answer status (e.g. 503) to requests for path;
// status 0 makes it answer 200 again.
func (w *Webhook) Fail(path string, status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if status == 0 {
		delete(w.failing, path)
	} else {
		w.failing[path] = status
	}
}

// Deliveries returns the requests for path received so far, in order.
func (w *Webhook) Deliveries(path string) []Delivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Delivery
	for _, d := range w.got {
		if d.Path == path {
			out = append(out, d)
		}
	}
	return out
}

// All returns every request received so far, in order.
func (w *Webhook) All() []Delivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Delivery(nil), w.got...)
}

// Idle is how long ago the receiver last answered (since it started, when
// it has received nothing).
func (w *Webhook) Idle() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.got) == 0 {
		return time.Since(w.started)
	}
	return time.Since(w.got[len(w.got)-1].At)
}

// Wait polls the requests for path until cond holds, at most d; it fails
// the test with what was received otherwise.
func (w *Webhook) Wait(t testing.TB, path string, d time.Duration, what string, cond func([]Delivery) bool) []Delivery {
	t.Helper()
	var got []Delivery
	if !Poll(d, func() bool {
		got = w.Deliveries(path)
		return cond(got)
	}) {
		t.Fatalf("webhook %s: no %s within %v; received:\n%s", path, what, d, Render(got))
	}
	return got
}

// Render lists deliveries one a line, for failure messages.
func Render(ds []Delivery) string {
	s := ""
	for _, d := range ds {
		ev := "undecodable: " + errString(d.Err)
		if d.Event != nil {
			ev = Describe(d.Event)
		}
		s += "  " + d.At.Format("15:04:05.000") + " " + d.Path + " " + d.ID() + " → " + http.StatusText(d.Status) + ": " + ev + "\n"
	}
	if s == "" {
		return "  (nothing)\n"
	}
	return s
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
