package auth

import (
	"slices"
	"testing"
)

// TestChallenges: the default challenges are those of every scheme of the
// card, in the order of the scheme names, each once (the http bearer and
// oauth schemes share Bearer), in the form the refusals use.
func TestChallenges(t *testing.T) {
	g, err := New(testCard(), testVerifiers())
	if err != nil {
		t.Fatal(err)
	}
	realm := `realm="Agent \"X\""`
	want := []string{
		"Basic " + realm + `, charset="UTF-8"`,            // basic
		"Bearer " + realm,                                 // bearer (and oauth)
		"APIKey " + realm + `, in="cookie", name="sid"`,   // ckey
		"APIKey " + realm + `, in="header", name="X-Key"`, // key
		"MutualTLS " + realm,                              // mtls
		"APIKey " + realm + `, in="query", name="k"`,      // qkey
	}
	if got := g.Challenges(); !slices.Equal(got, want) {
		t.Errorf("Challenges() =\n%q\nwant\n%q", got, want)
	}
}
