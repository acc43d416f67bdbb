package a2av1_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

func TestPartConstructors(t *testing.T) {
	if got := a2av1.NewTextPart("hi").GetText(); got != "hi" {
		t.Errorf("text part %q", got)
	}
	data, err := a2av1.NewDataPart(map[string]any{"n": 1, "tags": []any{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if data.GetData().GetStructValue().GetFields()["n"].GetNumberValue() != 1 || data.GetMediaType() != "application/json" {
		t.Errorf("data part %v", data)
	}
	if _, err := a2av1.NewDataPart(make(chan int)); err == nil {
		t.Error("a channel became a data part")
	}
	js, err := a2av1.NewJSONDataPart([]byte(`[1, "x"]`))
	if err != nil || len(js.GetData().GetListValue().GetValues()) != 2 {
		t.Errorf("JSON data part %v, %v", js, err)
	}
	if _, err := a2av1.NewJSONDataPart([]byte(`{"a":`)); err == nil {
		t.Error("broken JSON became a data part")
	}
	file := a2av1.NewFilePart("a.txt", "text/plain", []byte("abc"))
	if string(file.GetRaw()) != "abc" || file.GetFilename() != "a.txt" || file.GetMediaType() != "text/plain" {
		t.Errorf("file part %v", file)
	}
	u := a2av1.NewFileURLPart("https://example.com/a.pdf", "a.pdf", "application/pdf")
	if u.GetUrl() != "https://example.com/a.pdf" || u.GetFilename() != "a.pdf" {
		t.Errorf("URL part %v", u)
	}
}

func TestMessageConstructors(t *testing.T) {
	m := a2av1.NewTextMessage("hello")
	if m.GetRole() != a2av1.Role_ROLE_USER || m.Text() != "hello" || len(m.GetMessageId()) != 36 {
		t.Errorf("text message %v", m)
	}
	if other := a2av1.NewTextMessage("hello"); other.GetMessageId() == m.GetMessageId() {
		t.Error("two messages got the same id")
	}
	task := &a2av1.Task{Id: "t1", ContextId: "c1"}
	f := a2av1.NewFollowUp(task, a2av1.NewTextPart("a"), a2av1.NewFilePart("", "", []byte{1}), a2av1.NewTextPart("b"))
	if f.GetTaskId() != "t1" || f.GetContextId() != "c1" || f.Text() != "ab" || f.GetRole() != a2av1.Role_ROLE_USER {
		t.Errorf("follow-up %v", f)
	}
	if n := a2av1.NewFollowUp(nil, a2av1.NewTextPart("x")); n.GetTaskId() != "" || n.GetContextId() != "" {
		t.Errorf("follow-up of no task %v", n)
	}
	if req := a2av1.NewSendMessageRequest(m); req.GetMessage() != m {
		t.Errorf("request %v", req)
	}
	var nilMsg *a2av1.Message
	if nilMsg.Text() != "" || (*a2av1.Artifact)(nil).Text() != "" || (*a2av1.Task)(nil).LastMessage() != nil {
		t.Error("accessors of nil are not empty")
	}
	withStatus := &a2av1.Task{Status: &a2av1.TaskStatus{Message: a2av1.NewTextMessage("status")}}
	if withStatus.LastMessage().Text() != "status" {
		t.Error("LastMessage without history is not the status message")
	}
	withStatus.History = []*a2av1.Message{a2av1.NewTextMessage("first"), a2av1.NewTextMessage("last")}
	if withStatus.LastMessage().Text() != "last" {
		t.Error("LastMessage is not the last of the history")
	}
}

func TestTaskStatePredicates(t *testing.T) {
	for v := range a2av1.TaskState_name {
		s := a2av1.TaskState(v)
		terminal := s == a2av1.TaskState_TASK_STATE_COMPLETED || s == a2av1.TaskState_TASK_STATE_FAILED ||
			s == a2av1.TaskState_TASK_STATE_CANCELED || s == a2av1.TaskState_TASK_STATE_REJECTED
		interrupted := s == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || s == a2av1.TaskState_TASK_STATE_AUTH_REQUIRED
		active := s == a2av1.TaskState_TASK_STATE_SUBMITTED || s == a2av1.TaskState_TASK_STATE_WORKING
		if s.Terminal() != terminal || s.Interrupted() != interrupted || s.Active() != active {
			t.Errorf("%v: Terminal %v Interrupted %v Active %v", s, s.Terminal(), s.Interrupted(), s.Active())
		}
	}
	if a2av1.TaskState_TASK_STATE_INPUT_REQUIRED.Short() != "INPUT_REQUIRED" || a2av1.TaskState(99).Short() != "99" {
		t.Errorf("Short: %q, %q", a2av1.TaskState_TASK_STATE_INPUT_REQUIRED.Short(), a2av1.TaskState(99).Short())
	}
}

func TestResponseAccessors(t *testing.T) {
	working := &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Message: &a2av1.Message{Parts: []*a2av1.Part{a2av1.NewTextPart("on it")}}}
	task := &a2av1.Task{Id: "t", ContextId: "c", Status: working}
	msg := &a2av1.Message{TaskId: "t", ContextId: "c", Parts: []*a2av1.Part{a2av1.NewTextPart("hi")}}
	art := &a2av1.Artifact{Parts: []*a2av1.Part{a2av1.NewTextPart("chunk")}}
	events := []struct {
		ev    *a2av1.StreamResponse
		state a2av1.TaskState
		text  string
	}{
		{&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: task}}, a2av1.TaskState_TASK_STATE_WORKING, "on it"},
		{&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Message{Message: msg}}, a2av1.TaskState_TASK_STATE_UNSPECIFIED, "hi"},
		{&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t", ContextId: "c", Status: working}}}, a2av1.TaskState_TASK_STATE_WORKING, "on it"},
		{&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t", ContextId: "c", Artifact: art}}}, a2av1.TaskState_TASK_STATE_UNSPECIFIED, "chunk"},
	}
	for _, e := range events {
		if e.ev.TaskID() != "t" || e.ev.ContextID() != "c" || e.ev.State() != e.state || e.ev.Text() != e.text {
			t.Errorf("%v: TaskID %q ContextID %q State %v Text %q", e.ev, e.ev.TaskID(), e.ev.ContextID(), e.ev.State(), e.ev.Text())
		}
	}
	var none *a2av1.StreamResponse
	if none.TaskID() != "" || none.State() != a2av1.TaskState_TASK_STATE_UNSPECIFIED || none.Text() != "" {
		t.Error("accessors of a nil event are not empty")
	}

	done := proto.CloneOf(task)
	done.Status = &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}
	done.Artifacts = []*a2av1.Artifact{art, {Parts: []*a2av1.Part{a2av1.NewTextPart("two"), {Content: &a2av1.Part_Data{Data: structpb.NewNullValue()}}}}}
	r := &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: done}}
	if r.TaskID() != "t" || r.ContextID() != "c" || r.State() != a2av1.TaskState_TASK_STATE_COMPLETED || r.Text() != "chunk\ntwo" {
		t.Errorf("task answer: %q %q %v %q", r.TaskID(), r.ContextID(), r.State(), r.Text())
	}
	r = &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Message{Message: msg}}
	if r.TaskID() != "t" || r.ContextID() != "c" || r.State() != a2av1.TaskState_TASK_STATE_UNSPECIFIED || r.Text() != "hi" {
		t.Errorf("message answer: %q %q %v %q", r.TaskID(), r.ContextID(), r.State(), r.Text())
	}
}

