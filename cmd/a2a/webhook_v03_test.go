package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWebhookListenReadsV03Deliveries: webhook listen takes what an agent
// posts to a webhook registered through A2A v0.3 — the Task in its v0.3
// shape, as application/json — and shows it like the v1.0 task event; a
// body that is neither form is answered 400 and reported.
func TestWebhookListenReadsV03Deliveries(t *testing.T) {
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		done <- run(ctx, []string{"webhook", "listen", "127.0.0.1:0", "--count", "1", "-o", "json"},
			environment{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
	}()
	hook := waitForListen(t, &stderr)
	post := func(body string) int {
		t.Helper()
		resp, err := http.Post(hook+"/v03", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(`{"something":"else"}`); code != http.StatusBadRequest {
		t.Errorf("a body that is no A2A event was answered %d, want 400", code)
	}
	v03Task := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed","timestamp":"2026-01-02T03:04:05Z"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"forty-two"}]}]}`
	if code := post(v03Task); code != http.StatusOK {
		t.Fatalf("the v0.3 Task was answered %d, want 200; stderr:\n%s", code, stderr.String())
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("webhook listen: exit %d\n%s", code, stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("webhook listen did not end after one delivery; got %q", stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{`"task"`, `"id":"t1"`, `"TASK_STATE_COMPLETED"`, `"forty-two"`} {
		if !strings.Contains(strings.ReplaceAll(out, " ", ""), want) {
			t.Errorf("webhook listen -o json printed %s; want the task as a v1.0 StreamResponse (%s)", out, want)
		}
	}
	if !strings.Contains(stderr.String(), "not an A2A event") {
		t.Errorf("the refused body was not reported: %q", stderr.String())
	}
}
