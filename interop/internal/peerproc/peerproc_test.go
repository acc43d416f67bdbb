package peerproc

import "testing"

func TestParseEndpointLine(t *testing.T) {
	for _, tc := range []struct {
		line, name, addr string
		ok               bool
	}{
		{"card http://127.0.0.1:80/.well-known/agent-card.json", "card", "http://127.0.0.1:80/.well-known/agent-card.json", true},
		{"jsonrpc: http://127.0.0.1:80/a2a", "jsonrpc", "http://127.0.0.1:80/a2a", true},
		{"HTTP+JSON=http://127.0.0.1:80/rest", "rest", "http://127.0.0.1:80/rest", true},
		{"agent card  http://127.0.0.1:80/.well-known/agent-card.json", "card", "http://127.0.0.1:80/.well-known/agent-card.json", true},
		{"HTTP+JSON   http://127.0.0.1:80/a2a/rest", "rest", "http://127.0.0.1:80/a2a/rest", true},
		{"GRPC        127.0.0.1:9000", "grpc", "127.0.0.1:9000", true},
		{"JSONRPC     http://localhost:80/a2a/jsonrpc", "jsonrpc", "http://localhost:80/a2a/jsonrpc", true},
		{"  grpc\t127.0.0.1:9000", "grpc", "127.0.0.1:9000", true},
		{"webhook http://127.0.0.1:80/push", "webhook", "http://127.0.0.1:80/push", true},
		{"store       memory", "store", "memory", true},
		{"store       sqlite:/tmp/a2agen-loadbench-1/echo.db", "store", "sqlite:/tmp/a2agen-loadbench-1/echo.db", true},
		{"store       sqlite:///var/lib/agent.db", "store", "sqlite:///var/lib/agent.db", true},
		{"store", "", "", false},
		{"stored 3 tasks", "", "", false},
		{"listening on 127.0.0.1:80", "", "", false},
		{"time=10:20:30 level=INFO", "", "", false},
		{"card", "", "", false},
		{"", "", "", false},
	} {
		name, addr, ok := ParseEndpointLine(tc.line)
		if name != tc.name || addr != tc.addr || ok != tc.ok {
			t.Errorf("ParseEndpointLine(%q) = %q, %q, %v; want %q, %q, %v", tc.line, name, addr, ok, tc.name, tc.addr, tc.ok)
		}
	}
}

func TestBufferKeepsTheEnd(t *testing.T) {
	var b Buffer
	chunk := make([]byte, 1000)
	for i := range 300 {
		chunk[0] = byte(i)
		_, _ = b.Write(chunk)
	}
	s := b.String()
	if len(s) != bufferLimit || s[len(s)-1000] != byte(299%256) {
		t.Errorf("buffer holds %d bytes ending with chunk %d, want %d ending with chunk 299", len(s), s[len(s)-1000], bufferLimit)
	}
}
