package interop

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recordingProxy sits between the SDK client and an HTTP server under test
// and records each request as it was on the wire, so that a deviation test
// can show both what the SDK sent and that the server took it. The agent
// card passes through with the server's address replaced by the proxy's, so
// a client built from the card talks through the proxy. gRPC is not proxied.
type recordingProxy struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []recordedRequest
}

// recordedRequest is one request as the proxy received it.
type recordedRequest struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
	Status   int
	RespType string
}

func newRecordingProxy(t *testing.T, target string) *recordingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("proxy target %q: %v", target, err)
	}
	p := &recordingProxy{}
	var self string // the proxy's host:port, set before it serves
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // pass SSE events through as they come
	rp.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.URL.Path, "/agent-card.json") {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		body = bytes.ReplaceAll(body, []byte(u.Host), []byte(self))
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		resp.Header.Del("ETag")
		return nil
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(rec, r)
		p.mu.Lock()
		p.log = append(p.log, recordedRequest{
			Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
			Header: r.Header.Clone(), Body: body,
			Status: rec.status, RespType: rec.Header().Get("Content-Type"),
		})
		p.mu.Unlock()
	}))
	self = p.srv.Listener.Addr().String()
	p.srv.Start()
	t.Cleanup(p.srv.Close)
	return p
}

// url maps a URL of the proxied server to the same URL through the proxy.
func (p *recordingProxy) url(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return serverURL
	}
	u.Host = p.srv.Listener.Addr().String()
	return u.String()
}

// find returns the recorded requests for which match is true.
func (p *recordingProxy) find(match func(recordedRequest) bool) []recordedRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []recordedRequest
	for _, r := range p.log {
		if match(r) {
			out = append(out, r)
		}
	}
	return out
}

// statusRecorder remembers the status code and keeps http.Flusher working
// for the proxied event streams.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
