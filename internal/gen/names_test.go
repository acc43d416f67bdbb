package gen

import "testing"

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"A2AService": "a2aService",
		"HTTPServer": "httpServer",
		"Foo":        "foo",
		"FooBar":     "fooBar",
		"ABC":        "abc",
		"A":          "a",
		"X2":         "x2",
		"V2Tools":    "v2Tools",
		"already":    "already",
	} {
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}
