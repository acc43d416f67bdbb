package runtime

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMuxMountPoint(t *testing.T) {
	for pattern, want := range map[string]string{
		"/":                     "[]",
		"/a2a/rest/":            "[{a2a false} {rest false}]",
		"POST /a2a/rest/":       "[{a2a false} {rest false}]",
		"GET example.com/a2a/":  "[{a2a false}]",
		"/agents/{agent}/rest/": "[{agents false} { true} {rest false}]",
		"/a2a/{rest...}":        "[{a2a false}]",
		"/a%20b/":               "[{a b false}]",
		"/a2a/rest":             "[]",
		"/a2a/rest/{$}":         "[]",
		"example.com":           "[]",
	} {
		if got := fmt.Sprint(muxMountPoint(pattern)); got != want {
			t.Errorf("muxMountPoint(%q) = %s, want %s", pattern, got, want)
		}
	}
}

// TestRESTMountPoints serves the fixture at several mount points and checks
// which requests reach the routes.
func TestRESTMountPoints(t *testing.T) {
	h := func(opts ...HandlerOption) http.Handler {
		return NewRESTHandler(newRESTTestService(nil), append([]HandlerOption{WithLogger(slogDiscard())}, opts...)...)
	}
	mux := http.NewServeMux()
	mux.Handle("/a2a/rest/", h())
	mux.Handle("GET /agents/{agent}/rest/", h())
	mux.Handle("/tail/{rest...}", h())
	mux.Handle("/exact/deep/echo/x", h())
	mux.Handle("/stripped/", http.StripPrefix("/stripped", h()))
	mux.Handle("/given/", h(WithPathPrefix("/given")))
	mux.Handle("/off/", h(WithPathPrefix("")))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for path, want := range map[string]int{
		"/a2a/rest/echo/x":          200,
		"/a2a/rest/a2a/rest/echo/x": 404, // the mount point is removed once
		"/agents/a1/rest/echo/x":    200,
		"/tail/echo/x":              200,
		"/exact/deep/echo/x":        404, // an exact pattern gives no mount point
		"/stripped/echo/x":          200,
		"/stripped/t/echo/x":        200,
		"/given/echo/x":             200,
		"/off/deep/echo/x":          404, // detection off: the path is not a route
		"/off/echo/x":               200, // … but this is the route of tenant "off"
		"/a2a/rest/":                404,
		"/a2a/rest/nope":            404,
	} {
		resp, raw := restDo(t, "GET", srv.URL+path, "")
		if resp.StatusCode != want {
			t.Errorf("GET %s: HTTP %d, want %d: %s", path, resp.StatusCode, want, raw)
		}
	}
	direct := httptest.NewServer(h(WithPathPrefix("/x/y/")))
	defer direct.Close()
	for path, want := range map[string]int{"/x/y/echo/a": 200, "/echo/a": 404, "/x/echo/a": 404, "/x/y": 404} {
		if resp, raw := restDo(t, "GET", direct.URL+path, ""); resp.StatusCode != want {
			t.Errorf("WithPathPrefix, GET %s: HTTP %d, want %d: %s", path, resp.StatusCode, want, raw)
		}
	}
}
