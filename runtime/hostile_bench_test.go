package runtime

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkHostileRequests: the server's cost of refusing each kind of
// hostile JSON-RPC request, in process (no network): a body nested a
// million levels deep (1 MiB of '['), a body over the 8 MiB limit, and an
// A2A-Extensions header over MaxExtensionsHeaderBytes (1 MiB of URIs).
func BenchmarkHostileRequests(b *testing.B) {
	h := NewJSONRPCHandler(newTestService(nil), WithLogger(slogDiscard()))
	deep := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"x":`), bytes.Repeat([]byte("["), 1<<20)...)
	huge := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":"`), bytes.Repeat([]byte("x"), 9<<20)...)
	ok := []byte(`{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":"hi"}}`)
	extensions := strings.Repeat("https://example.com/ext/0123456789,", (1<<20)/35)
	for _, tc := range []struct {
		name   string
		body   []byte
		header string
	}{
		{"depth", deep, ""},
		{"size", huge, ""},
		{"header", ok, extensions},
		{"wellbehaved", ok, ""},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.body) + len(tc.header)))
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(tc.body))
				req.Header.Set("Content-Type", "application/json")
				if tc.header != "" {
					req.Header.Set("A2A-Extensions", tc.header)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if tc.name != "wellbehaved" && !bytes.Contains(rec.Body.Bytes(), []byte(`-32600`)) {
					b.Fatalf("not refused: %s", rec.Body.Bytes())
				}
			}
		})
	}
}
