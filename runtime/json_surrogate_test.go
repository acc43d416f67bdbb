package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFindLoneSurrogate: on any input the scan stops by itself, and what it
// reports is a \u escape of a surrogate at the offset it names; on a JSON
// string it reports one exactly when the string's escapes hold a surrogate
// that is not part of a pair.
func FuzzFindLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"\ud800"`, `"a\udc00"`, `"\ud83d\ude00"`, `"\\ud800"`, `{"a":"\ud800\u0041"}`, `"\ud800\ud800\udc00"`, `"\u12`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ls := findLoneSurrogate(in)
		if ls != nil {
			if !strings.HasPrefix(in[ls.offset:], ls.escape) || !strings.HasPrefix(strings.ToLower(ls.escape), `\ud`) {
				t.Fatalf("%q: reported %q at %d", in, ls.escape, ls.offset)
			}
		}
		if !json.Valid([]byte(in)) || !strings.HasPrefix(in, `"`) || !utf8.ValidString(in) {
			return
		}
		// Go's decoder replaces a lone surrogate with U+FFFD; a string free
		// of them decodes to what protobuf accepts.
		var s string
		if err := json.Unmarshal([]byte(in), &s); err != nil {
			return
		}
		lone := strings.Contains(s, "\uFFFD") && !strings.Contains(strings.ToLower(in), `\ufffd`) && !strings.Contains(in, "\uFFFD")
		if lone != (ls != nil) {
			t.Fatalf("%q: decoded %q, reported %v", in, s, ls)
		}
	})
}
