package binding

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAcceptsWhatPeopleWrite(t *testing.T) {
	for in, want := range map[string]Binding{
		"JSONRPC": JSONRPC, "jsonrpc": JSONRPC, "JSON-RPC": JSONRPC, "json_rpc": JSONRPC, "JSONRPC2": JSONRPC, "json-rpc 2.0": JSONRPC,
		"HTTP+JSON": HTTPJSON, "http+json": HTTPJSON, "HTTP_JSON": HTTPJSON, "rest": HTTPJSON, "REST": HTTPJSON, "http": HTTPJSON, " Rest ": HTTPJSON,
		"GRPC": GRPC, "grpc": GRPC, "gRPC": GRPC,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseNamesTheAcceptedSpellings(t *testing.T) {
	for _, in := range []string{"soap", "", "https://example.com/bindings/soap", "grpc-web"} {
		_, err := Parse(in)
		var u *UnknownError
		if !errors.As(err, &u) || u.Input != in {
			t.Fatalf("Parse(%q) = %v, want an *UnknownError", in, err)
		}
		if !strings.Contains(err.Error(), "JSONRPC, HTTP+JSON or GRPC") || !strings.Contains(err.Error(), "rest") {
			t.Errorf("Parse(%q): %q does not name the accepted spellings", in, err)
		}
	}
}

// TestFacts pins the per-binding facts the generators, the runtime and the
// CLIs share: changing one changes generated identifiers, flags or messages.
func TestFacts(t *testing.T) {
	for i, tc := range []struct {
		b                    Binding
		title, option, ident string
		http                 bool
	}{
		{JSONRPC, "JSON-RPC", "jsonrpc", "JSONRPC", true},
		{HTTPJSON, "HTTP+JSON", "rest", "REST", true},
		{GRPC, "gRPC", "grpc", "GRPC", false},
	} {
		if tc.b.Index() != i || All()[i] != tc.b || !tc.b.Known() || tc.b.Title() != tc.title || tc.b.Option() != tc.option ||
			tc.b.Ident() != tc.ident || tc.b.IsHTTP() != tc.http || Options()[i] != tc.option {
			t.Errorf("facts of %s: index %d, title %q, option %q, ident %q, http %v", tc.b, tc.b.Index(), tc.b.Title(), tc.b.Option(), tc.b.Ident(), tc.b.IsHTTP())
		}
		if p, err := Parse(tc.option); err != nil || p != tc.b {
			t.Errorf("Parse(%q) = %q, %v: every option name parses", tc.option, p, err)
		}
	}
	custom := Binding("https://example.com/bindings/soap")
	if custom.Known() || custom.Index() != -1 || custom.IsHTTP() || custom.Option() != "" || custom.Ident() != "" || custom.Title() != string(custom) {
		t.Errorf("a custom binding has built-in facts")
	}
}
