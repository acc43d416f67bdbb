package inspect

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRefusesRequestsWithoutToken: every path of the inspector, the page and
// its assets included, answers only requests carrying the session token,
// naming the listener as Host and not coming from another origin; no answer
// carries a CORS header.
func TestRefusesRequestsWithoutToken(t *testing.T) {
	s := startInspector(t, "")
	base := "http://" + s.Addr().String()
	const token = "test-session-token"
	for _, tc := range []struct {
		name   string
		method string
		path   string
		header map[string]string
		want   int
	}{
		{"page without token", "GET", "/", nil, http.StatusForbidden},
		{"asset without token", "GET", "/assets/app.js", nil, http.StatusForbidden},
		{"API without token", "POST", "/api/call", map[string]string{"Content-Type": "application/json"}, http.StatusForbidden},
		{"events without token", "GET", "/api/events", nil, http.StatusForbidden},
		{"wrong token", "GET", "/?token=" + token + "x", nil, http.StatusForbidden},
		{"token prefix", "GET", "/?token=" + token[:10], nil, http.StatusForbidden},
		{"wrong header token", "GET", "/api/session", map[string]string{TokenHeader: "nope"}, http.StatusForbidden},
		{"rebound host name", "GET", "/?token=" + token, map[string]string{"Host": "attacker.example:" + port(s)}, http.StatusMisdirectedRequest},
		{"other origin", "GET", "/api/session?token=" + token, map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
		{"page with token", "GET", "/?token=" + token, nil, http.StatusOK},
		{"localhost host", "GET", "/?token=" + token, map[string]string{"Host": "localhost:" + port(s)}, http.StatusOK},
		{"API with header token", "GET", "/api/session", map[string]string{TokenHeader: token}, http.StatusOK},
		{"same origin", "GET", "/api/session?token=" + token, map[string]string{"Origin": base}, http.StatusOK},
		{"asset with token", "GET", "/assets/app.js?token=" + token, nil, http.StatusOK},
		{"form post refused", "POST", "/api/card?token=" + token, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, base+tc.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			for k := range resp.Header {
				if strings.HasPrefix(strings.ToLower(k), "access-control-") {
					t.Errorf("answer carries the CORS header %s", k)
				}
			}
			if resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), token) {
				t.Error("a refusal shows the token")
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
		})
	}
}

func port(s *Server) string {
	a := s.Addr().String()
	return a[strings.LastIndex(a, ":")+1:]
}

// TestListensOnLoopbackOnly: an address other than a loopback one is
// refused before anything listens.
func TestListensOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0", "nonsense"} {
		if s, err := New(Options{Addr: addr}); err == nil {
			s.ln.Close()
			s.receiver.close()
			t.Errorf("New(%q) listened", addr)
		}
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.receiver.close()
	defer s.ln.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || len(s.opts.Token) < 20 {
		t.Errorf("URL %q: want 127.0.0.1 and a long random token", s.URL())
	}
	if !strings.HasPrefix(s.ReceiverURL(), "http://127.0.0.1:") {
		t.Errorf("receiver %q: want loopback", s.ReceiverURL())
	}
}
