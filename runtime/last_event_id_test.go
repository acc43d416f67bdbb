package runtime

import (
	"net/http"
	"strconv"
	"testing"
)

func TestParseLastEventID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"9223372036854775807", 9223372036854775807, true},
		{"", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false},
		{"0x10", 0, false}, {"9223372036854775808", 0, false}, {"12345678901234567890", 0, false}, {"١", 0, false},
	} {
		got, err := ParseLastEventID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseLastEventID(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestLastEventIDHeaders(t *testing.T) {
	h := http.Header{}
	if _, ok, err := LastEventID(h); ok || err != nil {
		t.Fatalf("no header: ok %v, err %v", ok, err)
	}
	h.Set(MetadataLastEventID, "4")
	if g, ok, err := LastEventID(h); !ok || err != nil || g != 4 {
		t.Fatalf("gRPC key: %d %v %v", g, ok, err)
	}
	h.Set(HeaderLastEventID, "5")
	if g, ok, err := LastEventID(h); !ok || err != nil || g != 5 {
		t.Fatalf("Last-Event-ID first: %d %v %v", g, ok, err)
	}
	h.Add(HeaderLastEventID, "6")
	if _, _, err := LastEventID(h); err == nil {
		t.Fatal("two Last-Event-ID values accepted")
	} else if e, ok := err.(*Error); !ok || e.Code() != CodeInvalidParams {
		t.Fatalf("two values: %v, want InvalidParams", err)
	}
}

func FuzzParseLastEventID(f *testing.F) {
	for _, s := range []string{"0", "1", "9223372036854775807", "9223372036854775808", "-1", "", " 3", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseLastEventID(s)
		if err != nil {
			return
		}
		if n < 0 || strconv.FormatInt(n, 10) != trimZeros(s) {
			t.Fatalf("ParseLastEventID(%q) = %d, which does not read back", s, n)
		}
		h := http.Header{}
		h.Set(HeaderLastEventID, s)
		if _, ok, err := LastEventID(h); !ok || err != nil {
			t.Fatalf("LastEventID refused %q, which ParseLastEventID accepts: %v", s, err)
		}
	})
}

// trimZeros drops leading zeros, keeping one digit.
func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