// TestCloseOnEveryBinding closes a working client of every binding and
// checks that unary calls and streams then fail with ErrClientClosed, the
// same error on each, and that Close may be called again.
func TestCloseOnEveryBinding(t *testing.T) {
	ctx := context.Background()
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			srv := b.serve(t, newAgentWithCard())
			c, _ := b.connect(t, srv.addr, true, b.clientOptions(nil)...)
			if _, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{}); err != nil {
				t.Fatal(err)
			}
			// A stream made before Close and ranged after it sends nothing.
			early := c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "t"})
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if _, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{}); !errors.Is(err, runtime.ErrClientClosed) {
				t.Errorf("unary call after Close: %v, want ErrClientClosed", err)
			}
			for _, stream := range []func(func(*a2av1.StreamResponse, error) bool){
				early, c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("x"))),
			} {
				n := 0
				for _, err := range stream {
					n++
					if !errors.Is(err, runtime.ErrClientClosed) {
						t.Errorf("stream after Close: %v, want ErrClientClosed", err)
					}
				}
				if n != 1 {
					t.Errorf("stream after Close yielded %d times, want once", n)
				}
			}
		})
	}
}

// TestCloseOfOwnedGRPCConnection: NewA2AServiceGRPCClient's Close closes
// the connection it opened.
func TestCloseOfOwnedGRPCConnection(t *testing.T) {
	srv := serveGRPC(t, newAgentWithCard())
	c, err := a2av1.NewA2AServiceGRPCClient(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTasks(context.Background(), &a2av1.ListTasksRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTasks(context.Background(), &a2av1.ListTasksRequest{}); !errors.Is(err, runtime.ErrClientClosed) {
		t.Errorf("after Close: %v", err)
	}
}
