package server_test

import (
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// manyParts is a user message of n one-character text parts, in context
// contextID.
func manyParts(n int, contextID string) *a2av1.Message {
	m := userMsg("x")
	m.ContextId = contextID
	m.Parts = make([]*a2av1.Part, n)
	for i := range m.Parts {
		m.Parts[i] = server.TextPart("x")
	}
	return m
}

// tasksIn is how many tasks ListTasks shows in contextID.
func tasksIn(t *testing.T, c a2av1.A2AServiceClient, contextID string) int32 {
	t.Helper()
	page, err := c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{ContextId: contextID})
	if err != nil {
		t.Fatalf("ListTasks: %v", err)
	}
	return page.GetTotalSize()
}

// TestMessagePartsAreBounded: a client message with more parts than
// WithMaxPartsPerMessage — by default 1,000 — is InvalidParams naming
// MaxPartsPerMessage, on SendMessage and SendStreamingMessage, and creates
// no task (before, one anonymous connection sending 350,000 one-character
// parts per request kept about 35 MB of heap per request in the memory
// store); as many as the limit are accepted.
func TestMessagePartsAreBounded(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: manyParts(server.DefaultMaxPartsPerMessage+1, "parts")})
		wantLimit(t, "a message over the default", err, runtime.ErrInvalidParams, "MaxPartsPerMessage", server.DefaultMaxPartsPerMessage)
		_, err = openStream(t, e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: manyParts(server.DefaultMaxPartsPerMessage+1, "parts")}))
		wantLimit(t, "a streamed message over the default", err, runtime.ErrInvalidParams, "MaxPartsPerMessage", server.DefaultMaxPartsPerMessage)
		if n := tasksIn(t, e.c, "parts"); n != 0 {
			t.Fatalf("refused messages created %d tasks", n)
		}
		send(t, e.c, &a2av1.SendMessageRequest{Message: manyParts(server.DefaultMaxPartsPerMessage, "parts")})

		e = newEnv(t, b, nil, nil, server.WithMaxPartsPerMessage(3))
		_, err = e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: manyParts(4, "")})
		wantLimit(t, "4 parts", err, runtime.ErrInvalidParams, "MaxPartsPerMessage", 3)
		send(t, e.c, &a2av1.SendMessageRequest{Message: manyParts(3, "")})
	})
}

// TestManyPartsAreRefusedBeforeDecoding: a message of more parts than
// runtime.MaxJSONValues allows values (two a part) is refused by the
// binding before it is decoded, with InvalidRequest naming MaxJSONValues,
// on every binding (gRPC with runtime.GRPCServerCodec): it never costs the
// heap of its decoded parts.
func TestManyPartsAreRefusedBeforeDecoding(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: manyParts(runtime.MaxJSONValues/2+10, "")})
		wantLimit(t, "a message of too many values", err, runtime.ErrInvalidRequest, "MaxJSONValues", runtime.MaxJSONValues)
	})
}

// TestMessageBytesAreBounded: a client message larger (protobuf size) than
// WithMaxMessageBytes is InvalidParams naming MaxMessageBytes.
func TestMessageBytesAreBounded(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil, server.WithMaxMessageBytes(1000))
		_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(strings.Repeat("x", 1000))})
		wantLimit(t, "a 1000-character text", err, runtime.ErrInvalidParams, "MaxMessageBytes", 1000)
		send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg(strings.Repeat("x", 900))})
	})
}

// TestTaskBytesAreBounded: a client message that would take a task's
// history and artifacts beyond WithMaxTaskBytes is InvalidParams naming
// MaxTaskBytes (before, 40 input messages of 7 MB kept 460 MB for a day),
// and the task keeps what it had.
func TestTaskBytesAreBounded(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, busyExecutor(), nil, server.WithMaxTaskBytes(3000), server.WithMaxFollowUpsPerTask(-1))
		text := strings.Repeat("x", 1000)
		resp, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(text),
			Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
		if err != nil {
			t.Fatal(err)
		}
		id := resp.GetTask().GetId()
		followOnce := func() error {
			_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp(text, id),
				Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
			return err
		}
		if err := followOnce(); err != nil {
			t.Fatalf("the second 1000-byte message: %v", err)
		}
		wantLimit(t, "the third 1000-byte message", followOnce(), runtime.ErrInvalidParams, "MaxTaskBytes", 3000)
		task, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: id})
		if err != nil || len(task.GetHistory()) != 2 {
			t.Fatalf("GetTask: %d messages, %v; want 2", len(task.GetHistory()), err)
		}
		// A message alone over the task budget never starts a task.
		_, err = e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(strings.Repeat("x", 3000))})
		wantLimit(t, "a first message over the task budget", err, runtime.ErrInvalidParams, "MaxTaskBytes", 3000)
	})
}

// TestAnonymousStreamsLeaveRoomForIdentifiedCallers: callers without an
// identity hold at most WithMaxAnonymousStreams streams together; one more
// is ResourceExhausted naming MaxAnonymousStreams, and identified callers
// can still stream (before, anonymous callers could take every MaxStreams
// slot and others' streaming sends got -31429).
func TestAnonymousStreamsLeaveRoomForIdentifiedCallers(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, busyExecutor(), nil, server.WithMaxStreams(4), server.WithMaxAnonymousStreams(2), server.WithTaskOwner(server.OwnerByCallerID))
		stream := func(c a2av1.A2AServiceClient) (func(), error) {
			return openStream(t, c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("work")}))
		}
		for i := range 2 {
			stop, err := stream(e.c)
			if err != nil {
				t.Fatalf("anonymous stream %d: %v", i, err)
			}
			defer stop()
		}
		_, err := stream(e.c)
		wantLimit(t, "a third anonymous stream", err, runtime.ErrResourceExhausted, "MaxAnonymousStreams", 2)
		_, err = openStream(t, e.c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: startBusy(t, e.c)}))
		wantLimit(t, "a third anonymous stream by SubscribeToTask", err, runtime.ErrResourceExhausted, "MaxAnonymousStreams", 2)
		for _, who := range []string{"alice", "bob"} {
			stop, err := stream(e.client(runtime.WithHeader("Authorization", "Bearer "+who)))
			if err != nil {
				t.Fatalf("%s's stream next to the anonymous ones: %v", who, err)
			}
			defer stop()
		}
	})
}
