package agentcard_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/jcs"
	"github.com/a2agen/a2agen/runtime"
)

// signedCardJSON returns the JSON document of card signed by key.
func signedCardJSON(t *testing.T, card *a2av1.AgentCard, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	doc, err := protojson.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Canonicalize(doc)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := cardsig.Sign(payload, cardsig.Signer{Key: key, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	signed := proto.CloneOf(card)
	signed.Signatures = append(signed.Signatures, sig)
	out, err := protojson.Marshal(signed)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// serveCard serves doc as the agent card and jwks at /jwks.json.
func serveCard(t *testing.T, doc, jwks []byte) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardJSONHandler(doc))
	mux.HandleFunc("/jwks.json", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestDiscoverVerifiesSignedCards(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks, err := cardsig.JWKS(cardsig.Signer{Key: key, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	card := echoCard(&a2av1.AgentInterface{ProtocolBinding: "JSONRPC", Url: "http://127.0.0.1:1/a2a", ProtocolVersion: "1.0"})
	signed := signedCardJSON(t, card, key)
	tampered := []byte(strings.Replace(string(signed), `"echoes"`, `"echoes everything"`, 1))
	unsigned, _ := protojson.Marshal(card)
	good := []agentcard.VerificationKey{{KeyID: "k1", Key: key.Public()}}
	wrong := []agentcard.VerificationKey{{Key: other.Public()}}
	ctx := context.Background()

	tests := []struct {
		name string
		doc  []byte
		opts func(base string) []agentcard.Option
		want error // nil: accepted
	}{
		{"signed, right key", signed, func(string) []agentcard.Option { return []agentcard.Option{agentcard.WithVerificationKeys(good...)} }, nil},
		{"signed, JWKS URL", signed, func(b string) []agentcard.Option {
			return []agentcard.Option{agentcard.WithJWKSURL(b + "/jwks.json"), agentcard.WithRequireSignature()}
		}, nil},
		{"signed, wrong key", signed, func(string) []agentcard.Option { return []agentcard.Option{agentcard.WithVerificationKeys(wrong...)} }, agentcard.ErrSignatureNotVerified},
		{"tampered", tampered, func(string) []agentcard.Option { return []agentcard.Option{agentcard.WithVerificationKeys(good...)} }, agentcard.ErrSignatureNotVerified},
		{"unsigned, keys given", unsigned, func(string) []agentcard.Option { return []agentcard.Option{agentcard.WithVerificationKeys(good...)} }, nil},
		{"unsigned, signature required", unsigned, func(string) []agentcard.Option {
			return []agentcard.Option{agentcard.WithVerificationKeys(good...), agentcard.WithRequireSignature()}
		}, agentcard.ErrCardUnsigned},
		{"no checks asked", tampered, func(string) []agentcard.Option { return nil }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := serveCard(t, tt.doc, jwks)
			c, err := agentcard.Discover(ctx, base, tt.opts(base)...)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Discover: %v", err)
				}
				c.Close()
				return
			}
			var se *agentcard.SignatureError
			if !errors.Is(err, tt.want) || !errors.As(err, &se) {
				t.Fatalf("Discover: %v, want a *SignatureError wrapping %v", err, tt.want)
			}
		})
	}

	base := serveCard(t, signed, jwks)
	if _, err := agentcard.Discover(ctx, base, agentcard.WithRequireSignature()); err == nil || !strings.Contains(err.Error(), "WithVerificationKeys") {
		t.Errorf("required signature without keys: %v", err)
	}
	if _, err := agentcard.NewClient(card, agentcard.WithRequireSignature()); err == nil {
		t.Error("NewClient accepted WithRequireSignature on a parsed card")
	}
	if _, err := agentcard.Discover(ctx, base, agentcard.WithJWKSURL(base+"/missing")); err == nil {
		t.Error("an unreachable JWKS was accepted")
	}
	results, err := agentcard.VerifyCard(ctx, signed, agentcard.WithVerificationKeys(good...))
	if err != nil || len(results) != 1 || !results[0].Verified || results[0].Kid != "k1" {
		t.Errorf("VerifyCard = %+v, %v", results, err)
	}
}
