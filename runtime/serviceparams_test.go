package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewCallInfo(t *testing.T) {
	both := WithSupportedVersions("1.0", "0.3")
	tests := []struct {
		name        string
		opts        []HandlerOption
		header      http.Header
		query       string
		wantVersion string
		wantExt     []string
		wantErr     ErrorCode
		wantMeta    map[string]string // subset of the error metadata
	}{
		// A2A-Version
		{name: "absent, lenient: newest supported", wantVersion: "1.0"},
		{name: "absent, lenient, several supported", opts: []HandlerOption{WithSupportedVersions("1.1", "1.0")}, wantVersion: "1.1"},
		{name: "empty header, lenient", header: http.Header{"A2a-Version": {""}}, wantVersion: "1.0"},
		{name: "absent, strict: 0.3 is not served", opts: []HandlerOption{WithVersionPolicy(VersionStrict)},
			wantErr: CodeVersionNotSupported, wantMeta: map[string]string{"requestedVersion": "0.3", "supportedVersions": "1.0"}},
		{name: "empty header, strict", opts: []HandlerOption{WithVersionPolicy(VersionStrict)}, header: http.Header{"A2a-Version": {" "}},
			wantErr: CodeVersionNotSupported},
		{name: "absent, strict, 0.3 served", opts: []HandlerOption{WithVersionPolicy(VersionStrict), both}, wantVersion: "0.3"},
		{name: "1.0", header: http.Header{"A2a-Version": {"1.0"}}, wantVersion: "1.0"},
		{name: "1.0, strict", opts: []HandlerOption{WithVersionPolicy(VersionStrict)}, header: http.Header{"A2a-Version": {"1.0"}}, wantVersion: "1.0"},
		{name: "patch ignored", header: http.Header{"A2a-Version": {"1.0.1"}}, wantVersion: "1.0"},
		{name: "surrounding space", header: http.Header{"A2a-Version": {" 1.0 "}}, wantVersion: "1.0"},
		{name: "0.3 not served", header: http.Header{"A2a-Version": {"0.3"}},
			wantErr: CodeVersionNotSupported, wantMeta: map[string]string{"requestedVersion": "0.3", "supportedVersions": "1.0"}},
		{name: "0.3 served", opts: []HandlerOption{both}, header: http.Header{"A2a-Version": {"0.3"}}, wantVersion: "0.3"},
		{name: "2.0", header: http.Header{"A2a-Version": {"2.0"}},
			wantErr: CodeVersionNotSupported, wantMeta: map[string]string{"requestedVersion": "2.0", "supportedVersions": "1.0"}},
		{name: "malformed: abc", header: http.Header{"A2a-Version": {"abc"}},
			wantErr: CodeVersionNotSupported, wantMeta: map[string]string{"requestedVersion": "abc", "supportedVersions": "1.0"}},
		{name: "malformed: major only", header: http.Header{"A2a-Version": {"1"}}, wantErr: CodeVersionNotSupported},
		{name: "malformed: v prefix", header: http.Header{"A2a-Version": {"v1.0"}}, wantErr: CodeVersionNotSupported},
		{name: "lower-case key (gRPC metadata)", header: http.Header{"a2a-version": {"0.3"}}, wantErr: CodeVersionNotSupported},
		{name: "lower-case key, strict", opts: []HandlerOption{WithVersionPolicy(VersionStrict)}, header: http.Header{"a2a-version": {"1.0"}}, wantVersion: "1.0"},
		{name: "query parameter", opts: []HandlerOption{WithVersionPolicy(VersionStrict)}, query: "1.0", wantVersion: "1.0"},
		{name: "query parameter unsupported", query: "0.3", wantErr: CodeVersionNotSupported},
		{name: "header wins over query", header: http.Header{"A2a-Version": {"1.0"}}, query: "0.3", wantVersion: "1.0"},
		{name: "empty header falls back to query", header: http.Header{"A2a-Version": {""}}, query: "2.0", wantErr: CodeVersionNotSupported},

		// A2A-Extensions
		{name: "one extension", header: http.Header{"A2a-Extensions": {"urn:a"}}, wantVersion: "1.0", wantExt: []string{"urn:a"}},
		{name: "comma separated", header: http.Header{"A2a-Extensions": {"urn:a,urn:b"}}, wantVersion: "1.0", wantExt: []string{"urn:a", "urn:b"}},
		{name: "repeated headers merged", header: http.Header{"A2a-Extensions": {"urn:a", "urn:b, urn:c"}}, wantVersion: "1.0", wantExt: []string{"urn:a", "urn:b", "urn:c"}},
		{name: "whitespace and empty items", header: http.Header{"A2a-Extensions": {" urn:a ,, urn:b ,", " "}}, wantVersion: "1.0", wantExt: []string{"urn:a", "urn:b"}},
		{name: "duplicates removed, first order kept", header: http.Header{"A2a-Extensions": {"urn:b,urn:a,urn:b", "urn:a"}}, wantVersion: "1.0", wantExt: []string{"urn:b", "urn:a"}},
		{name: "lower-case key merged with canonical", header: http.Header{"A2a-Extensions": {"urn:a"}, "a2a-extensions": {"urn:b"}}, wantVersion: "1.0", wantExt: []string{"urn:a", "urn:b"}},
		{name: "required present", opts: []HandlerOption{WithRequiredExtensions("urn:x", "urn:y")},
			header: http.Header{"A2a-Extensions": {"urn:y, urn:x"}}, wantVersion: "1.0", wantExt: []string{"urn:y", "urn:x"}},
		{name: "required missing", opts: []HandlerOption{WithRequiredExtensions("urn:x", "urn:y")},
			header:  http.Header{"A2a-Extensions": {"urn:x"}},
			wantErr: CodeExtensionSupportRequired, wantMeta: map[string]string{"extensions": "urn:y"}},
		{name: "required all missing", opts: []HandlerOption{WithRequiredExtensions("urn:x"), WithRequiredExtensions("urn:y", "urn:x")},
			wantErr: CodeExtensionSupportRequired, wantMeta: map[string]string{"extensions": "urn:x,urn:y"}},
		{name: "version checked before extensions", opts: []HandlerOption{WithRequiredExtensions("urn:x")},
			header: http.Header{"A2a-Version": {"9.9"}}, wantErr: CodeVersionNotSupported},
	}
	op := &Operation{Name: "GetTask"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newHandlerConfig(append([]HandlerOption{WithSupportedVersions("1.0")}, tt.opts...))
			info, err := c.newCallInfo(BindingJSONRPC, op, tt.header, tt.query)
			if tt.wantErr != 0 {
				if err == nil {
					t.Fatalf("newCallInfo() = %+v, want %v", info, tt.wantErr)
				}
				if err.Code() != tt.wantErr {
					t.Fatalf("error = %v, want code %v", err, tt.wantErr)
				}
				meta := err.Metadata()
				for k, v := range tt.wantMeta {
					if meta[k] != v {
						t.Errorf("metadata[%q] = %q, want %q (error %v)", k, meta[k], v, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("newCallInfo() error = %v", err)
			}
			if info.Version != tt.wantVersion {
				t.Errorf("Version = %q, want %q", info.Version, tt.wantVersion)
			}
			if diff := cmp.Diff(tt.wantExt, info.Extensions); diff != "" {
				t.Errorf("Extensions (-want +got):\n%s", diff)
			}
			if info.Operation != op || info.Binding != BindingJSONRPC {
				t.Errorf("Operation, Binding = %p, %q; want %p, %q", info.Operation, info.Binding, op, BindingJSONRPC)
			}
			if fmt.Sprintf("%p", info.Header) != fmt.Sprintf("%p", tt.header) {
				t.Errorf("Header = %v, want the request's header map %v", info.Header, tt.header)
			}
		})
	}
}

// A missing A2A-Version under the strict policy explains itself, since the
// client never wrote "0.3".
func TestNewCallInfoStrictMessage(t *testing.T) {
	_, err := newHandlerConfig([]HandlerOption{WithSupportedVersions("1.0"), WithVersionPolicy(VersionStrict)}).newCallInfo(BindingHTTPJSON, nil, nil, "")
	if err == nil {
		t.Fatal("want an error")
	}
	const want = "no A2A-Version was sent, which means 0.3, and this interface does not serve it; send A2A-Version: 1.0"
	if err.Message() != want {
		t.Errorf("message = %q, want %q", err.Message(), want)
	}
	if !errors.Is(err, ErrVersionNotSupported) {
		t.Errorf("errors.Is(%v, ErrVersionNotSupported) = false", err)
	}
}

// newCallInfo must not modify the caller's header slices when it merges
// differently spelled keys.
func TestNewCallInfoLeavesHeaderAlone(t *testing.T) {
	canonical := make([]string, 1, 4)
	canonical[0] = "urn:a"
	h := http.Header{"A2a-Extensions": canonical, "a2a-extensions": {"urn:b"}}
	if _, err := newHandlerConfig(nil).newCallInfo(BindingJSONRPC, nil, h, ""); err != nil {
		t.Fatal(err)
	}
	if got := canonical[:cap(canonical)][1]; got != "" {
		t.Errorf("header backing array written: %q", got)
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"1.0", "1.0", true},
		{"0.3", "0.3", true},
		{"1.0.1", "1.0", true},
		{"1.0.0", "1.0", true},
		{" 1.2 ", "1.2", true},
		{"10.20", "10.20", true},
		{"01.00", "1.0", true},
		{"", "", false},
		{"abc", "", false},
		{"1", "", false},
		{"1.", "", false},
		{".1", "", false},
		{"v1.0", "", false},
		{"1.0.x", "", false},
		{"1.0.1.2", "", false},
		{"1.0-rc1", "", false},
		{"1 .0", "", false},
		{"-1.0", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseVersion(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseExtensions(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
	}{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{" , ,"}, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a,b"}, []string{"a", "b"}},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{" a , b ", "c,a"}, []string{"a", "b", "c"}},
		{[]string{"https://ex.com/ext/v1,https://ex.com/ext/v2"}, []string{"https://ex.com/ext/v1", "https://ex.com/ext/v2"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseExtensions(tt.in)); diff != "" {
			t.Errorf("ParseExtensions(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
