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
		switch {
		case !inString:
			inString = b[i] == '"'
		case b[i] == '"':
			inString = false
		case b[i] == '\\':
			n, lone := escapeAt(b, i)
			if n == 0 {
				return lone
			}
			i += n - 1
		}
	}
	return nil
}

// escapeAt reads the escape whose backslash is b[i]. It returns its length,
// or 0 when it stops the search: the escape is a lone surrogate (returned),
// or it is malformed or cut off, which protojson's own error reports.
func escapeAt(b string, i int) (int, *loneSurrogateError) {
	if i+1 >= len(b) {
		return 0, nil
	}
	if b[i+1] != 'u' {
		return 2, nil
	}
	v, ok := hex4(b, i+2)
	switch {
	case !ok:
		return 0, nil
	case v >= 0xD800 && v < 0xDC00 && lowSurrogateAt(b, i+6):
		return 12, nil // the pair
	case v < 0xD800 || v > 0xDFFF:
		return 6, nil
	}
	return 0, &loneSurrogateError{escape: b[i : i+6], offset: i}
}

// lowSurrogateAt reports whether b holds the \u escape of a low surrogate at
// offset i.
func lowSurrogateAt(b string, i int) bool {
	if i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return false
	}
	lo, ok := hex4(b, i+2)
	return ok && lo >= 0xDC00 && lo <= 0xDFFF
}
