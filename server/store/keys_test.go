package store_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a2agen/a2agen/server/store"
)

// TestKeyProblemEveryPosition: a NUL byte, a non-ASCII rune and an invalid
// byte are found wherever they stand in keys of every length around the
// eight-byte steps KeyProblem reads, and valid keys pass.
func TestKeyProblemEveryPosition(t *testing.T) {
	for n := 0; n <= 24; n++ {
		plain := strings.Repeat("a", n)
		checkKeyProblem(t, plain, "")
		for i := 0; i < n; i++ {
			at := func(b string) string { return plain[:i] + b + plain[i+1:] }
			checkKeyProblem(t, at("\x00"), "contains a NUL byte (U+0000)")
			checkKeyProblem(t, at("\x7f"), "")
			checkKeyProblem(t, at("\x01"), "")
			checkKeyProblem(t, at("\xff"), "is not valid UTF-8")
			checkKeyProblem(t, at("é"), "")
			checkKeyProblem(t, at("\x80"), "is not valid UTF-8")
			checkKeyProblem(t, at("é\x00"), "contains a NUL byte (U+0000)")
		}
	}
	checkKeyProblem(t, strings.Repeat("a", 257), "is 257 bytes long; at most 256 are allowed")
}

func checkKeyProblem(t *testing.T, s, want string) {
	t.Helper()
	if got := store.KeyProblem(s, store.MaxIDBytes); got != want {
		t.Fatalf("KeyProblem(%q) = %q, want %q", s, got, want)
	}
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") && len(s) <= store.MaxIDBytes != store.ValidID(s) {
		t.Fatalf("ValidID(%q) = %v", s, store.ValidID(s))
	}
}
