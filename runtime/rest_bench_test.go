package runtime

import (
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
	req := httptest.NewRequest(method, target, nil)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	benchHandler(b, NewRESTHandler(newRESTTestService(nil), WithLogger(slogDiscard())), req, body, wantStatus)
}

// BenchmarkRESTUnary is POST /send with a SendMessage-like body of about
// 600 bytes (the body of BenchmarkJSONRPCUnary's params).
func BenchmarkRESTUnary(b *testing.B) {
	benchServeREST(b, http.MethodPost, "/send", benchParams, http.StatusOK)
}

// BenchmarkRESTUnaryBaseline is the work of BenchmarkRESTUnary that any
// binding must do: decode the body, call the handler, encode the result.
func BenchmarkRESTUnaryBaseline(b *testing.B) {
	benchCodecBaseline(b, newRESTTestService(nil))
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
