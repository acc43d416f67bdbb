package main

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	goruntime "runtime"

	"github.com/a2agen/a2agen/host"
)

// hosting adds to the agent what agent.yaml does not describe: GET /version
// on its HTTP address, and an X-Request-Id on every HTTP answer (the agent
// card, both HTTP bindings and /version alike). gRPC server options
// (cfg.GRPCServerOptions) and interceptors of every A2A call on every binding
// (cfg.Interceptors) would go here too.
func hosting(cfg *host.Config) {
	version := cardVersion(cfg.CardJSON)
	cfg.Routes = func(mux *http.ServeMux) {
		mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(versionInfo{Version: version, Go: goruntime.Version()})
		})
	}
	cfg.HTTPMiddleware = append(cfg.HTTPMiddleware, withRequestID)
}

// versionInfo is the answer of GET /version.
type versionInfo struct {
	// Version is the agent's version: the card's, from agent.yaml.
	Version string `json:"version"`
	// Go is the Go release the program was built with.
	Go string `json:"go"`
}

// cardVersion reads the version of an agent card ("" when it has none).
func cardVersion(card []byte) string {
	var c struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(card, &c)
	return c.Version
}

// requestIDHeader names the request id in requests and answers.
const requestIDHeader = "X-Request-Id"

// withRequestID gives every request an id and answers with it in
// X-Request-Id, so that a caller, a proxy and the agent's logs can name the
// same request: the caller's own id when it sent a plausible one (a proxy in
// front may have), else a fresh random one. The id is also set on the
// request, where handlers and interceptors read it
// (runtime.CallInfo.Header).
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(requestIDHeader)
		if !plausibleRequestID(id) {
			id = rand.Text()
			r.Header.Set(requestIDHeader, id)
		}
		w.Header().Set(requestIDHeader, id)
		next.ServeHTTP(w, r)
	})
}

// plausibleRequestID accepts ids of 1 to 128 letters, digits, '-', '_' and
// '.', so that what a caller sends cannot forge log lines or headers.
func plausibleRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}
