// Package clitokens is the file where `a2a auth login` keeps the access
// tokens it obtained: tokens.json in the a2a CLI's configuration directory
// ($XDG_CONFIG_HOME/a2a-cli, else ~/.config/a2a-cli), mode 0600 in a 0700
// directory, keyed by the agent's name. The CLI's later commands and
// `a2a inspect` read it, so a login made once serves both. The file holds
// credentials only, never task or context ids.
package clitokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Token is one stored token.
type Token struct {
	AccessToken string `json:"accessToken"`
	TokenType   string `json:"tokenType,omitempty"`
	// Scheme is the card's security scheme the token was obtained for.
	Scheme string `json:"scheme"`
	// Expiry is when the token expires (RFC 3339), "" when the server did
	// not say.
	Expiry string `json:"expiry,omitempty"`
}

// Dir is the a2a CLI's configuration directory for the environment getenv
// reads: $XDG_CONFIG_HOME/a2a-cli, else $HOME/.config/a2a-cli; "" when
// neither variable is set.
func Dir(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "a2a-cli")
}

// Store is a tokens file; the zero Store (no path) holds nothing and
// refuses to save.
type Store struct {
	// Path is the file, normally Dir(...)/tokens.json.
	Path string
}

// In is the Store in the configuration directory dir ("" for none).
func In(dir string) Store {
	if dir == "" {
		return Store{}
	}
	return Store{Path: filepath.Join(dir, "tokens.json")}
}

// ErrNoDirectory is returned by Save when there is no configuration
// directory to store a token in.
var ErrNoDirectory = errors.New("no home directory to store the token in: set HOME or XDG_CONFIG_HOME")

// All reads every stored token by agent name; a missing file holds none.
func (s Store) All() (map[string]Token, error) {
	out := map[string]Token{}
	if s.Path == "" {
		return out, nil
	}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w (delete the file and run a2a auth login again)", s.Path, err)
	}
	return out, nil
}

// For is the token stored for the agent named agent, if any.
func (s Store) For(agent string) (Token, bool, error) {
	all, err := s.All()
	if err != nil {
		return Token{}, false, err
	}
	t, ok := all[agent]
	return t, ok && t.AccessToken != "", nil
}

// Save stores t for the agent named agent, keeping the other agents'
// tokens: the file is written whole to a temporary file (0600) and renamed
// over the old one, in a 0700 directory.
func (s Store) Save(agent string, t Token) error {
	if s.Path == "" {
		return ErrNoDirectory
	}
	all, err := s.All()
	if err != nil {
		return err
	}
	all[agent] = t
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	tmp := s.Path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.Path)
}
