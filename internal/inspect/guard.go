package inspect

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// TokenHeader is the header the page sends the session token in; the
// token=… query parameter works too (the first page load, EventSource).
const TokenHeader = "X-A2A-Inspect-Token"

// guard refuses every request that does not carry the session token or that
// names another host than the listener (DNS rebinding: a page of another
// site whose name now resolves to 127.0.0.1 sends its own name as Host),
// and sets the headers that keep the page to itself: no caching, no
// referrer (the URL carries the token), no framing, scripts and
// connections only to this origin. It never sets a CORS header, so other
// origins cannot read any answer.
type guard struct {
	token string
	hosts map[string]bool // Host values accepted: 127.0.0.1:PORT, localhost:PORT, [::1]:PORT
	next  http.Handler
}

func newGuard(token string, addr net.Addr, next http.Handler) *guard {
	_, port, _ := net.SplitHostPort(addr.String())
	hosts := map[string]bool{}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		hosts[h+":"+port] = true
	}
	return &guard{token: token, hosts: hosts, next: next}
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	if !g.hosts[strings.ToLower(r.Host)] {
		http.Error(w, "a2a inspect: this Host is not the inspector's address (open the URL it printed)", http.StatusMisdirectedRequest)
		return
	}
	if !g.hasToken(r) {
		http.Error(w, "a2a inspect: missing or wrong session token (open the URL the inspector printed, with its token)", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.hosts[strings.ToLower(strings.TrimPrefix(origin, "http://"))] {
		http.Error(w, "a2a inspect: requests from other origins are refused", http.StatusForbidden)
		return
	}
	g.next.ServeHTTP(w, r)
}

// hasToken compares the request's token with the session's in constant time.
func (g *guard) hasToken(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	if got == "" {
		got = r.URL.Query().Get("token")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(g.token)) == 1
}
