package manifest

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse checks that no manifest makes the decoder panic, that every
// failure is reported as Errors with positions inside the file, and that a
// manifest that parses always yields a card.
func FuzzParse(f *testing.F) {
	full, _ := os.ReadFile("testdata/full.yaml")
	f.Add([]byte(minimal))
	f.Add(full)
	f.Add(Starter("fuzz"))
	for _, tc := range brokenCases {
		f.Add([]byte(tc.yaml))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.yaml", data)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %T is not a non-empty manifest.Errors: %v", err, err)
			}
			return
		}
		if card := m.AgentCard(""); card.GetName() != m.Name {
			t.Fatalf("card name %q, manifest name %q", card.GetName(), m.Name)
		}
		_ = m.ExtendedAgentCard("https://example.com")
	})
}
