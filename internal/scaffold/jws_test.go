package scaffold

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/runtime"
)

// TestSignedCardJSONVerifies signs a card with two keys and checks that the
// document a scaffolded agent serves (CardJSON) verifies with each: the
// signing payload and the served document agree.
func TestSignedCardJSONVerifies(t *testing.T) {
	m, err := manifest.Load(fullManifest)
	if err != nil {
		t.Fatal(err)
	}
	card := m.AgentCard("")
	k1, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k2, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	for _, k := range []*ecdsa.PrivateKey{k1, k2} {
		if err := Sign(card, cardsig.Signer{Key: k}); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*ecdsa.PrivateKey{k1, k2} {
		results, err := cardsig.Verify(doc, []cardsig.VerificationKey{{Key: k.Public()}})
		if err != nil || len(results) != 2 {
			t.Errorf("Verify = %+v, %v", results, err)
		}
	}
}

// TestDualCard: with protocolVersions ["1.0", "0.3"] the card document is
// the v1.0 card (it decodes to the manifest's card, 0.3 twins included)
// with the v0.3 members after the v1.0 ones, exactly what
// a2av03.WithV03Fields says (so host serves it unchanged); its signature
// covers the v0.3 members too: the signed document verifies, and changing
// its v0.3 url breaks the signature.
func TestDualCard(t *testing.T) {
	m, err := manifest.Load("testdata/card/dual.yaml")
	if err != nil {
		t.Fatal(err)
	}
	card := m.AgentCard("")
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err := Sign(card, cardsig.Signer{Key: key}); err != nil {
		t.Fatal(err)
	}
	doc, err := CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	back := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(doc, back); err != nil || !proto.Equal(back, card) {
		t.Fatalf("the dual document does not decode to the card (%v):\n%s", err, doc)
	}
	want, err := a2av03.WithV03Fields(doc, card)
	if err != nil {
		t.Fatal(err)
	}
	var got, wantV any
	if json.Unmarshal(doc, &got) != nil || json.Unmarshal(want, &wantV) != nil || !reflect.DeepEqual(got, wantV) {
		t.Errorf("the dual document is not what WithV03Fields makes of it:\n%s\nwant (as JSON):\n%s", doc, want)
	}
	for _, member := range []string{`"protocolVersion": "0.3.0"`, `"url": "https://agents.example.com/travel/a2a"`, `"preferredTransport": "JSONRPC"`, `"additionalInterfaces"`, `"security"`} {
		at := bytes.Index(doc, []byte("\n  "+member))
		if at < 0 || at < bytes.LastIndex(doc, []byte("\n  \"skills\"")) {
			t.Errorf("top-level %s is missing or not after the v1.0 members", member)
		}
	}
	if _, err := cardsig.Verify(doc, []cardsig.VerificationKey{{Key: key.Public()}}); err != nil {
		t.Fatalf("the signed dual card does not verify: %v", err)
	}
	tampered := bytes.Replace(doc, []byte(`"url": "https://agents.example.com/travel/a2a",
  "preferredTransport"`), []byte(`"url": "http://evil.example.com/a2a",
  "preferredTransport"`), 1)
	if bytes.Equal(tampered, doc) {
		t.Fatal("the test did not change the v0.3 url")
	}
	if _, err := cardsig.Verify(tampered, []cardsig.VerificationKey{{Key: key.Public()}}); !errors.Is(err, cardsig.ErrNotVerified) {
		t.Errorf("a changed v0.3 url: Verify = %v, want ErrNotVerified", err)
	}
}
