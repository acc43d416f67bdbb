package main

import (
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/clitokens"
)

// Tokens 'auth login' obtained live in internal/clitokens' file,
// ~/.config/a2a-cli/tokens.json (mode 0600, in a 0700 directory), keyed by
// the agent's name; later commands to that agent send them as --bearer
// would, and a2a inspect offers them too.

// storedToken is one stored token.
type storedToken = clitokens.Token

// tokens is the tokens file next to the global configuration file.
func (a *app) tokens() clitokens.Store {
	return clitokens.In(clitokens.Dir(a.env.getenv))
}

// saveToken stores tok for the card's agent and says where.
func (a *app) saveToken(card *a2av1.AgentCard, tok storedToken) (string, error) {
	s := a.tokens()
	return s.Path, s.Save(card.GetName(), tok)
}

// storedToken is the token stored for the card's agent, "" for none.
func (a *app) storedToken(card *a2av1.AgentCard) string {
	tok, _, err := a.tokens().For(card.GetName())
	if err != nil {
		fmt.Fprintf(a.env.stderr, "a2a: warning: stored tokens: %v\n", err)
		return ""
	}
	return tok.AccessToken
}
