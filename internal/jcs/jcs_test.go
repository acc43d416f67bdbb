package jcs

import (
	"math"
	"strings"
	"testing"
)

// TestNumberSamples checks the number serialisation samples of RFC 8785
// Appendix B (IEEE-754 bit patterns and the text ECMAScript writes).
func TestNumberSamples(t *testing.T) {
	for _, tc := range []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	} {
		f := math.Float64frombits(tc.bits)
		got, err := AppendNumber(nil, f)
		if err != nil || string(got) != tc.want {
			t.Errorf("%016x: got %q, %v; want %q", tc.bits, got, err, tc.want)
		}
	}
	for _, bits := range []uint64{0x7fffffffffffffff, 0x7ff0000000000000, 0xfff0000000000000} {
		if _, err := AppendNumber(nil, math.Float64frombits(bits)); err == nil {
			t.Errorf("%016x: no error for a value JSON cannot express", bits)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{
			// RFC 8785 §3.2.2: the example of primitive serialisation.
			name: "primitives",
			in: `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			// RFC 8785 §3.2.3: names sort by UTF-16 code units, so the
			// emoji (a surrogate pair, D83D) comes before U+FB33.
			name: "sorting",
			in: `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"דּ\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{
			name: "nested objects sorted at every level",
			in:   `{"b":{"z":1,"a":[{"y":2,"x":1}]},"a":-0}`,
			want: `{"a":0,"b":{"a":[{"x":1,"y":2}],"z":1}}`,
		},
		{
			name: "escapes",
			in:   `["\u0000\u001f\b\f\t", "\u007f\u2028", "é"]`,
			want: "[\"\\u0000\\u001f\\b\\f\\t\",\"\u007f\u2028\",\"é\"]",
		},
		{name: "empty containers", in: ` { "a" : [ ] , "b" : { } } `, want: `{"a":[],"b":{}}`},
		{name: "integers stay integers", in: `[1.0, 100, 1e2, -12.50]`, want: `[1,100,100,-12.5]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"a":2}`, `duplicate member name "a"`},
		{`"\ud83d"`, "lone UTF-16 surrogate"},
		{`"\ude00x"`, "lone UTF-16 surrogate"},
		{"\"\xff\"", "invalid UTF-8"},
		{"\"a\nb\"", "control character"},
		{`1e400`, "does not fit"},
		{`[1,]`, "unexpected"},
		{`{"a" 1}`, "expected ':'"},
		{`01`, "after the JSON value"},
		{`1.`, "no digits after"},
		{`[1] [2]`, "after the JSON value"},
		{``, "unexpected end"},
		{`nul`, "invalid literal"},
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "nested deeper"},
	} {
		if _, err := Canonicalize([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Canonicalize(%q) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"],"b":null}`, `"\ud83d\ude00"`, `1e-7`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		once, err := Canonicalize(data)
		if err != nil {
			return
		}
		twice, err := Canonicalize(once)
		if err != nil {
			t.Fatalf("canonical output %q does not parse: %v", once, err)
		}
		if string(once) != string(twice) {
			t.Fatalf("not idempotent: %q then %q", once, twice)
		}
	})
}
