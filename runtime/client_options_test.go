package runtime

import (
	"net/http"
	"testing"
)

// TestHTTPMiddlewareSurvivesWithHTTPClient: the middleware wraps the
// client finally chosen, whichever order the options come in, and the
// caller's client is never modified.
func TestHTTPMiddlewareSurvivesWithHTTPClient(t *testing.T) {
	var seen []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, "base")
		return nil, http.ErrHandlerTimeout
	})
	mine := &http.Client{Transport: base}
	wrap := func(name string) ClientOption {
		return WithHTTPMiddleware(func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				seen = append(seen, name)
				return next.RoundTrip(r)
			})
		})
	}
	for _, opts := range [][]ClientOption{
		{wrap("inner"), wrap("outer"), WithHTTPClient(mine)},
		{WithHTTPClient(mine), wrap("inner"), wrap("outer")},
	} {
		seen = nil
		cfg := newClientConfig(opts)
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
		_, _ = cfg.httpClient.Transport.RoundTrip(req)
		if len(seen) != 3 || seen[0] != "outer" || seen[1] != "inner" || seen[2] != "base" {
			t.Errorf("round trip went through %v, want outer, inner, base", seen)
		}
		if cfg.httpClient == mine {
			t.Error("the caller's client was modified")
		}
	}
	if mine.Transport == nil {
		t.Error("the caller's transport was replaced")
	}
}
