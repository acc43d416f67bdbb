package cardsig

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/asn1"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/jcs"
)

// Signer signs agent cards with one key.
type Signer struct {
	Key crypto.Signer
	// KeyID is the kid header: how verifiers find the public key. Empty
	// means the key's RFC 7638 thumbprint.
	KeyID string
	// JWKSURL, when set, is written as the jku header: where verifiers can
	// fetch the key set holding KeyID.
	JWKSURL string
}

// protectedHeader is the JWS protected header of a card signature. Field
// order is irrelevant: it is serialised canonically.
type protectedHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
	Jku string `json:"jku,omitempty"`
}

// Sign returns a JWS signature (RFC 7515, detached payload) of payload, the
// card without signatures in RFC 8785 form (A2A §8.4): the protected header
// carries alg, kid and typ "JOSE", and jku when the signer has a JWKS URL.
func Sign(payload []byte, s Signer) (*a2av1.AgentCardSignature, error) {
	alg, err := algorithmFor(s.Key.Public())
	if err != nil {
		return nil, err
	}
	kid := s.KeyID
	if kid == "" {
		if kid, err = Thumbprint(s.Key.Public()); err != nil {
			return nil, err
		}
	}
	header, err := json.Marshal(protectedHeader{Alg: alg.name, Kid: kid, Typ: "JOSE", Jku: s.JWKSURL})
	if err != nil {
		return nil, err
	}
	if header, err = jcs.Canonicalize(header); err != nil {
		return nil, err
	}
	protected := b64.EncodeToString(header)
	sig, err := signJWS(s.Key, alg, []byte(protected+"."+b64.EncodeToString(payload)))
	if err != nil {
		return nil, fmt.Errorf("signing the card with %s key %q: %w", alg.name, kid, err)
	}
	return &a2av1.AgentCardSignature{Protected: protected, Signature: b64.EncodeToString(sig)}, nil
}

// signJWS computes the JWS signature bytes (RFC 7518 §3) of input.
func signJWS(key crypto.Signer, alg algorithm, input []byte) ([]byte, error) {
	if alg.name == "EdDSA" {
		return key.Sign(rand.Reader, input, crypto.Hash(0))
	}
	h := alg.hash.New()
	h.Write(input)
	digest := h.Sum(nil)
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		der, err := ecdsa.SignASN1(rand.Reader, k, digest)
		if err != nil {
			return nil, err
		}
		// JWS wants r and s as fixed-size big-endian halves, not DER.
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(der, &rs); err != nil {
			return nil, err
		}
		out := make([]byte, 2*alg.size)
		rs.R.FillBytes(out[:alg.size])
		rs.S.FillBytes(out[alg.size:])
		return out, nil
	default: // RSA: PKCS #1 v1.5
		return key.Sign(rand.Reader, digest, alg.hash)
	}
}

// verifyJWS checks a JWS signature with pub for alg.
func verifyJWS(pub crypto.PublicKey, alg algorithm, input, sig []byte) bool {
	if alg.name == "EdDSA" {
		k, ok := pub.(ed25519.PublicKey)
		return ok && ed25519.Verify(k, input, sig)
	}
	h := alg.hash.New()
	h.Write(input)
	digest := h.Sum(nil)
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if len(sig) != 2*alg.size {
			return false
		}
		der, err := asn1.Marshal(struct{ R, S *big.Int }{
			new(big.Int).SetBytes(sig[:alg.size]), new(big.Int).SetBytes(sig[alg.size:]),
		})
		return err == nil && ecdsa.VerifyASN1(k, digest, der)
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(k, alg.hash, digest, sig) == nil
	}
	return false
}

// SignatureResult is the outcome for one signature of a card.
type SignatureResult struct {
	Index    int    // position in signatures, from 0
	Alg, Kid string // from the protected header
	Verified bool
	// Problem says why the signature did not verify.
	Problem string
}

// ErrNotVerified is returned by Verify when no signature verifies.
var ErrNotVerified = errors.New("no signature of the card verified")

// ErrUnsigned is returned by Verify for a card without signatures.
var ErrUnsigned = errors.New("the card has no signatures")

