package host_test

import (
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/internal/echo"
)

// TestCardWithV03: each 1.0 JSON-RPC and HTTP+JSON interface gets a 0.3
// twin (gRPC and existing twins are left alone), the document carries the
// v0.3 members, and a signed card is refused rather than broken.
func TestCardWithV03(t *testing.T) {
	card := echo.Card(
		&a2av1.AgentInterface{Url: "http://127.0.0.1/j", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: "http://127.0.0.1/r", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: "http://127.0.0.1/r", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "0.3"},
		&a2av1.AgentInterface{Url: "127.0.0.1:1", ProtocolBinding: "GRPC", ProtocolVersion: "1.0"},
	)
	doc, err := host.CardWithV03(card)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, itf := range card.GetSupportedInterfaces() {
		got = append(got, itf.GetProtocolBinding()+" "+itf.GetProtocolVersion())
	}
	if want := "JSONRPC 1.0,HTTP+JSON 1.0,HTTP+JSON 0.3,GRPC 1.0,JSONRPC 0.3,GRPC 0.3"; strings.Join(got, ",") != want {
		t.Fatalf("interfaces %s, want %s", strings.Join(got, ","), want)
	}
	if !strings.Contains(string(doc), `"protocolVersion":"0.3.0"`) || !strings.Contains(string(doc), `"url":"http://127.0.0.1/j"`) {
		t.Fatalf("document %s", doc)
	}
	signed := echo.Card(&a2av1.AgentInterface{Url: "http://127.0.0.1/j", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"})
	signed.Signatures = []*a2av1.AgentCardSignature{{Protected: "x", Signature: "y"}}
	if _, err := host.CardWithV03(signed); err == nil || !strings.Contains(err.Error(), "signed") {
		t.Fatalf("signed card: %v", err)
	}
}
