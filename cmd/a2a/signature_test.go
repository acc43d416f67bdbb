package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/jcs"
	"github.com/a2agen/a2agen/runtime"
)

// TestCardSignatures serves a signed card and checks --verify-key with a
// PEM file and a JWKS URL, a tampered card and a key that does not match.
func TestCardSignatures(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	card := &a2av1.AgentCard{Name: "signed", Description: "a signed agent", Version: "1",
		SupportedInterfaces: []*a2av1.AgentInterface{{Url: "http://127.0.0.1:1/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}},
		Capabilities:        &a2av1.AgentCapabilities{}}
	unsigned, err := protojson.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Canonicalize(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := cardsig.Sign(payload, cardsig.Signer{Key: key, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	card.Signatures = []*a2av1.AgentCardSignature{sig}
	signed, _ := protojson.Marshal(card)
	jwks, err := cardsig.JWKS(cardsig.Signer{Key: key, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(doc []byte) string {
		mux := http.NewServeMux()
		mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardJSONHandler(doc))
		mux.HandleFunc("/jwks.json", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) })
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}

	base := serve(signed)
	golden(t, "card-verified", ok(t, "card", "get", "-a", base, "--verify-key", pemFile, "--require-signature"))
	ok(t, "card", "get", "-a", base, "--verify-key", base+"/jwks.json", "--require-signature")

	tampered := serve([]byte(strings.Replace(string(signed), "a signed agent", "an evil agent", 1)))
	for _, args := range [][]string{
		{"card", "get", "-a", tampered, "--verify-key", pemFile},
		{"card", "get", "-a", base, "--verify-key", "testdata/key.pub.pem"},
	} {
		r := a2a(t, nil, args...)
		if r.code != exitFail || !strings.Contains(r.stderr, "no signature of the card verified") {
			t.Errorf("a2a %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}
