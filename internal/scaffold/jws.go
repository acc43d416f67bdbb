package scaffold

import (
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/cardsig"
)

// Sign appends a JWS signature of card by s (cardsig.Sign) to card: the
// payload is SigningPayload(card) — the card without signatures, in JCS
// form. Existing signatures are kept, so a card can carry one per key
// during a rotation.
func Sign(card *a2av1.AgentCard, s cardsig.Signer) error {
	payload, err := SigningPayload(card)
	if err != nil {
		return fmt.Errorf("building the signing payload: %w", err)
	}
	sig, err := cardsig.Sign(payload, s)
	if err != nil {
		return err
	}
	card.Signatures = append(card.Signatures, sig)
	return nil
}
