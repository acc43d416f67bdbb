package cardsig

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/jcs"
	"github.com/a2agen/a2agen/internal/manifest"
)

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

// testKeys returns one key of each supported kind; the RSA key is made once
// because generating it is slow.
func testKeys(t *testing.T) map[string]crypto.Signer {
	t.Helper()
	rsaOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	return map[string]crypto.Signer{"ES256": p256, "ES384": p384, "EdDSA": ed, "RS256": rsaKey}
}

func testCard(t testing.TB) *a2av1.AgentCard {
	t.Helper()
	m, err := manifest.Load("../manifest/testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m.AgentCard("")
}

// signedDocument signs card's JSON document with every signer and returns
// the document with the signatures: the payload is the document without
// signatures in JCS form, as Verify computes it.
func signedDocument(t testing.TB, card *a2av1.AgentCard, signers ...Signer) []byte {
	t.Helper()
	unsigned := proto.CloneOf(card)
	unsigned.Signatures = nil
	doc, err := protojson.Marshal(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Canonicalize(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range signers {
		sig, err := Sign(payload, s)
		if err != nil {
			t.Fatal(err)
		}
		card.Signatures = append(card.Signatures, sig)
	}
	signed, err := protojson.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	// protojson's spacing is deliberately unstable; the tests edit the
	// document as text.
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, signed); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	return indented.Bytes()
}

func TestSignVerifyRoundTrip(t *testing.T) {
	for alg, key := range testKeys(t) {
		t.Run(alg, func(t *testing.T) {
			doc := signedDocument(t, testCard(t), Signer{Key: key, KeyID: "k-" + alg})
			results, err := Verify(doc, []VerificationKey{{Key: key.Public()}})
			if err != nil {
				t.Fatalf("%v: %+v", err, results)
			}
			if len(results) != 1 || !results[0].Verified || results[0].Alg != alg || results[0].Kid != "k-"+alg {
				t.Errorf("results %+v", results)
			}
			header := protectedHeaderOf(t, doc, 0)
			want := map[string]any{"alg": alg, "kid": "k-" + alg, "typ": "JOSE"}
			if len(header) != 3 || header["alg"] != want["alg"] || header["kid"] != want["kid"] || header["typ"] != want["typ"] {
				t.Errorf("protected header %v; want %v", header, want)
			}
		})
	}
}

func protectedHeaderOf(t *testing.T, doc []byte, i int) map[string]any {
	t.Helper()
	var card struct {
		Signatures []struct{ Protected, Signature string } `json:"signatures"`
	}
	if err := json.Unmarshal(doc, &card); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(card.Signatures[i].Protected)
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestVerifyDetectsTampering(t *testing.T) {
	keys := testKeys(t)
	doc := signedDocument(t, testCard(t), Signer{Key: keys["ES256"], KeyID: "k"})
	pub := []VerificationKey{{Key: keys["ES256"].Public()}}
	for name, edit := range map[string]func(string) string{
		"changed value": func(s string) string { return strings.Replace(s, "Plans trips", "Plans TRIPS", 1) },
		"dropped false": func(s string) string { return strings.Replace(s, `"required": true,`, ``, 1) },
		"added member": func(s string) string {
			return strings.Replace(s, `"name": "Travel Planner",`, `"name": "Travel Planner", "extra": 1,`, 1)
		},
		"reordered skills":  func(s string) string { return strings.Replace(s, `"id": "plan"`, `"id": "book"`, 1) },
		"changed signature": func(s string) string { return strings.Replace(s, `"signature": "`, `"signature": "AA`, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			tampered := edit(string(doc))
			if tampered == string(doc) {
				t.Fatal("the edit changed nothing")
			}
			results, err := Verify([]byte(tampered), pub)
			if !errors.Is(err, ErrNotVerified) {
				t.Fatalf("Verify = %v, %+v; want ErrNotVerified", err, results)
			}
			if results[0].Problem == "" {
				t.Error("no problem reported")
			}
		})
	}
	t.Run("formatting does not matter", func(t *testing.T) {
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatal(err)
		}
		compact, _ := json.Marshal(v) // other member order, no whitespace
		if _, err := Verify(compact, pub); err != nil {
			t.Errorf("re-serialised card: %v", err)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		results, err := Verify(doc, []VerificationKey{{Key: other.Public()}})
		if !errors.Is(err, ErrNotVerified) || !strings.Contains(results[0].Problem, "does not match") {
			t.Errorf("Verify = %v, %+v", err, results)
		}
	})
}

func TestVerifySelectsKeysByKid(t *testing.T) {
	keys := testKeys(t)
	card := testCard(t)
	doc := signedDocument(t, card,
		Signer{Key: keys["ES256"], KeyID: "old"},
		Signer{Key: keys["EdDSA"], KeyID: "new"})
	results, err := Verify(doc, []VerificationKey{{KeyID: "new", Key: keys["EdDSA"].Public()}})
	if err != nil {
		t.Fatal(err)
	}
	if results[0].Verified || !strings.Contains(results[0].Problem, "no ES256 key") {
		t.Errorf("signature 1: %+v", results[0])
	}
	if !results[1].Verified {
		t.Errorf("signature 2: %+v", results[1])
	}
	// A key under another kid is not tried.
	_, err = Verify(doc, []VerificationKey{{KeyID: "other", Key: keys["EdDSA"].Public()}})
	if !errors.Is(err, ErrNotVerified) {
		t.Errorf("kid mismatch verified: %v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	keys := testKeys(t)
	pub := []VerificationKey{{Key: keys["EdDSA"].Public()}}
	doc := string(signedDocument(t, testCard(t), Signer{Key: keys["EdDSA"], KeyID: "k"}))
	withHeader := func(h string) string {
		var card map[string]any
		_ = json.Unmarshal([]byte(doc), &card)
		sig := card["signatures"].([]any)[0].(map[string]any)
		sig["protected"] = base64.RawURLEncoding.EncodeToString([]byte(h))
		b, _ := json.Marshal(card)
		return string(b)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"unsigned", `{"name":"x"}`, "no signatures"},
		{"duplicate member", `{"name":"x","name":"y","signatures":[]}`, "duplicate member"},
		{"not an object", `[1]`, "not a JSON object"},
		{"alg none", withHeader(`{"alg":"none","kid":"k"}`), "no usable alg"},
		{"crit", withHeader(`{"alg":"EdDSA","kid":"k","crit":["exp"],"exp":1}`), "critical"},
		{"b64 false", withHeader(`{"alg":"EdDSA","kid":"k","b64":false}`), "b64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results, err := Verify([]byte(tc.doc), pub)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			for _, r := range results {
				msg += " " + r.Problem
			}
			if err == nil || !strings.Contains(msg, tc.want) {
				t.Errorf("Verify = %v %+v; want %q", err, results, tc.want)
			}
		})
	}
}

// TestRFC8037Vectors checks the Ed25519 JWS and thumbprint examples of RFC
// 8037 Appendix A.
func TestRFC8037Vectors(t *testing.T) {
	seed, _ := base64.RawURLEncoding.DecodeString("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A")
	key := ed25519.NewKeyFromSeed(seed)
	if got := base64.RawURLEncoding.EncodeToString(key.Public().(ed25519.PublicKey)); got != "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" {
		t.Fatalf("public key %s", got)
	}
	sig, err := signJWS(key, algorithm{name: "EdDSA"}, []byte("eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"))
	if err != nil {
		t.Fatal(err)
	}
	if got := base64.RawURLEncoding.EncodeToString(sig); got != "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg" {
		t.Errorf("signature %s", got)
	}
	thumb, err := Thumbprint(key.Public())
	if err != nil || thumb != "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" {
		t.Errorf("thumbprint %s, %v", thumb, err)
	}
}

func TestSignDefaultsKidToThumbprint(t *testing.T) {
	key := testKeys(t)["ES256"]
	doc := signedDocument(t, testCard(t), Signer{Key: key, JWKSURL: "https://example.com/jwks.json"})
	h := protectedHeaderOf(t, doc, 0)
	thumb, _ := Thumbprint(key.Public())
	if h["kid"] != thumb || h["jku"] != "https://example.com/jwks.json" {
		t.Errorf("header %v; want kid %s and the jku", h, thumb)
	}
}

func TestECDSASignatureIsRawRS(t *testing.T) {
	for alg, size := range map[string]int{"ES256": 64, "ES384": 96} {
		key := testKeys(t)[alg]
		a, _ := algorithmFor(key.Public())
		sig, err := signJWS(key, a, []byte("input"))
		if err != nil || len(sig) != size {
			t.Errorf("%s: %d bytes, %v; want %d (r||s, RFC 7518 §3.4)", alg, len(sig), err, size)
		}
	}
}
