package inspect

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// WireEntry is one thing that went over the wire: a request, its response,
// one stream event, or the failure of a call. Credentials are masked.
type WireEntry struct {
	ID        int64               `json:"id"`
	Call      int64               `json:"call"` // the inspector call it belongs to (0: a card or JWKS fetch)
	Time      time.Time           `json:"time"`
	Binding   string              `json:"binding"`   // JSONRPC, HTTP+JSON, GRPC, or HTTP for card and JWKS fetches
	Direction string              `json:"direction"` // request, response, event, error
	Operation string              `json:"operation,omitempty"`
	Method    string              `json:"method,omitempty"` // HTTP method, or the gRPC full method name
	URL       string              `json:"url,omitempty"`
	Status    string              `json:"status,omitempty"`
	Header    map[string][]string `json:"header,omitempty"`
	Body      string              `json:"body,omitempty"`
	Note      string              `json:"note,omitempty"`
	Curl      string              `json:"curl,omitempty"` // requests of the HTTP bindings
	CLI       string              `json:"cli,omitempty"`  // the a2a command doing the same, where there is one
}

// callTag travels in the context of a call so that what the transports
// record is attributed to it.
type callTag struct {
	id        int64
	binding   string
	operation string
	cli       string
}

type callTagKey struct{}

func withCallTag(ctx context.Context, t *callTag) context.Context {
	return context.WithValue(ctx, callTagKey{}, t)
}

func callTagFrom(ctx context.Context) *callTag {
	t, _ := ctx.Value(callTagKey{}).(*callTag)
	if t == nil {
		return &callTag{binding: "HTTP"}
	}
	return t
}

// recorder numbers wire entries and publishes them.
type recorder struct {
	hub  *hub
	seq  atomic.Int64
	mask *masker
}

func (r *recorder) record(e WireEntry) {
	e.ID = r.seq.Add(1)
	e.Time = time.Now()
	r.hub.publish(Event{Kind: "wire", Wire: &e})
}

// maxShownBody is how much of a body a wire entry shows.
const maxShownBody = 256 << 10

func shownBody(b []byte, m *masker) string {
	s := string(b)
	note := ""
	if len(s) > maxShownBody {
		s, note = s[:maxShownBody], "\n… (cut: "+strconv.Itoa(len(b))+" bytes in all)"
	}
	return m.body(s) + note
}

// wireTransport records the HTTP exchanges of the JSON-RPC and HTTP+JSON
// bindings and of card and JWKS fetches, byte for byte (credentials
// masked), and each server-sent event of a stream as it arrives.
type wireTransport struct {
	base http.RoundTripper
	rec  *recorder
}

func (t *wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tag := callTagFrom(req.Context())
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	m := t.rec.mask
	t.rec.record(WireEntry{
		Call: tag.id, Binding: tag.binding, Direction: "request", Operation: tag.operation,
		Method: req.Method, URL: m.url(req.URL), Header: m.header(req.Header), Body: shownBody(body, m),
		Curl: curlCommand(req, body, m), CLI: tag.cli,
	})
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.rec.record(WireEntry{Call: tag.id, Binding: tag.binding, Direction: "error", Operation: tag.operation, Status: m.text(err.Error())})
		return nil, err
	}
	entry := WireEntry{
		Call: tag.id, Binding: tag.binding, Direction: "response", Operation: tag.operation,
		Method: req.Method, URL: m.url(req.URL), Status: resp.Status, Header: m.header(resp.Header),
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		entry.Note = "server-sent events follow, one entry each"
		t.rec.record(entry)
		resp.Body = &sseTee{ReadCloser: resp.Body, rec: t.rec, tag: tag}
		return resp, nil
	}
	const limit = 32 << 20
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		resp.Body.Close()
		entry.Body = shownBody(b, m)
		entry.Note = "reading the body failed: " + err.Error()
		t.rec.record(entry)
		return nil, err
	}
	entry.Body = shownBody(b, m)
	t.rec.record(entry)
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// sseTee passes a stream's bytes on and records each event (the lines up to
// a blank line) as it completes.
type sseTee struct {
	io.ReadCloser
	rec *recorder
	tag *callTag

	mu   sync.Mutex
	line []byte
	ev   []string
}

