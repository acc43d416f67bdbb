package proctest

import "testing"

// TestParseLine reads the endpoint lines of examples/echo and of host.Main.
func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line, name, value string
		ok                bool
	}{
		{"agent card  http://127.0.0.1:1/.well-known/agent-card.json", "card", "http://127.0.0.1:1/.well-known/agent-card.json", true},
		{"card      http://127.0.0.1:1/.well-known/agent-card.json", "card", "http://127.0.0.1:1/.well-known/agent-card.json", true},
		{"JSONRPC     http://127.0.0.1:1/a2a/jsonrpc", "JSONRPC", "http://127.0.0.1:1/a2a/jsonrpc", true},
		{"HTTP+JSON http://127.0.0.1:1/a2a/rest", "HTTP+JSON", "http://127.0.0.1:1/a2a/rest", true},
		{"GRPC      127.0.0.1:2", "GRPC", "127.0.0.1:2", true},
		{"store       sqlite:/tmp/x.db", "store", "sqlite:/tmp/x.db", true},
		{"store     provided by the program", "store", "provided by the program", true},
		{"2026/01/01 12:00:00 WARN a2a: something", "", "", false},
		{"store", "", "", false},
		{"", "", "", false},
	} {
		name, value, ok := ParseLine(tc.line)
		if name != tc.name || value != tc.value || ok != tc.ok {
			t.Errorf("ParseLine(%q) = %q, %q, %v; want %q, %q, %v", tc.line, name, value, ok, tc.name, tc.value, tc.ok)
		}
	}
}
