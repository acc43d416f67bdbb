package runtime

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The benchmarks drive the handler in process with a minimal ResponseWriter,
// so that neither sockets nor httptest.ResponseRecorder (which clones headers
// and buffers) are measured. Router overhead per unary call is
// BenchmarkJSONRPCUnary minus BenchmarkJSONRPCUnaryBaseline, which does the
// same decode, handler call and encode without the binding.

// benchParams is a SendMessage-like request: a message with two parts and
// metadata, about 600 bytes.
const benchParams = `{"message":{"messageId":"9b6a1f0e-3c2d-4e5f-8a7b-1c2d3e4f5a6b","contextId":"ctx-7f3e2d1c","role":"ROLE_USER",` +
	`"parts":[{"text":"Summarise the attached quarterly report in three bullet points and flag any risks mentioned by the auditors."},` +
	`{"text":"Q3 revenue grew 12% year over year.","mediaType":"text/plain"}],` +
	`"metadata":{"source":"web","priority":2,"tags":["finance","summary"]}},` +
	`"metadata":{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","client":"bench"}}`

const benchUnaryBody = `{"jsonrpc":"2.0","id":"7d9f2c4e-1a2b-4c3d-9e8f-0a1b2c3d4e5f","method":"Send","params":` + benchParams + `}`

type benchWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }
func (w *benchWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *benchWriter) Flush()                      {}

// benchBody is a request body that can be rewound without allocating.
type benchBody struct{ bytes.Reader }

func (*benchBody) Close() error { return nil }

func benchServe(b *testing.B, body string, wantStatus int) {
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Header.Set("Content-Type", "application/json")
	benchHandler(b, NewJSONRPCHandler(newTestService(nil), WithLogger(slogDiscard())), req, body, wantStatus)
}

// benchHandler serves req, with body as its body, again and again, and
// checks the last answer's status.
func benchHandler(b *testing.B, h http.Handler, req *http.Request, body string, wantStatus int) {
	data := []byte(body)
	rb := &benchBody{}
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

func BenchmarkJSONRPCUnary(b *testing.B) {
	benchServe(b, benchUnaryBody, http.StatusOK)
}

// BenchmarkJSONRPCUnaryBaseline is the work of BenchmarkJSONRPCUnary that
// any binding must do: decode the params, call the handler, encode the result.
func BenchmarkJSONRPCUnaryBaseline(b *testing.B) {
	benchCodecBaseline(b, newTestService(nil))
}

// benchCodecBaseline decodes benchParams into the request of svc's "Send"
// endpoint, calls it and encodes the result: the work of a unary call that
// does not depend on the binding.
func benchCodecBaseline(b *testing.B, svc *Service) {
	ep := svc.Endpoint("Send")
	params := []byte(benchParams)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := ep.NewRequest()
		if err := unmarshalJSON(params, req); err != nil {
			b.Fatal(err)
		}
		resp, err := ep.CallUnary(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := marshalJSON(resp, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONRPCUnaryEmpty calls an rpc whose request and response are
// empty, so that codec and handler cost next to nothing: its time is an
// upper bound of the router overhead that does not depend on the noise of
// two large measurements.
func BenchmarkJSONRPCUnaryEmpty(b *testing.B) {
	benchServe(b, `{"jsonrpc":"2.0","id":"7d9f2c4e-1a2b-4c3d-9e8f-0a1b2c3d4e5f","method":"Delete","params":{}}`, http.StatusOK)
}

// BenchmarkJSONRPCStream serves one stream of 10 events.
func BenchmarkJSONRPCStream(b *testing.B) {
	benchServe(b, `{"jsonrpc":"2.0","id":1,"method":"Stream","params":{"count":10,"text":"a status update of moderate length"}}`, http.StatusOK)
}

// BenchmarkJSONRPCEnvelope is the envelope decoding of BenchmarkJSONRPCUnary
// alone: JSON validation of the whole body and the member scan.
func BenchmarkJSONRPCEnvelope(b *testing.B) {
	body := []byte(benchUnaryBody)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, e := parseRequest(body); e != nil {
			b.Fatal(e)
		}
	}
}