// Verify checks the signatures of a card document (the JSON as received,
// not re-serialised): the payload is the document without its signatures
// member in RFC 8785 form, as A2A §8.4 advises, so fields a parser would
// drop still count. A signature verifies when one of keys matches its kid
// (keys without a kid match any) and algorithm and its signature checks.
// Verify returns one result per signature, and ErrNotVerified (wrapped) when
// none verified.
func Verify(cardJSON []byte, keys []VerificationKey) ([]SignatureResult, error) {
	// Strict I-JSON first: duplicate members would let two parsers read
	// two different cards.
	if _, err := jcs.Canonicalize(cardJSON); err != nil {
		return nil, fmt.Errorf("the card is not valid JSON for signing: %w", err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(cardJSON, &doc); err != nil {
		return nil, fmt.Errorf("the card is not a JSON object: %w", err)
	}
	var sigs []struct {
		Protected string          `json:"protected"`
		Signature string          `json:"signature"`
		Header    json.RawMessage `json:"header"`
	}
	if raw, ok := doc["signatures"]; ok {
		if err := json.Unmarshal(raw, &sigs); err != nil {
			return nil, fmt.Errorf("signatures: %w", err)
		}
	}
	if len(sigs) == 0 {
		return nil, ErrUnsigned
	}
	delete(doc, "signatures")
	unsigned, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	payload, err := jcs.Canonicalize(unsigned)
	if err != nil {
		return nil, err
	}
	encodedPayload := b64.EncodeToString(payload)

	var results []SignatureResult
	verified := false
	for i, s := range sigs {
		r := verifyOne(i, s.Protected, s.Signature, encodedPayload, keys)
		verified = verified || r.Verified
		results = append(results, r)
	}
	if !verified {
		return results, fmt.Errorf("%w (%d signature(s) checked)", ErrNotVerified, len(results))
	}
	return results, nil
}

func verifyOne(i int, protected, signature, encodedPayload string, keys []VerificationKey) SignatureResult {
	r := SignatureResult{Index: i}
	if r.Alg, r.Kid, r.Problem = readProtectedHeader(protected); r.Problem != "" {
		return r
	}
	sig, err := b64.DecodeString(signature)
	if err != nil {
		r.Problem = "signature is not base64url"
		return r
	}
	input := []byte(protected + "." + encodedPayload)
	tried := 0
	for _, k := range keys {
		if k.KeyID != "" && k.KeyID != r.Kid {
			continue
		}
		alg, err := algorithmFor(k.Key)
		if err != nil || alg.name != r.Alg {
			continue
		}
		tried++
		if verifyJWS(k.Key, alg, input, sig) {
			r.Verified = true
			return r
		}
	}
	r.Problem = noMatchProblem(r, tried, keys)
	return r
}

// readProtectedHeader reads a signature's protected header: its alg and
// kid, or the problem that makes the signature unusable.
func readProtectedHeader(protected string) (alg, kid, problem string) {
	headerJSON, err := b64.DecodeString(protected)
	if err != nil {
		return "", "", "protected header is not base64url"
	}
	var header map[string]any
	dec := json.NewDecoder(bytes.NewReader(headerJSON))
	if err := dec.Decode(&header); err != nil {
		return "", "", "protected header is not a JSON object"
	}
	alg, _ = header["alg"].(string)
	kid, _ = header["kid"].(string)
	if _, ok := header["crit"]; ok {
		// RFC 7515 §4.1.11: critical extensions we do not understand
		// make the signature invalid.
		return alg, kid, "protected header lists critical extensions (crit), which this verifier does not support"
	}
	if b, ok := header["b64"]; ok && b != true {
		return alg, kid, "unencoded payloads (b64: false) are not used for agent cards"
	}
	if alg == "" || alg == "none" {
		return alg, kid, "protected header has no usable alg"
	}
	return alg, kid, ""
}

// noMatchProblem says why no key verified the signature: no key of its
// algorithm, none of its kid, or a signature that does not match.
func noMatchProblem(r SignatureResult, tried int, keys []VerificationKey) string {
	kinds := slices.Collect(func(yield func(string) bool) {
		for _, k := range keys {
			if a, err := algorithmFor(k.Key); err == nil && !yield(a.name) {
				return
			}
		}
	})
	switch {
	case tried == 0 && !slices.Contains(kinds, r.Alg):
		return fmt.Sprintf("no %s key given (keys given: %v)", r.Alg, kinds)
	case tried == 0:
		return fmt.Sprintf("no key with kid %q given", r.Kid)
	}
	return "signature does not match the card (modified after signing, or signed with another key)"
}
