package agentcard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/a2agen/a2agen/internal/cardsig"
)

// VerificationKey is a public key that may verify card signatures: an
// *ecdsa.PublicKey (P-256, P-384, P-521), an ed25519.PublicKey or an
// *rsa.PublicKey of 2048 bits or more. A non-empty KeyID verifies only
// signatures whose kid header equals it.
type VerificationKey = cardsig.VerificationKey

// SignatureResult is the outcome for one signature of a card: its position,
// the alg and kid of its protected header, whether it verified, and if not,
// why.
type SignatureResult = cardsig.SignatureResult

var (
	// ErrSignatureNotVerified is wrapped by the error of a card none of whose
	// signatures verifies with the configured keys.
	ErrSignatureNotVerified = cardsig.ErrNotVerified
	// ErrCardUnsigned is wrapped by the error of an unsigned card when
	// WithRequireSignature is given.
	ErrCardUnsigned = cardsig.ErrUnsigned
)

// maxJWKSBytes bounds a key set fetched from a JWKS URL.
const maxJWKSBytes = 1 << 20

// ParseVerificationKeys reads public keys from PEM (PUBLIC KEY, RSA PUBLIC
// KEY, CERTIFICATE), a JSON Web Key Set or a single JWK; the kid of a JWK
// becomes the key's KeyID.
func ParseVerificationKeys(data []byte) ([]VerificationKey, error) {
	keys, err := cardsig.ParseVerificationKeys(data)
	if err != nil {
		return nil, fmt.Errorf("agentcard: verification keys: %w", err)
	}
	return keys, nil
}

// WithVerificationKeys makes Discover and VerifyCard check the card's JWS
// signatures (A2A §8.4) with keys: a signed card is accepted only when one of
// its signatures verifies. An unsigned card is still accepted unless
// WithRequireSignature is given too.
func WithVerificationKeys(keys ...VerificationKey) Option {
	return func(c *config) { c.verifyKeys = append(c.verifyKeys, keys...) }
}

// WithJWKSURL is WithVerificationKeys with the keys of the JSON Web Key Set
// at url, fetched (with the WithHTTPClient client) each time a card is
// verified. The URL is the caller's choice: the jku header of a signature is
// never trusted, since whoever forged the card would name their own keys.
func WithJWKSURL(url string) Option {
	return func(c *config) { c.jwksURLs = append(c.jwksURLs, url) }
}

// WithRequireSignature refuses cards that carry no signature verifying with
// the keys of WithVerificationKeys or WithJWKSURL (one of which is then
// needed). NewClient, which gets a parsed card and not the document that was
// signed, refuses this option: use Discover, or VerifyCard on the document.
func WithRequireSignature() Option {
	return func(c *config) { c.requireSignature = true }
}

// verifies reports whether the options ask for signature checks.
func (c *config) verifies() bool {
	return c.requireSignature || len(c.verifyKeys) > 0 || len(c.jwksURLs) > 0
}

// VerifyCard checks the signatures of the card document cardJSON (as
// received, not re-serialised) with the keys of opts (WithVerificationKeys,
// WithJWKSURL). It returns one result per signature, and an error wrapping
// ErrSignatureNotVerified when the card is signed but no signature verifies,
// or ErrCardUnsigned when it is unsigned and WithRequireSignature is given.
// Without keys it fails (there is nothing to verify against).
func VerifyCard(ctx context.Context, cardJSON []byte, opts ...Option) ([]SignatureResult, error) {
	return newConfig(opts).verifyCard(ctx, cardJSON)
}

func (c *config) verifyCard(ctx context.Context, cardJSON []byte) ([]SignatureResult, error) {
	keys := append([]VerificationKey(nil), c.verifyKeys...)
	for _, u := range c.jwksURLs {
		fetched, err := c.fetchJWKS(ctx, u)
		if err != nil {
			return nil, err
		}
		keys = append(keys, fetched...)
	}
	if len(keys) == 0 {
		return nil, errors.New("agentcard: verifying the card's signatures needs keys: give WithVerificationKeys or WithJWKSURL")
	}
	results, err := cardsig.Verify(cardJSON, keys)
	switch {
	case errors.Is(err, cardsig.ErrUnsigned) && !c.requireSignature:
		return nil, nil
	case err != nil:
		return results, &SignatureError{Results: results, err: err}
	}
	return results, nil
}

// fetchJWKS GETs the key set at url.
func (c *config) fetchJWKS(ctx context.Context, url string) ([]VerificationKey, error) {
	hc := c.httpClient
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("agentcard: JWKS URL %q: %w", url, err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("agentcard: fetching the JWKS %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("agentcard: fetching the JWKS %s: HTTP %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("agentcard: reading the JWKS %s: %w", url, err)
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("agentcard: the JWKS at %s is larger than %d bytes", url, maxJWKSBytes)
	}
	keys, err := cardsig.ParseVerificationKeys(data)
	if err != nil {
		return nil, fmt.Errorf("agentcard: the JWKS at %s: %w", url, err)
	}
	return keys, nil
}

// SignatureError is the error of a card whose signatures do not satisfy
// the options: Results says, per signature, why it did not verify.
type SignatureError struct {
	Results []SignatureResult
	err     error
}

func (e *SignatureError) Error() string {
	msg := "agent card signature: " + e.err.Error()
	for _, r := range e.Results {
		if !r.Verified {
			msg += fmt.Sprintf("; signature %d (alg %s, kid %q): %s", r.Index, r.Alg, r.Kid, r.Problem)
		}
	}
	return msg
}

func (e *SignatureError) Unwrap() error { return e.err }
