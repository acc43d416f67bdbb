package dataschema

import (
	"errors"
	"strings"
)

// The rule for names Go identifiers are derived from: a property name
// here, and in package manifest a skill id or a security scheme name.

// Errors of CheckName; callers wrap them with the name and what it names.
var (
	ErrNameStart = errors.New("must start with a letter")
	ErrNameChars = errors.New(`may contain only letters, digits, "-", "_" and "."`)
)

// CheckName accepts a letter, then letters, digits, "-", "_" or "." (all
// ASCII), reporting ErrNameStart or ErrNameChars. The empty name passes:
// whether a name may be empty is the caller's rule.
func CheckName(s string) error {
	for i, r := range s {
		letter := isASCIILetter(r)
		if i == 0 && !letter {
			return ErrNameStart
		}
		if !letter && !isASCIIDigit(r) && !strings.ContainsRune("-_.", r) {
			return ErrNameChars
		}
	}
	return nil
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func isASCIIDigit(r rune) bool { return '0' <= r && r <= '9' }
