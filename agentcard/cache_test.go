package agentcard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

func TestCardURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"https://agent.example.com", "https://agent.example.com/.well-known/agent-card.json"},
		{"https://agent.example.com/", "https://agent.example.com/.well-known/agent-card.json"},
		{"http://127.0.0.1:8080/agents/echo", "http://127.0.0.1:8080/agents/echo/.well-known/agent-card.json"},
		{"https://agent.example.com/.well-known/agent-card.json", "https://agent.example.com/.well-known/agent-card.json"},
		{" https://agent.example.com#frag ", "https://agent.example.com/.well-known/agent-card.json"},
	}
	for _, tt := range tests {
		if got, err := CardURL(tt.base); err != nil || got != tt.want {
			t.Errorf("CardURL(%q) = %q, %v; want %q", tt.base, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "agent.example.com", "ftp://agent.example.com", "https://", "http://[::1"} {
		if got, err := CardURL(bad); err == nil {
			t.Errorf("CardURL(%q) = %q, want an error", bad, got)
		}
	}
}

// cardServer serves a card with headers chosen by the test and records the
// conditional headers of every request.
type cardServer struct {
	mu       sync.Mutex
	name     string      // the card's name: changing it changes the card
	header   http.Header // response headers of a 200
	requests []string    // "GET", or "If-None-Match=<etag>" / "If-Modified-Since=<date>"
	etagOnly bool        // answer 304 to If-None-Match only
	status   int         // non-zero: answer this status with a short body
}

func (s *cardServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path != runtime.AgentCardPath {
		http.NotFound(w, r)
		return
	}
	desc := "GET"
	inm, ims := r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
	if inm != "" {
		desc = "If-None-Match=" + inm
	} else if ims != "" {
		desc = "If-Modified-Since=" + ims
	}
	s.requests = append(s.requests, desc)
	if s.status != 0 {
		http.Error(w, "card unavailable", s.status)
		return
	}
	for k, v := range s.header {
		w.Header()[k] = v
	}
	etag := `"` + s.name + `"`
	if w.Header().Get("ETag") == "" && !s.etagOnly && s.header.Get("Last-Modified") == "" {
		w.Header().Set("ETag", etag)
	}
	if (inm != "" && inm == w.Header().Get("ETag")) || (ims != "" && ims == w.Header().Get("Last-Modified")) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, _ := runtime.MarshalJSON(&a2av1.AgentCard{Name: s.name, Description: "d", Version: "1"})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *cardServer) set(f func(s *cardServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *cardServer) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := strings.Join(s.requests, " ")
	s.requests = nil
	return out
}

// clock is a settable time source for the cache.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestCache(c *clock) *Cache {
	k := NewCache(nil)
	k.now = c.now
	return k
}

