package scaffold

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/jcs"
	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/card")

// fullManifest uses every key of the format (shared with internal/manifest).
const fullManifest = "../manifest/testdata/full.yaml"

var cardCases = []struct {
	name, manifest string
	opts           CardOptions
}{
	{"minimal", "testdata/card/minimal.yaml", CardOptions{}},
	{"minimal-url", "testdata/card/minimal.yaml", CardOptions{BaseURL: "https://echo.example.com/agents/echo/"}},
	{"bindings", "testdata/card/bindings.yaml", CardOptions{}},
	{"bindings-url", "testdata/card/bindings.yaml", CardOptions{BaseURL: "https://multi.example.com:8443"}},
	{"full", fullManifest, CardOptions{}},
	{"full-extended", fullManifest, CardOptions{Extended: true, BaseURL: "http://127.0.0.1:8080"}},
	{"dual", "testdata/card/dual.yaml", CardOptions{}},
	{"dual-extended", "testdata/card/dual.yaml", CardOptions{Extended: true}},
}

// TestCardGolden compares a2a-scaffold card output with testdata/card; run
// with -update to rewrite the files after a reviewed change.
func TestCardGolden(t *testing.T) {
	for _, tc := range cardCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Card(tc.manifest, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "card", tc.name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestCardJSONIsTheCard checks that the printed document decodes back to
// the same card, so what is served is what the manifest says.
func TestCardJSONIsTheCard(t *testing.T) {
	m, err := manifest.Load(fullManifest)
	if err != nil {
		t.Fatal(err)
	}
	card := m.ExtendedAgentCard("https://agents.example.com")
	doc, err := CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	var back a2av1.AgentCard
	if err := runtime.UnmarshalJSON(doc, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(card, &back, protocmp.Transform()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestPresenceRules checks the A2A §8.4 rules on which members appear.
func TestPresenceRules(t *testing.T) {
	m, err := manifest.Load(fullManifest)
	if err != nil {
		t.Fatal(err)
	}
	card := m.AgentCard("")
	card.Capabilities.PushNotifications = new(bool) // explicitly false
	card.Description = ""                           // REQUIRED, empty
	doc, err := CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"pushNotifications": false`, // optional: present because set
		`"description": ""`,          // REQUIRED: present although empty
		`"scopes": {}`,               // REQUIRED map, empty (machines flow)
		`"tenant": "eu"`,
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("card lacks %s", want)
		}
	}
	for _, absent := range []string{
		`"tenant": ""`, // not REQUIRED, default
		`"signatures"`, // none
		`"pkceRequired": false`,
		`"examples": []`,
	} {
		if strings.Contains(string(doc), absent) {
			t.Errorf("card has %s", absent)
		}
	}
}

// TestCardJSONIsStable guards against protojson's deliberately unstable
// whitespace leaking into the printed card.
func TestCardJSONIsStable(t *testing.T) {
	first, err := Card(fullManifest, CardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		again, err := Card(fullManifest, CardOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatal("two runs printed different bytes")
		}
	}
}

// TestSigningPayloadIsTheDocumentWithoutSignatures checks that verifiers
// canonicalising the received document get the signed payload.
func TestSigningPayloadIsTheDocumentWithoutSignatures(t *testing.T) {
	m, err := manifest.Load(fullManifest)
	if err != nil {
		t.Fatal(err)
	}
	card := m.AgentCard("")
	payload, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := jcs.Canonicalize(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(payload, canonical) {
		t.Errorf("payload %s\ndiffers from the canonical document %s", payload, canonical)
	}
	card.Signatures = []*a2av1.AgentCardSignature{{Protected: "x", Signature: "y"}}
	withSig, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(payload, withSig) {
		t.Error("signatures leak into the signing payload")
	}
}

func TestCardErrors(t *testing.T) {
	if _, err := Card("testdata/card/minimal.yaml", CardOptions{BaseURL: "ftp://x"}); err == nil || !strings.Contains(err.Error(), "--url: invalid URL") {
		t.Errorf("bad --url: %v", err)
	}
	if _, err := Card("testdata/card/missing.yaml", CardOptions{}); err == nil {
		t.Error("no error for a missing manifest")
	}
}
