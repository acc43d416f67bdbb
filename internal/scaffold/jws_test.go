package scaffold

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/manifest"
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
