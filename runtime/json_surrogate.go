package runtime

import "fmt"

// loneSurrogateError explains what protojson reports as "unexpected EOF":
// a string of the input holds a \u escape of a UTF-16 surrogate without
// its pair, which is no Unicode character and cannot be a protobuf string.
type loneSurrogateError struct {
	escape string // as written, e.g. `\ud800`
	offset int    // of the backslash in the input
}

func (e *loneSurrogateError) Error() string {
	return fmt.Sprintf("the string escape %s at byte %d is a UTF-16 surrogate without its pair, which is no Unicode character; "+
		"write characters beyond U+FFFF as a pair (\\ud83d\\ude00) or as UTF-8", e.escape, e.offset)
}

// findLoneSurrogate returns the first \u escape of a surrogate without its
// pair inside a string of the JSON text b, or nil.
func findLoneSurrogate(b string) *loneSurrogateError {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(b) {
				return nil
			}
			if b[i+1] != 'u' {
				i++ // the escaped character
				continue
			}
			v, ok := hex4(b, i+2)
			if !ok {
				return nil // malformed: protojson's own error says so
			}
			switch {
			case v >= 0xD800 && v < 0xDC00:
				if lo, ok := hex4(b, i+8); ok && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11 // the pair
					continue
				}
				return &loneSurrogateError{escape: b[i : i+6], offset: i}
			case v >= 0xDC00 && v <= 0xDFFF:
				return &loneSurrogateError{escape: b[i : i+6], offset: i}
			}
			i += 5
		}
	}
	return nil
}
