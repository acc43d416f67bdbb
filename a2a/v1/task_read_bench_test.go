package a2av1_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// generationTaskAgent answers GetTask with a fixed task that carries A2A
// 1.1's generations: the task's, its artifact's and its timeline's.
type generationTaskAgent struct {
	a2av1.UnimplementedA2AServiceHandler
	task *a2av1.Task
}

func (a generationTaskAgent) GetTask(context.Context, *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	return a.task, nil
}

func newGenerationTask() *a2av1.Task {
	now := timestamppb.Now()
	return &a2av1.Task{Id: "0b8f6d7e-task", ContextId: "ctx-7f3e2d1c", Generation: 7,
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: now},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a-1", StartGeneration: 3, EndGeneration: 7,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "Echo: Summarise the attached quarterly report."}}}}}}
}

// inProcess is an http.RoundTripper that serves each request with h in the
// calling goroutine, through httptest.ResponseRecorder: a client and a
// handler without sockets, whose instruction count callgrind can repeat.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// BenchmarkClientGetTask11 is a generated client at A2A-Version 1.1 reading
// a task with generations (int64 fields, written as JSON strings) over
// JSON-RPC and HTTP+JSON: client encode, handler, client decode, in one
// goroutine (inProcess); the handler serves the 1.1 draft beside 1.0.
func BenchmarkClientGetTask11(b *testing.B) {
	agent := generationTaskAgent{task: newGenerationTask()}
	for _, bd := range []struct {
		name    string
		handler func(a2av1.A2AServiceHandler, ...runtime.HandlerOption) http.Handler
		client  func(string, ...runtime.ClientOption) a2av1.A2AServiceClient
	}{
		{"JSONRPC", a2av1.NewA2AServiceJSONRPCHandler, a2av1.NewA2AServiceJSONRPCClient},
		{"REST", a2av1.NewA2AServiceRESTHandler, a2av1.NewA2AServiceRESTClient},
	} {
		b.Run(bd.name, func(b *testing.B) {
			c := bd.client("http://agent.test", runtime.WithProtocolVersion("1.1"),
				runtime.WithHTTPClient(&http.Client{Transport: inProcess{bd.handler(agent, runtime.WithSupportedVersions("1.1", "1.0"))}}))
			req := &a2av1.GetTaskRequest{Id: "0b8f6d7e-task"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				task, err := c.GetTask(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if task.GetGeneration() != 7 || task.GetArtifacts()[0].GetEndGeneration() != 7 {
					b.Fatalf("read %v, want the generations", task)
				}
			}
		})
	}
}
