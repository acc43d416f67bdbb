package a2av1_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The benchmarks measure the generated JSON-RPC binding in process, through
// httptest.ResponseRecorder, with the generated a2av1 types. Router overhead
// = BenchmarkJSONRPCSendMessage − BenchmarkJSONRPCSendMessageProtoJSONOnly,
// the latter being the protojson decode of the params and encode of the
// result that any binding has to do.

const benchSendParams = `{"message":{"messageId":"9b6a1f0e-3c2d-4e5f-8a7b-1c2d3e4f5a6b","contextId":"ctx-7f3e2d1c","role":"ROLE_USER",` +
	`"parts":[{"text":"Summarise the attached quarterly report in three bullet points."},{"text":"Q3 revenue grew 12%.","mediaType":"text/plain"}],` +
	`"metadata":{"source":"web","priority":2}},"configuration":{"historyLength":1}}`

// fixedAgent answers SendMessage with a prepared task and streams n events.
type fixedAgent struct {
	a2av1.UnimplementedA2AServiceHandler
	resp   *a2av1.SendMessageResponse
	events []*a2av1.StreamResponse
}

func newFixedAgent() *fixedAgent {
	now := timestamppb.Now()
	task := &a2av1.Task{Id: "0b8f6d7e-task", ContextId: "ctx-7f3e2d1c",
		Status:    &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: now},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a-1", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "Echo: Summarise the attached quarterly report."}}}}}}
	a := &fixedAgent{resp: &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}}
	for range 10 {
		a.events = append(a.events, &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
			TaskId: task.Id, ContextId: task.ContextId, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: now}}}})
	}
	return a
}

func (a *fixedAgent) SendMessage(context.Context, *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	return a.resp, nil
}

func (a *fixedAgent) SendStreamingMessage(_ context.Context, _ *a2av1.SendMessageRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	for _, ev := range a.events {
		if err := s.Send(ev); err != nil {
			return err
		}
	}
	return nil
}

func benchJSONRPC(b *testing.B, method string) {
	h := a2av1.NewA2AServiceJSONRPCHandler(newFixedAgent(), runtime.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	body := `{"jsonrpc":"2.0","id":"7d9f2c4e-1a2b-4c3d","method":"` + method + `","params":` + benchSendParams + `}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkJSONRPCSendMessage is one unary call through the generated handler.
func BenchmarkJSONRPCSendMessage(b *testing.B) { benchJSONRPC(b, "SendMessage") }

// BenchmarkJSONRPCSendStreamingMessage is one stream of ten events.
func BenchmarkJSONRPCSendStreamingMessage(b *testing.B) { benchJSONRPC(b, "SendStreamingMessage") }

// BenchmarkJSONRPCSendMessageProtoJSONOnly is the codec work alone: decode the
// params into a SendMessageRequest and encode the response.
func BenchmarkJSONRPCSendMessageProtoJSONOnly(b *testing.B) {
	resp := newFixedAgent().resp
	params := []byte(benchSendParams)
	b.ReportAllocs()
	for b.Loop() {
		var req a2av1.SendMessageRequest
		if err := protojson.Unmarshal(params, &req); err != nil {
			b.Fatal(err)
		}
		if _, err := protojson.Marshal(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecorderOnly is the cost of httptest's request and recorder, which
// the handler benchmarks include but a real server does not pay.
func BenchmarkRecorderOnly(b *testing.B) {
	body := `{"jsonrpc":"2.0"}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		rec.WriteHeader(http.StatusOK)
		_, _ = rec.Write([]byte(body))
	}
}