func fetchName(t *testing.T, k *Cache, base string) string {
	t.Helper()
	card, err := k.Fetch(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	return card.GetName()
}

// TestCacheRevalidation walks the cache through freshness, revalidation with
// ETag (304), a changed card (200) and the directives that forbid reuse.
func TestCacheRevalidation(t *testing.T) {
	s := &cardServer{name: "v1", header: http.Header{"Cache-Control": {"public, max-age=60"}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)}
	k := newTestCache(clk)

	steps := []struct {
		name    string
		before  func()
		want    string // card name
		traffic string // requests the server saw
	}{
		{"first fetch", nil, "v1", "GET"},
		{"fresh: no request", func() { clk.advance(59 * time.Second) }, "v1", ""},
		{"stale: revalidated, 304", func() { clk.advance(2 * time.Second) }, "v1", `If-None-Match="v1"`},
		{"fresh again after the 304", func() { clk.advance(30 * time.Second) }, "v1", ""},
		{"changed card: 200 replaces it", func() { clk.advance(31 * time.Second); s.set(func(s *cardServer) { s.name = "v2" }) }, "v2", `If-None-Match="v1"`},
		{"new card fresh", func() { clk.advance(10 * time.Second) }, "v2", ""},
		{"Age shortens freshness", func() {
			clk.advance(61 * time.Second)
			s.set(func(s *cardServer) { s.header = http.Header{"Cache-Control": {"max-age=60"}, "Age": {"50"}} })
		}, "v2", `If-None-Match="v2"`},
		{"stale after 10s", func() { clk.advance(11 * time.Second) }, "v2", `If-None-Match="v2"`},
		{"no-cache: revalidate every time", func() {
			clk.advance(time.Hour)
			s.set(func(s *cardServer) { s.header = http.Header{"Cache-Control": {"no-cache"}} })
		}, "v2", `If-None-Match="v2"`},
		{"no-cache again", nil, "v2", `If-None-Match="v2"`},
		{"no-store: forgotten", func() { s.set(func(s *cardServer) { s.header = http.Header{"Cache-Control": {"no-store"}} }) }, "v2", `If-None-Match="v2"`},
		{"no-store: plain GET", nil, "v2", "GET"},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		if got := fetchName(t, k, srv.URL); got != st.want {
			t.Errorf("%s: card %q, want %q", st.name, got, st.want)
		}
		if got := s.log(); got != st.traffic {
			t.Errorf("%s: server saw %q, want %q", st.name, got, st.traffic)
		}
	}
}

func TestCacheValidatorsAndExpiry(t *testing.T) {
	const lastMod = "Thu, 28 May 2026 09:00:00 GMT"
	tests := []struct {
		name    string
		header  http.Header
		after   time.Duration // time between the two fetches
		traffic string        // requests of the second fetch
	}{
		{"Last-Modified only", http.Header{"Last-Modified": {lastMod}}, 0, "If-Modified-Since=" + lastMod},
		{"Expires relative to Date", http.Header{"Date": {"Thu, 28 May 2026 10:00:00 GMT"}, "Expires": {"Thu, 28 May 2026 10:05:00 GMT"}}, 4 * time.Minute, ""},
		{"Expires passed", http.Header{"Date": {"Thu, 28 May 2026 10:00:00 GMT"}, "Expires": {"Thu, 28 May 2026 10:05:00 GMT"}}, 6 * time.Minute, `If-None-Match="c"`},
		{"invalid Expires is expired", http.Header{"Expires": {"0"}}, 0, `If-None-Match="c"`},
		{"max-age beats Expires", http.Header{"Cache-Control": {`max-age="600"`}, "Expires": {"0"}}, 5 * time.Minute, ""},
		{"no freshness: revalidate", nil, 0, `If-None-Match="c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &cardServer{name: "c", header: tt.header}
			srv := httptest.NewServer(s)
			defer srv.Close()
			clk := &clock{t: time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)}
			k := newTestCache(clk)
			fetchName(t, k, srv.URL)
			s.log()
			clk.advance(tt.after)
			if got := fetchName(t, k, srv.URL); got != "c" {
				t.Errorf("second fetch: card %q", got)
			}
			if got := s.log(); got != tt.traffic {
				t.Errorf("second fetch: server saw %q, want %q", got, tt.traffic)
			}
		})
	}
}

// TestCacheWithRuntimeCardHandler checks the cache against the card handler
// of this module: ETag and max-age as served for real.
func TestCacheWithRuntimeCardHandler(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	h := runtime.NewAgentCardHandler(&a2av1.AgentCard{Name: "Echo", Description: "d", Version: "1"}, runtime.WithCardMaxAge(time.Minute))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		mu.Lock()
		seen = append(seen, rec.Result().Status)
		mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()
	clk := &clock{t: time.Now()}
	k := newTestCache(clk)
	for range 2 {
		fetchName(t, k, srv.URL)
	}
	clk.advance(2 * time.Minute)
	if got := fetchName(t, k, srv.URL); got != "Echo" {
		t.Fatalf("card %q after revalidation", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "200 OK,304 Not Modified"; strings.Join(seen, ",") != want {
		t.Errorf("server answered %v, want %s", seen, want)
	}
}

// TestCardRequestNamesTheVersion: the card request carries the A2A-Version
// this client speaks.
func TestCardRequestNamesTheVersion(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("A2A-Version")
		runtime.NewAgentCardHandler(&a2av1.AgentCard{Name: "Echo", Description: "d", Version: "1"}).ServeHTTP(w, r)
	}))
	defer srv.Close()
	fetchName(t, newTestCache(&clock{t: time.Now()}), srv.URL)
	if v := <-got; v != "1.0" {
		t.Errorf("card request A2A-Version %q, want 1.0", v)
	}
}

func TestCacheErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		mention string
	}{
		{"not found", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no card here", http.StatusNotFound) }, "404 Not Found: no card here"},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }, "is not an A2A agent card"},
		{"empty", func(w http.ResponseWriter, _ *http.Request) {}, "is empty"},
		{"unexpected 304", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotModified) }, "304"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			_, err := NewCache(srv.Client()).Fetch(context.Background(), srv.URL)
			if err == nil || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("Fetch: %v, want an error mentioning %q", err, tt.mention)
			}
		})
	}
}

// TestCacheRevalidationFailureIsAnError: a stale card is not served when the
// agent cannot be reached.
func TestCacheRevalidationFailureIsAnError(t *testing.T) {
	s := &cardServer{name: "c", header: http.Header{"Cache-Control": {"max-age=1"}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	clk := &clock{t: time.Now()}
	k := newTestCache(clk)
	fetchName(t, k, srv.URL)
	s.set(func(s *cardServer) { s.status = http.StatusServiceUnavailable })
	clk.advance(2 * time.Second)
	if _, err := k.Fetch(context.Background(), srv.URL); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Fetch with the agent down: %v, want the 503", err)
	}
}

func TestCacheReturnsCopies(t *testing.T) {
	s := &cardServer{name: "c", header: http.Header{"Cache-Control": {"max-age=60"}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	k := NewCache(nil)
	card, err := k.Fetch(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	card.Name = "mutated"
	if got := fetchName(t, k, srv.URL); got != "c" {
		t.Errorf("cached card changed to %q by the caller", got)
	}
}
