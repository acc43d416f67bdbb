package cardsig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
)

// FuzzVerify checks signed agent cards, which come from files and from
// agents on the network, starting from a correctly signed card. Verify must
// never panic; its error must agree with its results (nil exactly when a
// signature verified); and every signature that did not verify says why.
//
//	go test -run '^$' -fuzz FuzzVerify -fuzztime 30s ./internal/cardsig/
func FuzzVerify(f *testing.F) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	signed := signedDocument(f, testCard(f), Signer{Key: key, KeyID: "k"})
	keys := []VerificationKey{{KeyID: "k", Key: key.Public()}}
	if _, err := Verify(signed, keys); err != nil {
		f.Fatalf("the seed card does not verify: %v", err)
	}
	f.Add(signed)
	f.Add([]byte(`{"name":"a","signatures":[{"protected":"e30","signature":"AA"}]}`))
	f.Add([]byte(`{"signatures":[{"protected":"eyJhbGciOiJFUzI1NiIsImtpZCI6ImsifQ","signature":""}]}`))
	f.Add([]byte(`{"signatures":[]}`))
	f.Add([]byte(`{"signatures":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		results, err := Verify(doc, keys)
		verified := false
		for _, r := range results {
			verified = verified || r.Verified
			if !r.Verified && r.Problem == "" {
				t.Fatalf("signature %d did not verify and says no why", r.Index)
			}
		}
		if verified != (err == nil) {
			t.Fatalf("Verify returned %v with results %+v", err, results)
		}
	})
}
