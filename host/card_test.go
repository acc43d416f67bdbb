package host

import (
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

func TestTLSURL(t *testing.T) {
	const rpc, grpcB = runtime.BindingJSONRPC, runtime.BindingGRPC
	for _, tc := range []struct {
		binding  runtime.Binding
		in, want string
	}{
		{rpc, "http://127.0.0.1:8080/a2a", "https://127.0.0.1:8080/a2a"},
		{rpc, "HTTP://agent.example.com/a2a", "https://agent.example.com/a2a"},
		{rpc, "https://agent.example.com/a2a", "https://agent.example.com/a2a"},
		{runtime.BindingHTTPJSON, "http://localhost:8080", "https://localhost:8080"},
		{rpc, "grpc://x:1", "grpc://x:1"}, // not a gRPC interface: left alone
		{grpcB, "127.0.0.1:9090", "https://127.0.0.1:9090"},
		{grpcB, "localhost:9090", "https://localhost:9090"},
		{grpcB, "[::1]:9090", "https://[::1]:9090"},
		{grpcB, "agents.example.com:9090", "agents.example.com:9090"}, // clients use TLS already
		{grpcB, "http://127.0.0.1:9090", "https://127.0.0.1:9090"},
		{grpcB, "grpc://agents.example.com:9090", "grpcs://agents.example.com:9090"},
		{grpcB, "grpcs://127.0.0.1:9090", "grpcs://127.0.0.1:9090"},
		{grpcB, "https://127.0.0.1:9090", "https://127.0.0.1:9090"},
		{grpcB, "dns:///localhost:9090", "dns:///localhost:9090"}, // a resolver URL has no TLS form
		{grpcB, "unix:/tmp/agent.sock", "unix:/tmp/agent.sock"},
		{grpcB, "localhost", "localhost"}, // no port: port 443, which clients reach over TLS
	} {
		if got := tlsURL(tc.binding, tc.in); got != tc.want {
			t.Errorf("tlsURL(%s, %q) = %q, want %q", tc.binding, tc.in, got, tc.want)
		}
	}
}

// TestCardWithTLSKeepsTheDocument: only the url values of the plaintext
// interfaces change, whatever the layout; everything else stays byte for
// byte.
func TestCardWithTLSKeepsTheDocument(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"indented",
			`{
  "name": "a",
  "supportedInterfaces": [
    {
      "url": "http://127.0.0.1:1/a2a",
      "protocolBinding": "JSONRPC"
    },
    {"protocolBinding": "GRPC", "url" :  "127.0.0.1:2"},
    {"url": "https://x.example/a2a", "protocolBinding": "HTTP+JSON"}
  ],
  "documentationUrl": "http://127.0.0.1:1/a2a"
}`,
			`{
  "name": "a",
  "supportedInterfaces": [
    {
      "url": "https://127.0.0.1:1/a2a",
      "protocolBinding": "JSONRPC"
    },
    {"protocolBinding": "GRPC", "url" :  "https://127.0.0.1:2"},
    {"url": "https://x.example/a2a", "protocolBinding": "HTTP+JSON"}
  ],
  "documentationUrl": "http://127.0.0.1:1/a2a"
}`},
		{"compact, snake case, escapes",
			`{"supported_interfaces":[{"url":"http:\/\/h:1\/a\u0032a","protocol_binding":"JSONRPC","tenant":"t"}],"name":"b"}`,
			`{"supported_interfaces":[{"url":"https://h:1/a2a","protocol_binding":"JSONRPC","tenant":"t"}],"name":"b"}`},
		{"nothing to change",
			`{"name":"c","supportedInterfaces":[{"url":"https://h/a","protocolBinding":"JSONRPC"},{"url":"h.example:443","protocolBinding":"GRPC"}]}`,
			`{"name":"c","supportedInterfaces":[{"url":"https://h/a","protocolBinding":"JSONRPC"},{"url":"h.example:443","protocolBinding":"GRPC"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CardWithTLS([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestCardWithTLSRefusesSignedCards: a signed card whose URLs would have to
// change is refused (its signatures would break); a signed card with TLS
// URLs only passes unchanged.
func TestCardWithTLSRefusesSignedCards(t *testing.T) {
	signed := `{"name":"s","supportedInterfaces":[{"url":"%s","protocolBinding":"JSONRPC"}],"signatures":[{"protected":"eyJ","signature":"c2ln"}]}`
	_, err := CardWithTLS([]byte(strings.Replace(signed, "%s", "http://agent.example.com/a2a", 1)))
	if err == nil || !strings.Contains(err.Error(), "signed") || !strings.Contains(err.Error(), "http://agent.example.com/a2a") ||
		!strings.Contains(err.Error(), "https") {
		t.Errorf("a signed card with an http URL: %v, want a refusal naming the URL", err)
	}
	doc := strings.Replace(signed, "%s", "https://agent.example.com/a2a", 1)
	got, err := CardWithTLS([]byte(doc))
	if err != nil || string(got) != doc {
		t.Errorf("a signed card with https URLs: %q, %v; want it unchanged", got, err)
	}
	ext := &a2av1.AgentCard{SupportedInterfaces: []*a2av1.AgentInterface{{Url: "127.0.0.1:9", ProtocolBinding: runtime.BindingGRPC}},
		Signatures: []*a2av1.AgentCardSignature{{Protected: "x", Signature: "y"}}}
	if _, err := cardWithTLS(nil, ext, "extended agent card"); err == nil || !strings.Contains(err.Error(), "extended agent card is signed") {
		t.Errorf("a signed extended card with a plaintext gRPC URL: %v", err)
	}
}
