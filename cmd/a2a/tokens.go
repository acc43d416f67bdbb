package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Tokens 'auth login' obtained live in the user's configuration directory,
// ~/.config/a2a-cli/tokens.json (mode 0600, in a 0700 directory), keyed by
// the agent's name; later commands to that agent send them as --bearer
// would. The file holds credentials only, never task or context ids.

// storedTokens is the tokens file: agent name → token.
type storedTokens map[string]storedToken

type storedToken struct {
	AccessToken string `json:"accessToken"`
	TokenType   string `json:"tokenType,omitempty"`
	Scheme      string `json:"scheme"` // the card's security scheme it was obtained for
	Expiry      string `json:"expiry,omitempty"`
}

// tokensPath is the file of stored tokens, "" without a home directory.
func (a *app) tokensPath() string {
	p := a.globalConfigPath()
	if p == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(p), "tokens.json")
}

func (a *app) readTokens() (storedTokens, error) {
	p := a.tokensPath()
	if p == "" {
		return storedTokens{}, nil
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return storedTokens{}, nil
	}
	if err != nil {
		return nil, err
	}
	var t storedTokens
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return t, nil
}

// saveToken stores tok for the agent, creating the file 0600.
func (a *app) saveToken(card *a2av1.AgentCard, tok storedToken) (string, error) {
	p := a.tokensPath()
	if p == "" {
		return "", errors.New("no home directory to store the token in: set HOME or XDG_CONFIG_HOME")
	}
	all, err := a.readTokens()
	if err != nil {
		return "", err
	}
	all[card.GetName()] = tok
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
}

// storedToken is the token stored for the card's agent, "" for none.
func (a *app) storedToken(card *a2av1.AgentCard) string {
	all, err := a.readTokens()
	if err != nil {
		fmt.Fprintf(a.env.stderr, "a2a: warning: stored tokens: %v\n", err)
		return ""
	}
	return all[card.GetName()].AccessToken
}
