package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The JSON-RPC id is echoed in every answer and stream event (issue 13,
// defect 7): an id that is not valid UTF-8, or longer than MaxJSONRPCIDBytes,
// is refused with -32600 and id null, in a response that is valid JSON.
func TestJSONRPCIDRefused(t *testing.T) {
	srv := newTestServer(t)
	long := `"` + strings.Repeat("x", 255) + `"` // 257 bytes as sent
	for _, tc := range []struct {
		name, id, method, params string
		wantID                   string
		wantMsg                  string
	}{
		{name: "invalid UTF-8", id: "\"a\xffb\"", method: "Echo", params: `{}`, wantID: "null", wantMsg: "UTF-8"},
		{name: "invalid UTF-8, stream", id: "\"\xc3\"", method: "Stream", params: `{"count":2}`, wantID: "null", wantMsg: "UTF-8"},
		{name: "4 KB id", id: `"` + strings.Repeat("x", 4096) + `"`, method: "Echo", params: `{}`, wantID: "null", wantMsg: "MaxJSONRPCIDBytes"},
		{name: "257-byte id, stream", id: long, method: "Stream", params: `{"count":2}`, wantID: "null", wantMsg: "MaxJSONRPCIDBytes"},
		{name: "long number", id: strings.Repeat("9", 300), method: "Echo", params: `{}`, wantID: "null", wantMsg: "MaxJSONRPCIDBytes"},
		{name: "256-byte id accepted", id: long[:255] + `"`, method: "Echo", params: `{}`, wantID: long[:255] + `"`},
		{name: "escaped non-ASCII accepted", id: `"\u00e9é"`, method: "Echo", params: `{}`, wantID: `"\u00e9é"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":`+tc.id+`,"method":"`+tc.method+`","params":`+tc.params+`}`)
			if !utf8.Valid(got.body) {
				t.Fatalf("response is not valid UTF-8: %q", got.body)
			}
			w := decodeWire(t, got.body)
			if string(w.ID) != tc.wantID {
				t.Errorf("id %q, want %q", w.ID, tc.wantID)
			}
			if tc.wantMsg == "" {
				if w.Error != nil {
					t.Errorf("got %s, want a result", got.body)
				}
				return
			}
			if w.Error == nil || w.Error.Code != -32600 || !strings.Contains(w.Error.Message, tc.wantMsg) {
				t.Errorf("got %s, want -32600 mentioning %s", got.body, tc.wantMsg)
			}
		})
	}
}
