package cardsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/a2agen/a2agen/internal/jcs"
)

// minRSABits is the smallest RSA key accepted (RFC 7518 §3.3 requires 2048).
const minRSABits = 2048

// LoadSigningKey reads a PEM private key for signing cards: PKCS #8
// ("PRIVATE KEY"), SEC 1 ("EC PRIVATE KEY") or PKCS #1 ("RSA PRIVATE KEY").
// EC keys on P-256, P-384 and P-521 sign with ES256, ES384 and ES512,
// Ed25519 keys with EdDSA, RSA keys (2048 bits or more) with RS256.
func LoadSigningKey(path string) (crypto.Signer, error) {
	key, err := loadKeyFile(path, "signing key", parsePrivateKey)
	if err != nil {
		return nil, err
	}
	if _, err := algorithmFor(key.Public()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// loadKeyFile reads the key file at path (what it holds names it when it
// cannot be read) and parses it, naming the path in a parse error.
func loadKeyFile[K any](path, what string, parse func([]byte) (K, error)) (K, error) {
	var none K
	data, err := os.ReadFile(path)
	if err != nil {
		return none, fmt.Errorf("reading the %s: %w", what, err)
	}
	key, err := parse(data)
	if err != nil {
		return none, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

func parsePrivateKey(data []byte) (crypto.Signer, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM private key found (want PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY)")
		}
		if block.Type == "ENCRYPTED PRIVATE KEY" {
			return nil, errors.New("encrypted private keys are not supported; decrypt it first (openssl pkey -in KEY -out PLAIN)")
		}
		parse, ok := privateBlocks[block.Type]
		if !ok {
			continue // e.g. EC PARAMETERS before the key
		}
		key, err := parse(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing the %s block: %w", block.Type, err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("unsupported private key type %T", key)
		}
		return signer, nil
	}
}

// privateBlocks parse the PEM blocks that hold a private key, by type.
var privateBlocks = map[string]func([]byte) (any, error){
	"PRIVATE KEY":     x509.ParsePKCS8PrivateKey,
	"EC PRIVATE KEY":  func(b []byte) (any, error) { return x509.ParseECPrivateKey(b) },
	"RSA PRIVATE KEY": func(b []byte) (any, error) { return x509.ParsePKCS1PrivateKey(b) },
}

// publicBlocks parse the PEM blocks that hold a public key, by type: a
// certificate's, or a private key's public half.
var publicBlocks = map[string]func(*pem.Block) (any, error){
	"PUBLIC KEY":     func(b *pem.Block) (any, error) { return x509.ParsePKIXPublicKey(b.Bytes) },
	"RSA PUBLIC KEY": func(b *pem.Block) (any, error) { return x509.ParsePKCS1PublicKey(b.Bytes) },
	"CERTIFICATE": func(b *pem.Block) (any, error) {
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		return cert.PublicKey, nil
	},
	"PRIVATE KEY":     publicHalf,
	"EC PRIVATE KEY":  publicHalf,
	"RSA PRIVATE KEY": publicHalf,
}

func publicHalf(b *pem.Block) (any, error) {
	signer, err := parsePrivateKey(pem.EncodeToMemory(b))
	if err != nil {
		return nil, err
	}
	return signer.Public(), nil
}

// VerificationKey is a public key that may verify card signatures. An empty
// KeyID matches any kid.
type VerificationKey struct {
	KeyID string
	Key   crypto.PublicKey
}

// LoadVerificationKeys reads public keys from a PEM file (PUBLIC KEY, RSA
// PUBLIC KEY, CERTIFICATE, or a private key whose public half is used) or
// from a JSON Web Key Set (RFC 7517; a single JWK is accepted too), whose
// kid values select keys by the signature's kid.
func LoadVerificationKeys(path string) ([]VerificationKey, error) {
	return loadKeyFile(path, "verification key", ParseVerificationKeys)
}

// ParseVerificationKeys reads public keys from data in any form
// LoadVerificationKeys accepts: PEM, a JWKS or a single JWK.
func ParseVerificationKeys(data []byte) ([]VerificationKey, error) {
	if trimmed := strings.TrimSpace(string(data)); strings.HasPrefix(trimmed, "{") {
		return parseJWKS([]byte(trimmed))
	}
	return parsePublicPEM(data)
}

func parsePublicPEM(data []byte) ([]VerificationKey, error) {
	var keys []VerificationKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		parse, ok := publicBlocks[block.Type]
		if !ok {
			continue
		}
		key, err := parse(block)
		if err != nil {
			return nil, fmt.Errorf("parsing the %s block: %w", block.Type, err)
		}
		if _, err := algorithmFor(key); err != nil {
			return nil, err
		}
		keys = append(keys, VerificationKey{Key: key})
	}
	if len(keys) == 0 {
		return nil, errors.New("no PEM public key found (want PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE), and not a JWKS")
	}
	return keys, nil
}

// jwk holds the members of a JSON Web Key this package reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	N   string `json:"n"`
	E   string `json:"e"`
	Use string `json:"use"`
}

func parseJWKS(data []byte) ([]VerificationKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("parsing the JWKS: %w", err)
	}
	if set.Keys == nil {
		var single jwk
		if err := json.Unmarshal(data, &single); err != nil || single.Kty == "" {
			return nil, errors.New("JSON key file is neither a JWKS ({\"keys\": [...]}) nor a JWK")
		}
		set.Keys = []jwk{single}
	}
	var keys []VerificationKey
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			return nil, fmt.Errorf("key %d (kid %q): %w", i, k.Kid, err)
		}
		keys = append(keys, VerificationKey{KeyID: k.Kid, Key: pub})
	}
	if len(keys) == 0 {
		return nil, errors.New("the JWKS has no signature keys")
	}
	return keys, nil
}

