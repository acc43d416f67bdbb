package scaffold

import (
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/manifest"
)

// CardOptions says which card to build and how to sign it.
type CardOptions struct {
	// BaseURL overrides the manifest's url (the agent's public base URL).
	BaseURL string
	// Extended builds the extended card (public card plus extendedCard
	// skills) instead of the public one.
	Extended bool
	// Signers each add a signature, in order.
	Signers []cardsig.Signer
}

// BuildCard returns the agent card of the manifest at path, signed by each
// of opts.Signers.
func BuildCard(path string, opts CardOptions) (*a2av1.AgentCard, error) {
	if opts.BaseURL != "" {
		if err := manifest.ValidateBaseURL(opts.BaseURL); err != nil {
			return nil, fmt.Errorf("--url: %w", err)
		}
	}
	m, err := manifest.Load(path)
	if err != nil {
		return nil, err
	}
	card := m.AgentCard(opts.BaseURL)
	if opts.Extended {
		card = m.ExtendedAgentCard(opts.BaseURL)
	}
	for _, s := range opts.Signers {
		if err := Sign(card, s); err != nil {
			return nil, err
		}
	}
	return card, nil
}

// Card returns the card document of the manifest at path, as CardJSON
// renders it: what a2a-scaffold card prints and the scaffolded agent
// serves.
func Card(path string, opts CardOptions) ([]byte, error) {
	card, err := BuildCard(path, opts)
	if err != nil {
		return nil, err
	}
	return CardJSON(card)
}
