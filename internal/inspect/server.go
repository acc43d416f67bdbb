package inspect

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/a2agen/a2agen/internal/clitokens"
)

//go:embed assets
var assets embed.FS

// Options configure an inspector.
type Options struct {
	// Addr is the listening address; it must be a loopback address
	// (default 127.0.0.1:0, a free port).
	Addr string
	// AgentURL is the agent the page opens with ("" lets the user type one).
	AgentURL string
	// Token is the session token (default: 26 random base32 characters,
	// 130 bits). Tests set it.
	Token string
	// HTTPTransport is the base transport of the calls to the agent
	// (default: a clone of http.DefaultTransport).
	HTTPTransport *http.Transport
	// Tokens is where `a2a auth login` stored its tokens (default: the
	// a2a CLI's configuration directory, internal/clitokens); an OAuth or
	// OpenID Connect scheme the page gives no token for uses the one stored
	// for the agent.
	Tokens clitokens.Store
}

// Server is a running inspector: the page and its API on one loopback
// listener, and the push receiver on another.
type Server struct {
	opts     Options
	ln       net.Listener
	srv      *http.Server
	hub      *hub
	rec      *recorder
	receiver *receiver
	calls    callCounter

	mu    sync.Mutex
	agent *agentState // nil until a card was fetched
	auth  Auth
	creds *credentials
}

// New listens on opts.Addr (loopback only) and starts the push receiver;
// Serve serves the page.
func New(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if err := checkLoopback(opts.Addr); err != nil {
		return nil, err
	}
	if opts.Token == "" {
		opts.Token = rand.Text()
	}
	if opts.HTTPTransport == nil {
		opts.HTTPTransport = http.DefaultTransport.(*http.Transport).Clone()
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("a2a inspect: listen on %s: %w", opts.Addr, err)
	}
	h := newHub()
	s := &Server{opts: opts, ln: ln, hub: h, rec: &recorder{hub: h, mask: newMasker()}, creds: &credentials{query: map[string]string{}}}
	if s.receiver, err = startReceiver(h); err != nil {
		ln.Close()
		return nil, err
	}
	s.srv = &http.Server{Handler: newGuard(opts.Token, ln.Addr(), s.routes()), ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// checkLoopback refuses an address other than a loopback IP (names other
// than localhost are refused too: they may resolve elsewhere).
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("a2a inspect: address %q: %w (want host:port, e.g. 127.0.0.1:0)", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("a2a inspect: address %q is not a loopback address: the inspector serves this machine only (use 127.0.0.1 or [::1])", addr)
	}
	return nil
}

// URL is the page's address with the session token: what to open.
func (s *Server) URL() string {
	return "http://" + s.ln.Addr().String() + "/?token=" + s.opts.Token
}

// Addr is the listening address of the page.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// ReceiverURL is the base URL of the push receiver.
func (s *Server) ReceiverURL() string { return s.receiver.base }

// Serve serves until ctx ends, then shuts down (streams to the page end).
func (s *Server) Serve(ctx context.Context) error {
	errs := make(chan error, 1)
	go func() { errs <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errs:
		s.receiver.close()
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(shutdown)
	s.receiver.close()
	if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	index := template.Must(template.ParseFS(static, "index.html"))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = index.Execute(w, map[string]string{"Token": s.opts.Token})
	})
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	mux.HandleFunc("GET /api/session", s.handleSession)
	mux.HandleFunc("GET /api/events", s.handleEvents)
	mux.HandleFunc("POST /api/card", s.handleCard)
	mux.HandleFunc("POST /api/checks", s.handleChecks)
	mux.HandleFunc("POST /api/verify", s.handleVerify)
	mux.HandleFunc("POST /api/auth", s.handleAuth)
	mux.HandleFunc("POST /api/call", s.handleCall)
	mux.HandleFunc("POST /api/push", s.handlePushCreate)
	return mux
}

// maxAPIBody bounds what the page may post (files travel inline in
// messages).
const maxAPIBody = 64 << 20

// readJSON decodes the request's JSON body into v; the API takes only
// application/json, which a cross-origin form cannot send without a
// preflight that is never answered.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "the API takes application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAPIBody))
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		writeError(w, http.StatusBadRequest, "request body: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg}})
}

func (s *Server) handleSession(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{"agentUrl": s.opts.AgentURL, "receiverUrl": s.receiver.base}
	if s.agent != nil {
		out["agentUrl"] = s.agent.url
	}
	writeJSON(w, http.StatusOK, out)
}

// handleEvents streams wire entries and push deliveries to the page as
// server-sent events, the recent ones first.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	recent, ch, cancel := s.hub.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(ev Event) bool {
		b, _ := json.Marshal(ev)
		_, err := fmt.Fprintf(w, "data: %s\n\n", b)
		return err == nil
	}
	for _, ev := range recent {
		if !send(ev) {
			return
		}
	}
	flusher.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-ch:
			if !send(ev) {
				return
			}
			flusher.Flush()
		case <-keepAlive.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}
