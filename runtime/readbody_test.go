package runtime

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// readResponseBody reads an announced length in one go and otherwise
// behaves as readLimited: the whole body, a truncated one's error, and the
// limit refused.
func TestReadResponseBody(t *testing.T) {
	resp := func(body string, n int64) *http.Response {
		return &http.Response{Body: io.NopCloser(strings.NewReader(body)), ContentLength: n}
	}
	for _, tt := range []struct {
		name, body string
		n, limit   int64
		want       string
		err        bool
	}{
		{"announced", `{"a":1}`, 7, 100, `{"a":1}`, false},
		{"empty", ``, 0, 100, ``, false},
		{"unknown length", `{"a":1}`, -1, 100, `{"a":1}`, false},
		{"longer than announced", `{"a":1}xyz`, 7, 100, `{"a":1}xyz`, false},
		{"announced over the limit", `0123456789`, 10, 5, ``, true},
		{"longer than the limit", `0123456789`, 3, 5, ``, true},
		{"announced at the limit, longer", `0123456789`, 5, 5, ``, true},
		{"announced under the limit, longer up to it", `01234`, 3, 5, `01234`, false},
	} {
		got, err := readResponseBody(resp(tt.body, tt.n), tt.limit)
		if (err != nil) != tt.err || string(got) != tt.want || err != nil && !strings.Contains(err.Error(), "limit of 5 bytes") {
			t.Errorf("%s: %q, %v; want %q, error %v", tt.name, got, err, tt.want, tt.err)
		}
	}
	// A body that ends before its announced length.
	_, err := readResponseBody(resp(`{"a"`, 7), 100)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated body: %v, want io.ErrUnexpectedEOF", err)
	}
}

// readBody (the server's) reads an announced length in one go, a body
// longer than announced or of unknown length under the limit, and refuses
// what goes over it with an *http.MaxBytesError naming the limit.
func TestReadBody(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		n, limit   int64
		want       string
		err        bool
	}{
		{"announced", `{"a":1}`, 7, 100, `{"a":1}`, false},
		{"empty", ``, 0, 100, ``, false},
		{"unknown length", `{"a":1}`, -1, 100, `{"a":1}`, false},
		{"unknown length over the limit", `0123456789`, -1, 5, ``, true},
		{"longer than announced", `{"a":1}xyz`, 7, 100, `{"a":1}xyz`, false},
		{"announced over the limit", `0123456789`, 10, 5, ``, true},
		{"longer than the limit", `0123456789`, 3, 5, ``, true},
		{"announced at the limit, longer", `0123456789`, 5, 5, ``, true},
		{"announced under the limit, longer up to it", `01234`, 3, 5, `01234`, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
		r.ContentLength = tt.n
		got, err := readBody(httptest.NewRecorder(), r, tt.limit)
		var over *http.MaxBytesError
		if (err != nil) != tt.err || err == nil && string(got) != tt.want || err != nil && (!errors.As(err, &over) || over.Limit != tt.limit) {
			t.Errorf("%s: %q, %v; want %q, error %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}
