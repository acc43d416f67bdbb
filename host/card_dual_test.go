package host_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/internal/scaffold"
	"github.com/a2agen/a2agen/runtime"
)

// dualManifest asks for v0.3 next to v1.0 on JSON-RPC and gRPC.
const dualManifest = `apiVersion: a2agen/v1
name: Dual
description: Both versions.
version: "1.0.0"
protocolVersions: ["1.0", "0.3"]
bindings:
  - binding: JSONRPC
    address: ":8080"
  - binding: GRPC
    address: ":9090"
skills:
  - id: open
    name: Open
    description: Opens.
    tags: [t]
`

// TestDualCardOfScaffold: the dual card a2a-scaffold writes
// (protocolVersions: ["1.0", "0.3"]) is served byte for byte with
// Config.V03, signed or not — a signed one keeps verifying — and the agent
// answers v0.3 calls; over TLS its v0.3 url and additionalInterfaces become
// TLS URLs together with the interfaces.
func TestDualCardOfScaffold(t *testing.T) {
	m, err := manifest.Parse("agent.yaml", []byte(dualManifest))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	signed := m.AgentCard("")
	if err := scaffold.Sign(signed, cardsig.Signer{Key: key}); err != nil {
		t.Fatal(err)
	}
	bindings := []host.Binding{
		{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"},
		{Protocol: runtime.BindingGRPC, Address: ":9090"},
	}
	for name, card := range map[string]*a2av1.AgentCard{"unsigned": m.AgentCard(""), "signed": signed} {
		t.Run(name, func(t *testing.T) {
			doc, err := scaffold.CardJSON(card)
			if err != nil {
				t.Fatal(err)
			}
			a := hosttest.Start(t, host.Config{CardJSON: doc, V03: true, Bindings: bindings,
				Skills: []host.Skill{{ID: "open", Run: replyWith("open")}}})
			a.CheckCard(t, bindings, string(doc))
			a.CheckV03Card(t, bindings)
			if name == "signed" {
				if _, err := cardsig.Verify(a.CardJSON(), []cardsig.VerificationKey{{Key: key.Public()}}); err != nil {
					t.Errorf("the served signed dual card does not verify: %v", err)
				}
			}
			for _, b := range bindings {
				if got := a.SendV03(t, b, a.Card(), "open", "hi"); got.Kind != "message" {
					t.Errorf("%s: v0.3 message/send answered %+v, want a message", b.Protocol, got)
				}
			}

			tlsDoc, err := host.CardWithTLS(doc)
			if name == "signed" {
				if err == nil {
					t.Error("CardWithTLS rewrote a signed card")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var v03 a2av03.CardV03Fields
			if err := json.Unmarshal(tlsDoc, &v03); err != nil {
				t.Fatal(err)
			}
			if v03.URL != "https://localhost:8080/" || len(v03.AdditionalInterfaces) != 2 ||
				v03.AdditionalInterfaces[1].URL != "https://localhost:9090" || v03.ProtocolVersion != a2av03.CardProtocolVersion {
				t.Errorf("the dual card over TLS keeps plaintext v0.3 URLs:\n%s", tlsDoc)
			}
			if bytes.Contains(tlsDoc, []byte("http://")) {
				t.Errorf("the dual card over TLS still has an http:// URL:\n%s", tlsDoc)
			}
		})
	}
}
