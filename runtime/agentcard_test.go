package runtime

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
)

// testCard stands in for an AgentCard: the handler serves any message.
const testCardJSON = `{"tenant":"acme","message":{"messageId":"card","role":"KIND_A","parts":[{"text":"hello"}]}}`

// cardResponse is what a test learns from one request to the card server.
type cardResponse struct {
	status int
	header http.Header
	body   []byte
}

func doCardRequest(t *testing.T, url, method string, header http.Header) cardResponse {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return cardResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

func newCardServer(t *testing.T, h http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(AgentCardPath, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + AgentCardPath
}

func TestAgentCardHandler(t *testing.T) {
	card := testMessageFromJSON(t, "Request", testCardJSON)
	url := newCardServer(t, NewAgentCardHandler(card))

	first := doCardRequest(t, url, http.MethodGet, nil)
	etag := first.header.Get("ETag")
	if len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' || strings.HasPrefix(etag, "W/") {
		t.Fatalf("ETag = %q, want a strong quoted tag", etag)
	}

	tests := []struct {
		name       string
		method     string
		header     http.Header
		wantStatus int
		wantHeader map[string]string // exact values; "" means absent
		wantBody   bool              // the card is in the body
	}{
		{name: "GET", method: http.MethodGet, wantStatus: http.StatusOK, wantBody: true,
			wantHeader: map[string]string{
				"Content-Type":                  "application/json",
				"ETag":                          etag,
				"Cache-Control":                 "public, max-age=3600",
				"Access-Control-Allow-Origin":   "*",
				"Access-Control-Expose-Headers": "ETag",
			}},
		{name: "HEAD", method: http.MethodHead, wantStatus: http.StatusOK,
			wantHeader: map[string]string{
				"Content-Type":                "application/json",
				"Content-Length":              first.header.Get("Content-Length"),
				"ETag":                        etag,
				"Access-Control-Allow-Origin": "*",
			}},
		{name: "If-None-Match matches", method: http.MethodGet, header: http.Header{"If-None-Match": {etag}},
			wantStatus: http.StatusNotModified,
			wantHeader: map[string]string{"ETag": etag, "Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*"}},
		{name: "If-None-Match weak form matches", method: http.MethodGet, header: http.Header{"If-None-Match": {"W/" + etag}},
			wantStatus: http.StatusNotModified},
		{name: "If-None-Match list", method: http.MethodGet, header: http.Header{"If-None-Match": {`"old", ` + etag}},
			wantStatus: http.StatusNotModified},
		{name: "If-None-Match star", method: http.MethodGet, header: http.Header{"If-None-Match": {"*"}},
			wantStatus: http.StatusNotModified},
		{name: "If-None-Match on HEAD", method: http.MethodHead, header: http.Header{"If-None-Match": {etag}},
			wantStatus: http.StatusNotModified},
		{name: "stale If-None-Match", method: http.MethodGet, header: http.Header{"If-None-Match": {`"old"`}},
			wantStatus: http.StatusOK, wantBody: true},
		{name: "preflight with requested headers", method: http.MethodOptions,
			header:     http.Header{"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"GET"}, "Access-Control-Request-Headers": {"a2a-version,authorization"}},
			wantStatus: http.StatusNoContent,
			wantHeader: map[string]string{
				"Access-Control-Allow-Origin":      "*",
				"Access-Control-Allow-Methods":     "GET, HEAD, OPTIONS",
				"Access-Control-Allow-Headers":     "a2a-version,authorization",
				"Allow":                            "GET, HEAD, OPTIONS",
				"Access-Control-Allow-Credentials": "",
			}},
		{name: "preflight without requested headers", method: http.MethodOptions,
			wantStatus: http.StatusNoContent,
			wantHeader: map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Headers": "A2A-Version, A2A-Extensions, Authorization, Content-Type, If-None-Match",
			}},
		{name: "POST", method: http.MethodPost, wantStatus: http.StatusMethodNotAllowed,
			wantHeader: map[string]string{"Allow": "GET, HEAD, OPTIONS", "Access-Control-Allow-Origin": "*", "ETag": ""}},
		{name: "PUT", method: http.MethodPut, wantStatus: http.StatusMethodNotAllowed,
			wantHeader: map[string]string{"Allow": "GET, HEAD, OPTIONS"}},
		{name: "DELETE", method: http.MethodDelete, wantStatus: http.StatusMethodNotAllowed,
			wantHeader: map[string]string{"Allow": "GET, HEAD, OPTIONS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := doCardRequest(t, url, tt.method, tt.header)
			if got.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %q)", got.status, tt.wantStatus, got.body)
			}
			for k, want := range tt.wantHeader {
				if v := got.header.Get(k); v != want {
					t.Errorf("%s = %q, want %q", k, v, want)
				}
			}
			if !tt.wantBody {
				if tt.wantStatus != http.StatusMethodNotAllowed && len(got.body) != 0 {
					t.Errorf("body = %q, want none", got.body)
				}
				return
			}
			back := newTestMessage(t, "Request")
			if err := protojsonStrict(string(got.body), back); err != nil {
				t.Fatalf("body %q does not decode: %v", got.body, err)
			}
			if diff := cmp.Diff(card, back, protocmp.Transform()); diff != "" {
				t.Errorf("served card (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAgentCardMaxAge(t *testing.T) {
	card := testMessageFromJSON(t, "Request", testCardJSON)
	for _, tt := range []struct {
		maxAge time.Duration
		want   string
	}{
		{5 * time.Minute, "public, max-age=300"},
		{1500 * time.Millisecond, "public, max-age=1"},
		{0, "public, max-age=0"},
		{-time.Hour, "public, max-age=0"},
	} {
		url := newCardServer(t, NewAgentCardHandler(card, WithCardMaxAge(tt.maxAge)))
		if got := doCardRequest(t, url, http.MethodGet, nil).header.Get("Cache-Control"); got != tt.want {
			t.Errorf("WithCardMaxAge(%v): Cache-Control = %q, want %q", tt.maxAge, got, tt.want)
		}
	}
}

// lockedBuffer is a log sink that the handler (on the server's goroutines) and
// the test may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A card that cannot be serialised is logged and answered with 500, never a
// panic.
func TestAgentCardUnserialisable(t *testing.T) {
	bad := newTestMessage(t, "Item")
	bad.Set(bad.Descriptor().Fields().ByName("id"), protoreflect.ValueOfString("\xff")) // invalid UTF-8
	for name, card := range map[string]proto.Message{"invalid UTF-8": bad, "nil card": nil} {
		t.Run(name, func(t *testing.T) {
			var logs lockedBuffer
			url := newCardServer(t, NewAgentCardHandler(card, WithCardLogger(slog.New(slog.NewTextHandler(&logs, nil)))))
			got := doCardRequest(t, url, http.MethodGet, nil)
			if got.status != http.StatusInternalServerError {
				t.Errorf("status = %d, want 500", got.status)
			}
			if got.header.Get("ETag") != "" {
				t.Errorf("ETag = %q on an error", got.header.Get("ETag"))
			}
			if !strings.Contains(logs.String(), "agent card cannot be served") {
				t.Errorf("log = %q, want the serialisation error", logs.String())
			}
		})
	}
}

func TestAgentCardProvider(t *testing.T) {
	var logs lockedBuffer
	base := testMessageFromJSON(t, "Request", testCardJSON)
	provider := func(r *http.Request) (proto.Message, error) {
		switch tenant := r.Header.Get("X-Tenant"); tenant {
		case "fail":
			return nil, errors.New("card store unavailable")
		default:
			m := proto.Clone(base)
			SetTenant(m, tenant)
			return m, nil
		}
	}
	url := newCardServer(t, NewAgentCardHandler(nil, WithCardProvider(provider),
		WithCardLogger(slog.New(slog.NewTextHandler(&logs, nil)))))

	a := doCardRequest(t, url, http.MethodGet, http.Header{"X-Tenant": {"a"}})
	b := doCardRequest(t, url, http.MethodGet, http.Header{"X-Tenant": {"b"}})
	if a.status != http.StatusOK || b.status != http.StatusOK {
		t.Fatalf("status = %d, %d; want 200", a.status, b.status)
	}
	if servedTenant(t, a.body) != "a" || servedTenant(t, b.body) != "b" {
		t.Errorf("bodies = %s, %s; want the tenants a and b", a.body, b.body)
	}
	if a.header.Get("ETag") == b.header.Get("ETag") {
		t.Errorf("different cards share the ETag %s", a.header.Get("ETag"))
	}
	again := doCardRequest(t, url, http.MethodGet, http.Header{"X-Tenant": {"a"}, "If-None-Match": {a.header.Get("ETag")}})
	if again.status != http.StatusNotModified {
		t.Errorf("revalidation status = %d, want 304", again.status)
	}
	failed := doCardRequest(t, url, http.MethodGet, http.Header{"X-Tenant": {"fail"}})
	if failed.status != http.StatusInternalServerError {
		t.Errorf("provider error: status = %d, want 500", failed.status)
	}
	if strings.Contains(string(failed.body), "card store unavailable") {
		t.Errorf("provider error leaked to the client: %q", failed.body)
	}
	if !strings.Contains(logs.String(), "card store unavailable") {
		t.Errorf("log = %q, want the provider error", logs.String())
	}
}

// servedTenant decodes a served test card and returns its tenant.
func servedTenant(t *testing.T, body []byte) string {
	t.Helper()
	m := newTestMessage(t, "Request")
	if err := UnmarshalJSON(body, m); err != nil {
		t.Fatal(err)
	}
	return TenantOf(m)
}
