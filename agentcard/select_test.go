package agentcard

import (
	"errors"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

func iface(binding, url, version string) *a2av1.AgentInterface {
	return &a2av1.AgentInterface{ProtocolBinding: binding, Url: url, ProtocolVersion: version}
}

func cardWith(ifaces ...*a2av1.AgentInterface) *a2av1.AgentCard {
	return &a2av1.AgentCard{Name: "Echo", SupportedInterfaces: ifaces}
}

var (
	jsonrpc10 = iface("JSONRPC", "https://agent.example.com/a2a/jsonrpc", "1.0")
	grpc10    = iface("GRPC", "agent.example.com:443", "1.0")
	rest10    = iface("HTTP+JSON", "https://agent.example.com/a2a/rest", "1.0")
	grpc03    = iface("GRPC", "agent.example.com:443", "0.3")
	jsonrpc03 = iface("JSONRPC", "https://agent.example.com/a2a/v03", "0.3")
	rest03    = iface("HTTP+JSON", "https://agent.example.com/a2a/rest", "0.3.0")
	soap10    = iface("urn:example:soap", "https://agent.example.com/soap", "1.0")
)

// fakeTransport stands in for a transport this package does not build.
func fakeTransport(string, ...runtime.ClientOption) (runtime.ClientTransport, error) { return nil, nil }

// TestSelectInterface pins the selection rule: first supported binding with
// major version 1, in card order or WithBindings order.
func TestSelectInterface(t *testing.T) {
	tests := []struct {
		name string
		card *a2av1.AgentCard
		opts []Option
		want int // index into card.SupportedInterfaces
	}{
		{"card order: JSON-RPC first", cardWith(jsonrpc10, grpc10), nil, 0},
		{"card order: gRPC first", cardWith(grpc10, jsonrpc10), nil, 0},
		{"unsupported custom binding skipped", cardWith(soap10, jsonrpc10), nil, 1},
		{"REST first", cardWith(rest10, grpc10), nil, 0},
		{"REST replaced with WithTransport", cardWith(rest10, grpc10), []Option{WithTransport("HTTP+JSON", fakeTransport)}, 0},
		{"REST URL without scheme skipped", cardWith(iface("HTTP+JSON", "agent.example.com/a2a", "1.0"), grpc10), nil, 1},
		{"custom binding with WithTransport", cardWith(soap10, jsonrpc10), []Option{WithTransport("urn:example:soap", fakeTransport)}, 0},
		{"1.0 chosen over earlier 0.3 entries", cardWith(grpc03, jsonrpc03, jsonrpc10), nil, 2},
		{"0.3 only: card order", cardWith(grpc03, jsonrpc03), nil, 0},
		{"0.3 over HTTP+JSON", cardWith(rest03, grpc03), nil, 0},
		{"1.0 HTTP+JSON chosen over an earlier 0.3 one", cardWith(rest03, rest10), nil, 1},
		{"0.3 HTTP+JSON by WithBindings", cardWith(jsonrpc03, rest03), []Option{WithBindings("HTTP+JSON")}, 1},
		{"0.3 only: WithBindings order", cardWith(grpc03, jsonrpc03), []Option{WithBindings("JSONRPC")}, 1},
		{"0.3 used when no 1.0 entry qualifies", cardWith(iface("SOAP", "https://h/soap", "1.0"), jsonrpc03), nil, 1},
		{"minor versions of 1 accepted", cardWith(iface("GRPC", "h:1", "1.1")), nil, 0},
		{"patch ignored", cardWith(iface("GRPC", "h:1", "1.0.1")), nil, 0},
		{"binding names case-insensitive", cardWith(iface("grpc", "h:1", "1.0")), nil, 0},
		{"WithBindings prefers gRPC", cardWith(jsonrpc10, grpc10), []Option{WithBindings("GRPC", "JSONRPC")}, 1},
		{"WithBindings falls back in its order", cardWith(jsonrpc10, grpc03, soap10), []Option{WithBindings("GRPC", "JSONRPC")}, 0},
		{"WithBindings keeps card order within a binding", cardWith(jsonrpc03, grpc10, iface("GRPC", "b:2", "1.0")), []Option{WithBindings("grpc")}, 1},
		{"tenant entries are selectable", cardWith(&a2av1.AgentInterface{ProtocolBinding: "JSONRPC", Url: "https://h/a2a", ProtocolVersion: "1.0", Tenant: "acme"}), nil, 0},
		{"bad gRPC URL skipped", cardWith(iface("GRPC", "https://", "1.0"), grpc10), nil, 1},
		{"JSON-RPC URL without scheme skipped", cardWith(iface("JSONRPC", "agent.example.com/a2a", "1.0"), grpc10), nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectInterface(tt.card, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.card.GetSupportedInterfaces()[tt.want]; got != want {
				t.Errorf("selected %v, want %v", got, want)
			}
		})
	}
}

// TestSelectInterfaceGRPCURLForms accepts every gRPC url form the
// specification has used.
func TestSelectInterfaceGRPCURLForms(t *testing.T) {
	for _, url := range []string{
		"agent.example.com:443", "agent.example.com", "127.0.0.1:50051", "[::1]:50051",
		"dns:///agent.example.com:443", "https://agent.example.com/a2a/grpc", "https://agent.example.com:8443",
		"grpcs://agent.example.com", "http://localhost:8080/a2a", "grpc://localhost:50051",
	} {
		t.Run(url, func(t *testing.T) {
			card := cardWith(iface("GRPC", url, "1.0"))
			if _, err := SelectInterface(card); err != nil {
				t.Fatalf("gRPC url %q refused: %v", url, err)
			}
		})
	}
}

// TestSelectInterfaceRefusals checks that the error names every interface
// and why it was refused.
func TestSelectInterfaceRefusals(t *testing.T) {
	tests := []struct {
		name    string
		card    *a2av1.AgentCard
		opts    []Option
		reasons []string // substrings, one per interface
	}{
		{"0.3 over a WithTransport binding, 0.2", cardWith(iface("SOAP", "https://h/soap", "0.3"), iface("JSONRPC", "https://h/a2a", "0.2")),
			[]Option{WithTransport("SOAP", fakeTransport)},
			[]string{`binding "SOAP" is not supported by this client for protocol version 0.3`, "protocol version 0.2 is not supported (this client speaks 1.x and 0.3)"}},
		{"unsupported bindings", cardWith(soap10, iface("SOAP", "https://h/soap", "1.0")), nil,
			[]string{`binding "urn:example:soap" is not supported by this client (supported: JSONRPC, HTTP+JSON, GRPC;`, `binding "SOAP" is not supported`}},
		{"not asked for", cardWith(jsonrpc10, iface("GRPC", "h:1", "0.2")), []Option{WithBindings("GRPC")},
			[]string{`binding "JSONRPC" is not among the bindings asked for (GRPC)`, "protocol version 0.2"}},
		{"missing fields", cardWith(iface("", "https://h", "1.0"), iface("JSONRPC", "", "1.0"), iface("JSONRPC", "https://h", ""), iface("GRPC", "h:1", "2.0"), iface("GRPC", "h:1", "v1")),
			nil, []string{"no protocolBinding", "no url", "no protocolVersion", "protocol version 2.0", `"v1" is not a Major.Minor`}},
		{"bad URLs", cardWith(iface("GRPC", "https://user:pw@h", "1.0"), iface("JSONRPC", "ftp://h/a2a", "1.0"), iface("GRPC", "h:99999", "1.0")), nil,
			[]string{"user information", "not an absolute http(s) URL", "port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SelectInterface(tt.card, tt.opts...)
			var nie *NoInterfaceError
			if !errors.As(err, &nie) {
				t.Fatalf("error %v, want *NoInterfaceError", err)
			}
			if nie.Card != "Echo" || len(nie.Refused) != len(tt.reasons) {
				t.Fatalf("refusals %v, want %d for card Echo", nie.Refused, len(tt.reasons))
			}
			for i, r := range nie.Refused {
				if r.Index != i || r.Interface != tt.card.GetSupportedInterfaces()[i] || !strings.Contains(r.Reason, tt.reasons[i]) {
					t.Errorf("refusal %d = %+v, want reason containing %q", i, r, tt.reasons[i])
				}
				if !strings.Contains(err.Error(), r.Reason) || !strings.Contains(err.Error(), "supportedInterfaces["+string(rune('0'+i))+"]") {
					t.Errorf("error text lacks refusal %d: %v", i, err)
				}
			}
		})
	}

	_, err := SelectInterface(cardWith())
	var nie *NoInterfaceError
	if !errors.As(err, &nie) || !strings.Contains(err.Error(), "lists no supportedInterfaces") || !strings.Contains(err.Error(), "v0.3") {
		t.Errorf("card without interfaces: %v", err)
	}
}

func TestNewClientRejectsNilTransport(t *testing.T) {
	_, err := NewClient(cardWith(soap10), WithTransport("urn:example:soap", fakeTransport))
	if err == nil || !strings.Contains(err.Error(), "no transport") {
		t.Fatalf("NewClient with a constructor returning nil: %v", err)
	}
}
