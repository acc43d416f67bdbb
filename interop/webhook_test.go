package interop

import (
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

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// webhook is a push notification receiver on loopback that records every
// delivery, decoded with a2agen's codec: a v1.0 StreamResponse, or else a
// bare v0.3 event (a Task, Message, status-update or artifact-update, told
// apart by kind), read through compat/a2av03 (form says which).
type webhook struct {
	srv   *httptest.Server
	mu    sync.Mutex
	posts []pushPost
}

// pushPost is one delivery as the receiver saw it.
type pushPost struct {
	header http.Header
	body   []byte
	event  *a2av1.StreamResponse
	form   string // "1.0" (a StreamResponse) or "0.3" (a bare v0.3 event)
	err    error  // decoding error, if the body was neither
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		ev, form := &a2av1.StreamResponse{}, "1.0"
		err := runtime.UnmarshalJSON(body, ev)
		if err == nil && ev.GetPayload() == nil {
			err = errors.New("not a StreamResponse: no payload member")
		}
		if err != nil {
			if v03, v03err := a2av03.EventToV1(body, "push"); v03err == nil {
				ev, form, err = v03, "0.3", nil
			}
		}
		w.mu.Lock()
		w.posts = append(w.posts, pushPost{header: r.Header.Clone(), body: body, event: ev, form: form, err: err})
		w.mu.Unlock()
		rw.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *webhook) url() string { return w.srv.URL + "/push" }

// forTask returns the deliveries whose event belongs to taskID.
func (w *webhook) forTask(taskID string) []pushPost {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []pushPost
	for _, p := range w.posts {
		if p.err == nil && eventTaskID(p.event) == taskID {
			out = append(out, p)
		}
	}
	return out
}

// waitTerminal waits (bounded) until a delivery for taskID carries a
// terminal state and returns all deliveries for that task.
func (w *webhook) waitTerminal(t *testing.T, taskID string) []pushPost {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		posts := w.forTask(taskID)
		if slices.ContainsFunc(posts, func(p pushPost) bool { return store.IsTerminal(eventState(p.event)) }) {
			return posts
		}
		if time.Now().After(deadline) {
			t.Fatalf("no push delivery with a terminal state for task %s within 15s; got %d deliveries: %v%s", taskID, len(posts), describePosts(posts), w.undecoded())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// undecoded describes the deliveries that were neither form, for failure
// messages.
func (w *webhook) undecoded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, p := range w.posts {
		if p.err != nil {
			fmt.Fprintf(&b, "\n  undecoded delivery (%v): %.300s", p.err, p.body)
		}
	}
	return b.String()
}

func describePosts(posts []pushPost) []string {
	out := make([]string, len(posts))
	for i, p := range posts {
		out[i] = describeEvent(p.event)
	}
	return out
}

// eventTaskID is the task an event belongs to ("" for a direct Message without a task).
func eventTaskID(ev *a2av1.StreamResponse) string {
	switch {
	case ev.GetTask() != nil:
		return ev.GetTask().GetId()
	case ev.GetStatusUpdate() != nil:
		return ev.GetStatusUpdate().GetTaskId()
	case ev.GetArtifactUpdate() != nil:
		return ev.GetArtifactUpdate().GetTaskId()
	default:
		return ev.GetMessage().GetTaskId()
	}
}

// eventState is the task state an event carries, UNSPECIFIED for artifacts and messages.
func eventState(ev *a2av1.StreamResponse) a2av1.TaskState {
	switch {
	case ev.GetTask() != nil:
		return ev.GetTask().GetStatus().GetState()
	case ev.GetStatusUpdate() != nil:
		return ev.GetStatusUpdate().GetStatus().GetState()
	default:
		return a2av1.TaskState_TASK_STATE_UNSPECIFIED
	}
}
