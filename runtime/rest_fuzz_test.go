package runtime

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzRESTRequest feeds arbitrary verbs, paths, query strings and bodies to
// the HTTP+JSON handler: it must never panic, and every answer that is not
// a 2xx must be a Status document whose code is the HTTP status.
func FuzzRESTRequest(f *testing.F) {
	for _, s := range [][4]string{
		{"GET", "/echo/hi", "count=3&activate=a,b", ""},
		{"POST", "/send", "", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`},
		{"PUT", "/messages/m", "", `{"role":1}`},
		{"GET", "/stream:watch", "count=2&fail=TaskNotFound&failAfter=1", ""},
		{"POST", "/stream", "", `{"count":3,"fail":"panic","failAfter":2}`},
		{"GET", "/count/99999999999", "", ""},
		{"DELETE", "/acme/echo/x", "", ""},
		{"POST", "/echo", "A2A-Version=9", `{"text":"\u0000"}`},
		{"GET", "/fail/plain", "", ""},
		{"PATCH", "/%zz", "%zz", "{"},
	} {
		f.Add(s[0], s[1], s[2], []byte(s[3]))
	}
	h := NewRESTHandler(fuzzRESTService(), WithLogger(slogDiscard()), WithMaxBodyBytes(1<<12))
	f.Fuzz(func(t *testing.T, method, path, query string, body []byte) {
		if !validMethod(method) {
			return
		}
		req := httptest.NewRequest(http.MethodGet, "/", bytes.NewReader(body))
		req.Method = method
		req.URL = &url.URL{Path: path, RawQuery: query}
		if u, err := url.Parse(path); err == nil && u.Path != "" {
			req.URL.Path, req.URL.RawPath = u.Path, u.RawPath
		}
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 200 && rec.Code < 300 {
			return
		}
		var st statusDocument
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Error.Code != rec.Code || st.Error.Status == "" || len(st.Error.Details) == 0 {
			t.Fatalf("%s %q ?%q: HTTP %d with body %s (%v)", method, path, query, rec.Code, rec.Body.Bytes(), err)
		}
	})
}

// fuzzRESTService is the REST fixture without Block, whose handler waits
// for a context that a ResponseRecorder never cancels.
func fuzzRESTService() *Service {
	svc := newRESTTestService(nil)
	return NewService(svc.Desc, svc.Endpoints[:len(svc.Endpoints)-1]...)
}

// validMethod accepts the tokens net/http would let through as a method.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte("()<>@,;:\\\"/[]?={}"), c) >= 0 {
			return false
		}
	}
	return true
}
