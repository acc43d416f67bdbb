package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"
)

// distinctURIs returns n distinct extension URIs joined by commas.
func distinctURIs(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "urn:x:%d", i)
	}
	return b.String()
}

// A2A-Extensions is bounded in size and in URIs (issue 13, defect 1): an
// oversized header is refused as InvalidRequest naming the limit instead of
// being de-duplicated at quadratic cost.
func TestNewCallInfoExtensionLimits(t *testing.T) {
	manyLines := make([]string, 2000) // 2000 × 10 bytes: each line small, the sum over the limit
	for i := range manyLines {
		manyLines[i] = fmt.Sprintf("urn:y:%04d", i)
	}
	tests := []struct {
		name      string
		values    []string
		wantLimit string // "" when accepted
		wantN     int
	}{
		{name: "1 MB header", values: []string{distinctURIs(90_000)}, wantLimit: "MaxExtensionsHeaderBytes"},
		{name: "many lines over the size together", values: manyLines, wantLimit: "MaxExtensionsHeaderBytes"},
		{name: "101 URIs", values: []string{distinctURIs(101)}, wantLimit: "MaxExtensionURIs"},
		{name: "100 URIs", values: []string{distinctURIs(100)}, wantN: 100},
		{name: "duplicates do not count", values: []string{strings.Repeat("urn:a,", 2000)}, wantN: 1},
	}
	op := &Operation{Name: "GetTask"}
	c := newHandlerConfig(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := c.newCallInfo(BindingJSONRPC, op, http.Header{"A2a-Extensions": tt.values}, "")
			if tt.wantLimit == "" {
				if err != nil || len(info.Extensions) != tt.wantN {
					t.Fatalf("newCallInfo() = %v; want %d extensions", err, tt.wantN)
				}
				return
			}
			if err == nil {
				t.Fatalf("newCallInfo() accepted %d extensions, want InvalidRequest (%s)", len(info.Extensions), tt.wantLimit)
			}
			if err.Code() != CodeInvalidRequest || err.Metadata()["limit"] != tt.wantLimit || !strings.Contains(err.Message(), tt.wantLimit) {
				t.Errorf("error = %v (metadata %v), want InvalidRequest naming %s", err, err.Metadata(), tt.wantLimit)
			}
		})
	}
}

// ParseExtensions (also used by clients on what a server answers) keeps its
// de-duplication semantics past the point where it switches to a set.
func TestParseExtensionsManyDistinct(t *testing.T) {
	in := []string{distinctURIs(50), distinctURIs(60), "urn:x:3, urn:z"}
	got := ParseExtensions(in)
	if len(got) != 61 || got[0] != "urn:x:0" || got[49] != "urn:x:49" || got[59] != "urn:x:59" || got[60] != "urn:z" {
		t.Errorf("ParseExtensions: %d URIs, %q…%q", len(got), got[:3], got[len(got)-3:])
	}
}

// Every binding answers the limit with its InvalidRequest form.
func TestExtensionLimitOnEveryBinding(t *testing.T) {
	big := distinctURIs(200)
	t.Run("JSON-RPC", func(t *testing.T) {
		srv := newTestServer(t)
		got := rawPost(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"Echo","params":{}}`, "A2A-Extensions", big)
		w := decodeWire(t, got.body)
		if w.Error == nil || w.Error.Code != -32600 || string(w.ID) != "1" || !strings.Contains(w.Error.Message, "MaxExtensionURIs") {
			t.Errorf("got %s, want -32600 naming MaxExtensionURIs with id 1", got.body)
		}
	})
	t.Run("HTTP+JSON", func(t *testing.T) {
		base := serveRESTFixture(t)
		resp, raw := restDo(t, "GET", base+"/echo/hi", "", "A2A-Extensions", big)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), "MaxExtensionURIs") {
			t.Errorf("HTTP %d: %s, want 400 naming MaxExtensionURIs", resp.StatusCode, raw)
		}
	})
	t.Run("gRPC", func(t *testing.T) {
		_, cc, _ := startGRPC(t, newTestService(nil), nil, nil)
		ctx := metadata.NewOutgoingContext(context.Background(), metadata.Pairs("a2a-extensions", big))
		err := cc.Invoke(ctx, "/rpctest.TestService/Echo", newMessage(t, mdRequest, `{}`), newResponse())
		var e *Error
		if !errors.As(grpcCallError(ctx, "Echo", err), &e) || e.Code() != CodeInvalidRequest || !strings.Contains(e.Message(), "MaxExtensionURIs") {
			t.Errorf("error %v, want InvalidRequest naming MaxExtensionURIs", err)
		}
	})
}

// BenchmarkParseExtensions shows the cost per URI staying flat as the header
// grows (it grew linearly with the header, the cost being quadratic, before
// issue 13).
func BenchmarkParseExtensions(b *testing.B) {
	for _, n := range []int{1_000, 4_000, 16_000} {
		in := []string{distinctURIs(n)}
		b.Run(fmt.Sprintf("uris=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(in[0])))
			for b.Loop() {
				ParseExtensions(in)
			}
		})
	}
}

// naiveParseExtensions is the definition of ParseExtensions, quadratic and
// obviously right, used as the oracle of FuzzServiceParamHeaders.
func naiveParseExtensions(values []string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item != "" && !slices.Contains(out, item) {
				out = append(out, item)
			}
		}
	}
	return out
}

// FuzzServiceParamHeaders feeds arbitrary A2A-Version and A2A-Extensions
// values (the second split on NUL into several header lines) to the service
// parameter negotiation: it must never panic, must answer with one of its
// documented errors, and, when it accepts, the extensions must be what the
// definition gives and within the limits.
func FuzzServiceParamHeaders(f *testing.F) {
	for _, s := range [][2]string{
		{"1.0", "urn:a,urn:b"},
		{"0.3", " urn:a ,, urn:b ,\x00 \x00urn:a"},
		{"", distinctURIs(20)},
		{"1.0.7", distinctURIs(101)},
		{"1.0", strings.Repeat("urn:a,", 3000)},
		{"x", "\xff,\xfe"},
	} {
		f.Add(s[0], s[1])
	}
	op := &Operation{Name: "GetTask"}
	c := newHandlerConfig([]HandlerOption{WithRequiredExtensions("urn:req")})
	f.Fuzz(func(t *testing.T, version, extensions string) {
		values := strings.Split(extensions, "\x00")
		if got, want := ParseExtensions(values), naiveParseExtensions(values); !slices.Equal(got, want) {
			t.Fatalf("ParseExtensions(%q) = %q, want %q", values, got, want)
		}
		h := http.Header{"A2a-Version": {version}, "a2a-extensions": values}
		info, err := c.newCallInfo(BindingGRPC, op, h, "")
		if err != nil {
			switch err.Code() {
			case CodeVersionNotSupported, CodeExtensionSupportRequired:
			case CodeInvalidRequest:
				if err.Metadata()["limit"] == "" {
					t.Fatalf("InvalidRequest without the limit's name: %v", err)
				}
			default:
				t.Fatalf("error %v", err)
			}
			return
		}
		if size := len(extensions) - len(values) + 1; size > MaxExtensionsHeaderBytes || len(info.Extensions) > MaxExtensionURIs {
			t.Fatalf("accepted %d bytes, %d URIs", size, len(info.Extensions))
		}
		if !slices.Equal(info.Extensions, naiveParseExtensions(values)) || !slices.Contains(info.Extensions, "urn:req") {
			t.Fatalf("extensions %q from %q", info.Extensions, values)
		}
	})
}
