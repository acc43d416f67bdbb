package cardsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writePEM(t *testing.T, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadSigningKeyFormats(t *testing.T) {
	keys := testKeys(t)
	ec := keys["ES256"].(*ecdsa.PrivateKey)
	sec1, _ := x509.MarshalECPrivateKey(ec)
	pkcs8EC, _ := x509.MarshalPKCS8PrivateKey(ec)
	pkcs8Ed, _ := x509.MarshalPKCS8PrivateKey(keys["EdDSA"])
	pkcs1 := x509.MarshalPKCS1PrivateKey(keys["RS256"].(*rsa.PrivateKey))
	for name, path := range map[string]string{
		"SEC 1":          writePEM(t, "EC PRIVATE KEY", sec1),
		"PKCS 8 EC":      writePEM(t, "PRIVATE KEY", pkcs8EC),
		"PKCS 8 Ed25519": writePEM(t, "PRIVATE KEY", pkcs8Ed),
		"PKCS 1 RSA":     writePEM(t, "RSA PRIVATE KEY", pkcs1),
	} {
		if _, err := LoadSigningKey(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	for name, tc := range map[string]struct{ path, want string }{
		"encrypted":   {writePEM(t, "ENCRYPTED PRIVATE KEY", []byte{1}), "encrypted"},
		"public only": {writePEM(t, "PUBLIC KEY", []byte{1}), "no PEM private key"},
		"small RSA":   {writePEM(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(small)), "at least 2048"},
		"missing":     {filepath.Join(t.TempDir(), "none.pem"), "no such file"},
	} {
		if _, err := LoadSigningKey(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

func TestLoadVerificationKeyFormats(t *testing.T) {
	keys := testKeys(t)
	pkix, _ := x509.MarshalPKIXPublicKey(keys["ES256"].Public())
	cert := selfSigned(t, keys["EdDSA"])
	for name, tc := range map[string]struct {
		path string
		pub  crypto.PublicKey
	}{
		"PKIX":        {writePEM(t, "PUBLIC KEY", pkix), keys["ES256"].Public()},
		"PKCS 1":      {writePEM(t, "RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(keys["RS256"].Public().(*rsa.PublicKey))), keys["RS256"].Public()},
		"certificate": {writePEM(t, "CERTIFICATE", cert), keys["EdDSA"].Public()},
	} {
		got, err := LoadVerificationKeys(tc.path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(got) != 1 || !got[0].Key.(interface{ Equal(crypto.PublicKey) bool }).Equal(tc.pub) {
			t.Errorf("%s: got %+v", name, got)
		}
	}
}

func selfSigned(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "card signer"}, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// TestJWKSRoundTrip writes the JWK set of several keys and verifies a card
// signed by them with the set.
func TestJWKSRoundTrip(t *testing.T) {
	keys := testKeys(t)
	signers := []Signer{{Key: keys["ES256"], KeyID: "ec"}, {Key: keys["EdDSA"]}, {Key: keys["RS256"], KeyID: "rsa"}, {Key: keys["ES384"], KeyID: "p384"}}
	set, err := JWKS(signers...)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, set, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadVerificationKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != 4 || loaded[0].KeyID != "ec" || loaded[2].KeyID != "rsa" {
		t.Fatalf("loaded %+v", loaded)
	}
	thumb, _ := Thumbprint(keys["EdDSA"].Public())
	if loaded[1].KeyID != thumb {
		t.Errorf("kid of the key without KeyID: %s; want the thumbprint %s", loaded[1].KeyID, thumb)
	}
	doc := signedDocument(t, testCard(t), signers...)
	results, err := Verify(doc, loaded)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.Verified {
			t.Errorf("%+v", r)
		}
	}
}

func TestJWKErrors(t *testing.T) {
	for name, tc := range map[string]struct{ jwks, want string }{
		"not a set":   {`{"foo": 1}`, "neither a JWKS"},
		"bad curve":   {`{"keys":[{"kty":"EC","crv":"P-192","x":"AA","y":"AA"}]}`, "unsupported EC curve"},
		"bad point":   {`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`, "invalid P-256"},
		"small RSA":   {`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`, "at least 2048"},
		"unknown kty": {`{"keys":[{"kty":"oct","k":"AA"}]}`, "unsupported key type"},
		"enc only":    {`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","use":"enc"}]}`, "no signature keys"},
	} {
		path := filepath.Join(t.TempDir(), "jwks.json")
		_ = os.WriteFile(path, []byte(tc.jwks), 0o644)
		if _, err := LoadVerificationKeys(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
	// A single JWK (not in a set) is accepted.
	path := filepath.Join(t.TempDir(), "jwk.json")
	_ = os.WriteFile(path, []byte(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"a"}`), 0o644)
	if keys, err := LoadVerificationKeys(path); err != nil || keys[0].KeyID != "a" {
		t.Errorf("single JWK: %v %+v", err, keys)
	}
}
