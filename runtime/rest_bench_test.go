package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The HTTP+JSON benchmarks drive the handler in process like the JSON-RPC
// ones (benchWriter, benchBody). Router overhead per unary call is
// BenchmarkRESTUnary minus BenchmarkRESTUnaryBaseline, which does the same
// decode, handler call and encode without the binding; BenchmarkRESTUnaryEmpty
// is an upper bound of it that does not depend on two large measurements.

func benchServeREST(b *testing.B, method, target, body string, wantStatus int) {
	h := NewRESTHandler(newRESTTestService(nil), WithLogger(slogDiscard()))
	data := []byte(body)
	rb := &benchBody{}
	req := httptest.NewRequest(method, target, nil)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("A2A-Version", "1.0")
	w := &benchWriter{h: make(http.Header)}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rb.Reset(data)
		req.Body, req.ContentLength = rb, int64(len(data))
		clear(w.h)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
	}
	if w.status != wantStatus || w.n == 0 {
		b.Fatalf("status %d, %d bytes", w.status, w.n)
	}
}

// BenchmarkRESTUnary is POST /send with a SendMessage-like body of about
// 600 bytes (the body of BenchmarkJSONRPCUnary's params).
func BenchmarkRESTUnary(b *testing.B) {
	benchServeREST(b, http.MethodPost, "/send", benchParams, http.StatusOK)
}

// BenchmarkRESTUnaryBaseline is the work of BenchmarkRESTUnary that any
// binding must do: decode the body, call the handler, encode the result.
func BenchmarkRESTUnaryBaseline(b *testing.B) {
	svc := newRESTTestService(nil)
	ep := svc.Endpoint("Send")
	body := []byte(benchParams)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := ep.NewRequest()
		if err := unmarshalJSON(body, req); err != nil {
			b.Fatal(err)
		}
		resp, err := ep.CallUnary(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := marshalJSON(resp, svc.Desc.Required); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRESTUnaryEmpty is DELETE /items/{text}: a path variable, an
// empty request and response, so that its time is almost all router.
func BenchmarkRESTUnaryEmpty(b *testing.B) {
	benchServeREST(b, http.MethodDelete, "/items/x", "", http.StatusOK)
}

// BenchmarkRESTUnaryGET is GET /{tenant}/echo/{text} with query fields: path
// and query binding, no body.
func BenchmarkRESTUnaryGET(b *testing.B) {
	benchServeREST(b, http.MethodGet, "/acme/echo/hello?count=3&failAfter=2", "", http.StatusOK)
}

// BenchmarkRESTStream serves one stream of 10 events.
func BenchmarkRESTStream(b *testing.B) {
	benchServeREST(b, http.MethodPost, "/stream", `{"count":10,"text":"a status update of moderate length"}`, http.StatusOK)
}
