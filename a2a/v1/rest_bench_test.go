package a2av1_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The HTTP+JSON benchmarks mirror the JSON-RPC ones (jsonrpc_bench_test.go):
// the generated handler in process through httptest.ResponseRecorder, with
// the generated a2av1 types. Router overhead = BenchmarkRESTSendMessage −
// BenchmarkJSONRPCSendMessageProtoJSONOnly (the codec work any binding does)
// − BenchmarkRecorderOnly (httptest's own cost).

func benchREST(b *testing.B, method, target, body string) {
	h := a2av1.NewA2AServiceRESTHandler(newFixedAgent(), runtime.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkRESTSendMessage is one unary call, POST /message:send.
func BenchmarkRESTSendMessage(b *testing.B) {
	benchREST(b, http.MethodPost, "/message:send", benchSendParams)
}

// BenchmarkRESTSendMessageTenant is the same call on the /{tenant} route.
func BenchmarkRESTSendMessageTenant(b *testing.B) {
	benchREST(b, http.MethodPost, "/acme/message:send", benchSendParams)
}

// BenchmarkRESTSendStreamingMessage is one stream of ten events.
func BenchmarkRESTSendStreamingMessage(b *testing.B) {
	benchREST(b, http.MethodPost, "/message:stream", benchSendParams)
}

// getTaskAgent answers GetTask with a fixed task.
type getTaskAgent struct{ *fixedAgent }

func (a getTaskAgent) GetTask(context.Context, *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	return a.resp.GetTask(), nil
}

// BenchmarkRESTGetTask is GET /{tenant}/tasks/{id}?historyLength=…: path and
// query binding, no body.
func BenchmarkRESTGetTask(b *testing.B) {
	h := a2av1.NewA2AServiceRESTHandler(getTaskAgent{newFixedAgent()})
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/acme/tasks/0b8f6d7e-task?historyLength=5", nil)
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
		}
	}
}