func (s *sseTee) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range p[:n] {
		if c != '\n' {
			s.line = append(s.line, c)
			continue
		}
		line := strings.TrimSuffix(string(s.line), "\r")
		s.line = s.line[:0]
		if line == "" {
			s.flush()
			continue
		}
		s.ev = append(s.ev, line)
	}
	if err == io.EOF {
		s.flush()
		s.rec.record(WireEntry{Call: s.tag.id, Binding: s.tag.binding, Direction: "event", Operation: s.tag.operation, Note: "stream ended"})
	}
	return n, err
}

func (s *sseTee) flush() {
	if len(s.ev) == 0 {
		return
	}
	text := strings.Join(s.ev, "\n")
	s.ev = s.ev[:0]
	s.rec.record(WireEntry{Call: s.tag.id, Binding: s.tag.binding, Direction: "event", Operation: s.tag.operation, Body: shownBody([]byte(text), s.rec.mask)})
}

// masker hides credentials: the values of credential headers, of the API
// keys the card declares (header, query parameter or cookie), and the token
// and credentials members of push configs in bodies.
type masker struct {
	mu          sync.Mutex
	headerNames map[string]bool // lower-cased, besides the usual ones
	queryNames  map[string]bool
	secrets     []string // values typed by the user, hidden wherever they appear
}

func newMasker() *masker {
	return &masker{headerNames: map[string]bool{}, queryNames: map[string]bool{}}
}

// set replaces what the user's credentials add to the masked names.
func (m *masker) set(headers, query, secrets []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.headerNames, m.queryNames = map[string]bool{}, map[string]bool{}
	for _, h := range headers {
		m.headerNames[strings.ToLower(h)] = true
	}
	for _, q := range query {
		m.queryNames[q] = true
	}
	m.secrets = nil
	for _, s := range secrets {
		if len(s) >= 4 {
			m.secrets = append(m.secrets, s)
		}
	}
}

const masked = "****"

func (m *masker) header(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		for _, v := range vs {
			out[k] = append(out[k], m.headerValue(k, v))
		}
	}
	return out
}

func (m *masker) headerValue(name, value string) string {
	n := strings.ToLower(name)
	m.mu.Lock()
	custom := m.headerNames[n]
	m.mu.Unlock()
	switch {
	case n == "authorization" || n == "proxy-authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " " + masked
		}
		return masked
	case custom || secretHeader(n):
		return masked
	}
	return m.text(value)
}

// secretHeader reports whether a header (its lower-case name) carries a
// secret by its name: cookies, and names that speak of a token, a secret
// or an API key.
func secretHeader(name string) bool {
	if name == "cookie" || name == "set-cookie" {
		return true
	}
	return slices.ContainsFunc([]string{"token", "secret", "api-key", "apikey"}, func(w string) bool { return strings.Contains(name, w) })
}

func (m *masker) url(u *url.URL) string {
	m.mu.Lock()
	names := m.queryNames
	m.mu.Unlock()
	if len(names) == 0 || u.RawQuery == "" {
		return m.text(u.String())
	}
	c := *u
	q := c.Query()
	for k := range q {
		if names[k] {
			q[k] = []string{masked}
		}
	}
	c.RawQuery = q.Encode()
	return m.text(c.String())
}

// secretMembers matches the JSON members whose values are push-config
// secrets.
var secretMembers = regexp.MustCompile(`"(token|credentials)"(\s*:\s*)"(?:[^"\\]|\\.)*"`)

func (m *masker) body(s string) string {
	return m.text(secretMembers.ReplaceAllString(s, `"$1"$2"`+masked+`"`))
}

// text hides every secret the user typed, wherever it appears.
func (m *masker) text(s string) string {
	m.mu.Lock()
	secrets := m.secrets
	m.mu.Unlock()
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, masked)
	}
	return s
}

// curlCommand is the request as a curl command line, credentials masked
// (replace **** with the real value to run it).
func curlCommand(req *http.Request, body []byte, m *masker) string {
	var b strings.Builder
	b.WriteString("curl -sS")
	if strings.Contains(req.Header.Get("Accept"), "text/event-stream") {
		b.WriteString(" -N")
	}
	if req.Method != http.MethodGet || len(body) > 0 {
		b.WriteString(" -X " + req.Method)
	}
	b.WriteString(" " + shellQuote(m.url(req.URL)))
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		switch strings.ToLower(k) {
		case "content-length", "accept-encoding", "user-agent":
			continue
		}
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range req.Header[k] {
			b.WriteString(" -H " + shellQuote(k+": "+m.headerValue(k, v)))
		}
	}
	if len(body) > 0 {
		b.WriteString(" --data-raw " + shellQuote(m.body(string(body))))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
