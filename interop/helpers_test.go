package interop

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// bindings are the protocolBinding names of the three standard bindings.
var bindings = []string{"JSONRPC", "HTTP+JSON", "GRPC"}

// cardInterface is the part of an agent card the tests need to reach an
// interface. It is decoded with encoding/json on purpose: the SDK's card
// encodes securityRequirements in its own shape, which is the subject of a
// deviation test of its own and must not hide everything else.
type cardInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

// fetchCardJSON returns the agent card document at cardURL.
func fetchCardJSON(t *testing.T, cardURL string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", cardURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", cardURL, resp.StatusCode, err)
	}
	return body
}

// interfaceURL returns the url the card lists for binding.
func interfaceURL(t *testing.T, cardJSON []byte, binding string) string {
	t.Helper()
	var card struct {
		SupportedInterfaces []cardInterface `json:"supportedInterfaces"`
	}
	if err := json.Unmarshal(cardJSON, &card); err != nil {
		t.Fatalf("card: %v", err)
	}
	for _, iface := range card.SupportedInterfaces {
		if iface.ProtocolBinding == binding {
			return iface.URL
		}
	}
	t.Fatalf("card lists no %s interface: %s", binding, cardJSON)
	return ""
}

// httpBase is scheme://host of an HTTP URL.
func httpBase(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		t.Fatalf("%q is not an absolute URL", raw)
	}
	return u.Scheme + "://" + u.Host
}

func newID() string { return rand.Text() }

func userMessage(text string) *a2av1.Message {
	return &a2av1.Message{
		MessageId: newID(),
		Role:      a2av1.Role_ROLE_USER,
		Parts:     []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}},
	}
}

// followUp is a user message continuing task.
func followUp(task *a2av1.Task, text string) *a2av1.Message {
	m := userMessage(text)
	m.TaskId, m.ContextId = task.GetId(), task.GetContextId()
	return m
}

func partsText(parts []*a2av1.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.GetText())
	}
	return b.String()
}

func artifactTexts(t *a2av1.Task) []string {
	out := make([]string, len(t.GetArtifacts()))
	for i, a := range t.GetArtifacts() {
		out[i] = partsText(a.GetParts())
	}
	return out
}

func shortState(s a2av1.TaskState) string { return strings.TrimPrefix(s.String(), "TASK_STATE_") }

// describeEvent renders an event the way sdkpeer does: "task:SUBMITTED",
// "status:WORKING", "artifact:<text>" ("artifact+" when appending, "[last]"
// on the last chunk), "message:<text>".
func describeEvent(ev *a2av1.StreamResponse) string {
	switch {
	case ev.GetTask() != nil:
		return "task:" + shortState(ev.GetTask().GetStatus().GetState())
	case ev.GetStatusUpdate() != nil:
		return "status:" + shortState(ev.GetStatusUpdate().GetStatus().GetState())
	case ev.GetArtifactUpdate() != nil:
		a := ev.GetArtifactUpdate()
		s := "artifact"
		if a.GetAppend() {
			s += "+"
		}
		s += ":" + partsText(a.GetArtifact().GetParts())
		if a.GetLastChunk() {
			s += "[last]"
		}
		return s
	case ev.GetMessage() != nil:
		return "message:" + partsText(ev.GetMessage().GetParts())
	default:
		return "empty"
	}
}

func describeEvents(events []*a2av1.StreamResponse) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = describeEvent(ev)
	}
	return out
}

// collect drains a stream; the error is the one that ended it, if any.
func collect(seq func(func(*a2av1.StreamResponse, error) bool)) ([]*a2av1.StreamResponse, error) {
	var events []*a2av1.StreamResponse
	for ev, err := range seq {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

// wantSequence compares described events with want; a want entry ending in
// "[last]?" matches the artifact with or without lastChunk, which the echo
// contract leaves open for one-chunk artifacts.
func wantSequence(t *testing.T, events []*a2av1.StreamResponse, want ...string) {
	t.Helper()
	if got := describeEvents(events); !slices.EqualFunc(got, want, eventMatches) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func eventMatches(got, want string) bool {
	if base, optional := strings.CutSuffix(want, "[last]?"); optional {
		return got == base || got == base+"[last]"
	}
	return got == want
}

func wantState(t *testing.T, task *a2av1.Task, want a2av1.TaskState) {
	t.Helper()
	if got := task.GetStatus().GetState(); got != want {
		t.Errorf("task %s is %s, want %s", task.GetId(), got, want)
	}
}

func wantArtifacts(t *testing.T, task *a2av1.Task, want ...string) {
	t.Helper()
	if got := artifactTexts(task); !slices.Equal(got, want) {
		t.Errorf("artifacts %q, want %q", got, want)
	}
}

// stepContext bounds one operation of a test.
func stepContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitTerminal polls GetTask until the task is in a terminal state.
func waitTerminal(t *testing.T, c a2av1.A2AServiceClient, id string) *a2av1.Task {
	t.Helper()
	ctx := stepContext(t)
	for {
		task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
		if err != nil {
			t.Fatalf("GetTask %s while waiting for it to end: %v", id, err)
		}
		if store.IsTerminal(task.GetStatus().GetState()) {
			return task
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s still %s: %v", id, task.GetStatus().GetState(), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sendTask sends req and expects a Task back.
func sendTask(t *testing.T, c a2av1.A2AServiceClient, ctx context.Context, req *a2av1.SendMessageRequest) *a2av1.Task {
	t.Helper()
	resp, err := c.SendMessage(ctx, req)
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if resp.GetTask() == nil {
		t.Fatalf("SendMessage answered %v, want a Task", resp)
	}
	return resp.GetTask()
}

func ptr[T any](v T) *T { return &v }
