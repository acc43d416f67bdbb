package runtime

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAgentCardJSONHandlerServesTheBytes(t *testing.T) {
	// Member order, indentation and a trailing newline are kept: a
	// re-encoding card handler would lose all three.
	doc := []byte("{\n  \"name\": \"x\",\n  \"capabilities\": {\n    \"streaming\": false\n  }\n}\n")
	given := bytes.Clone(doc)
	url := newCardServer(t, NewAgentCardJSONHandler(given, WithCardMaxAge(time.Minute)))
	given[0] = '[' // the handler keeps its own copy

	got := doCardRequest(t, url, http.MethodGet, nil)
	if got.status != http.StatusOK || !bytes.Equal(got.body, doc) {
		t.Fatalf("GET: %d %q, want 200 %q", got.status, got.body, doc)
	}
	for k, want := range map[string]string{
		"Content-Type":                "application/json",
		"ETag":                        cardETag(doc),
		"Cache-Control":               "public, max-age=60",
		"Access-Control-Allow-Origin": "*",
	} {
		if v := got.header.Get(k); v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
	if r := doCardRequest(t, url, http.MethodGet, http.Header{"If-None-Match": {cardETag(doc)}}); r.status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", r.status)
	}
	if r := doCardRequest(t, url, http.MethodOptions, nil); r.status != http.StatusNoContent {
		t.Errorf("OPTIONS: %d, want 204", r.status)
	}
	if r := doCardRequest(t, url, http.MethodPost, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", r.status)
	}
}

func TestAgentCardJSONHandlerRefusesNonJSON(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	url := newCardServer(t, NewAgentCardJSONHandler([]byte(`{"name":`), WithCardLogger(logger)))
	if r := doCardRequest(t, url, http.MethodGet, nil); r.status != http.StatusInternalServerError {
		t.Errorf("GET: %d, want 500", r.status)
	}
	if !strings.Contains(logs.String(), "not a JSON document") {
		t.Errorf("log %q does not say why", logs.String())
	}
}