var b64 = base64.RawURLEncoding

func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "EC":
		return k.ecPublicKey()
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, fmt.Errorf("unsupported OKP curve %q", k.Crv)
		}
		x, err := b64.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("invalid Ed25519 key")
		}
		return ed25519.PublicKey(x), nil
	case "RSA":
		return k.rsaPublicKey()
	}
	return nil, fmt.Errorf("unsupported key type %q", k.Kty)
}

func (k jwk) ecPublicKey() (crypto.PublicKey, error) {
	curve, size := curveByName(k.Crv)
	if curve == nil {
		return nil, fmt.Errorf("unsupported EC curve %q", k.Crv)
	}
	x, errX := b64.DecodeString(k.X)
	y, errY := b64.DecodeString(k.Y)
	if errX != nil || errY != nil || len(x) != size || len(y) != size {
		return nil, fmt.Errorf("invalid %s coordinates", k.Crv)
	}
	return ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
}

// rsaPublicKey reads an RSA key of at least minRSABits.
func (k jwk) rsaPublicKey() (crypto.PublicKey, error) {
	n, errN := b64.DecodeString(k.N)
	e, errE := b64.DecodeString(k.E)
	if errN != nil || errE != nil || len(e) == 0 || len(e) > 4 {
		return nil, errors.New("invalid RSA modulus or exponent")
	}
	exp := new(big.Int).SetBytes(e)
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(exp.Int64())}
	if pub.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("RSA key of %d bits; at least %d required", pub.N.BitLen(), minRSABits)
	}
	return pub, nil
}

func curveByName(name string) (elliptic.Curve, int) {
	switch name {
	case "P-256":
		return elliptic.P256(), 32
	case "P-384":
		return elliptic.P384(), 48
	case "P-521":
		return elliptic.P521(), 66
	}
	return nil, 0
}

// algorithm is a JWS algorithm this package signs and verifies with.
type algorithm struct {
	name string // the alg header value
	hash crypto.Hash
	size int // bytes of each of r and s for ECDSA
}

// algorithmFor picks the JWS algorithm of a public key.
func algorithmFor(pub crypto.PublicKey) (algorithm, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return algorithm{"ES256", crypto.SHA256, 32}, nil
		case elliptic.P384():
			return algorithm{"ES384", crypto.SHA384, 48}, nil
		case elliptic.P521():
			return algorithm{"ES512", crypto.SHA512, 66}, nil
		}
		return algorithm{}, fmt.Errorf("unsupported EC curve %s (use P-256)", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return algorithm{name: "EdDSA"}, nil
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return algorithm{}, fmt.Errorf("RSA key of %d bits; at least %d required", k.N.BitLen(), minRSABits)
		}
		return algorithm{"RS256", crypto.SHA256, 0}, nil
	}
	return algorithm{}, fmt.Errorf("unsupported key type %T (use EC P-256, Ed25519 or RSA)", pub)
}

// publicJWK returns the public members of a key as a JWK (RFC 7517/7518),
// without kid.
func publicJWK(pub crypto.PublicKey) (map[string]string, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		point, err := k.Bytes() // 0x04 || X || Y
		if err != nil {
			return nil, err
		}
		size := (len(point) - 1) / 2
		return map[string]string{"kty": "EC", "crv": k.Curve.Params().Name, "x": b64.EncodeToString(point[1 : 1+size]), "y": b64.EncodeToString(point[1+size:])}, nil
	case ed25519.PublicKey:
		return map[string]string{"kty": "OKP", "crv": "Ed25519", "x": b64.EncodeToString(k)}, nil
	case *rsa.PublicKey:
		return map[string]string{"kty": "RSA", "n": b64.EncodeToString(k.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(k.E)).Bytes())}, nil
	}
	return nil, fmt.Errorf("unsupported key type %T", pub)
}

// Thumbprint is the RFC 7638 JWK thumbprint of a public key (SHA-256,
// base64url), the default kid of a signature.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	members, err := publicJWK(pub)
	if err != nil {
		return "", err
	}
	// RFC 7638 hashes the required members only, sorted, without
	// whitespace: exactly their JCS form.
	required := map[string]string{}
	for _, name := range []string{"crv", "e", "kty", "n", "x", "y"} {
		if v, ok := members[name]; ok {
			required[name] = v
		}
	}
	raw, err := json.Marshal(required)
	if err != nil {
		return "", err
	}
	canonical, err := jcs.Canonicalize(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canonical)
	return b64.EncodeToString(sum[:]), nil
}

// JWKS returns a JSON Web Key Set (RFC 7517) of the signers' public keys,
// each under its KeyID (or its thumbprint when KeyID is empty), for
// publishing where verifiers of a signed card can find them by kid.
func JWKS(signers ...Signer) ([]byte, error) {
	keys := []any{}
	for _, s := range signers {
		pub := s.Key.Public()
		members, err := publicJWK(pub)
		if err != nil {
			return nil, err
		}
		alg, err := algorithmFor(pub)
		if err != nil {
			return nil, err
		}
		kid := s.KeyID
		if kid == "" {
			if kid, err = Thumbprint(pub); err != nil {
				return nil, err
			}
		}
		members["kid"] = kid
		members["use"] = "sig"
		members["alg"] = alg.name
		keys = append(keys, members)
	}
	return json.MarshalIndent(map[string]any{"keys": keys}, "", "  ")
}
