package server_test

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// busyExecutor works until its call ends and never takes a follow-up.
func busyExecutor() server.Executor {
	return server.ExecutorFunc(func(ctx context.Context, _ *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		<-ctx.Done()
		return context.Cause(ctx)
	})
}

// wantLimit checks that err is the error of sentinel's code naming limit
// with value.
func wantLimit(t *testing.T, what string, err error, sentinel *runtime.Error, limit string, value int) {
	t.Helper()
	wantCode(t, what, err, sentinel)
	var re *runtime.Error
	if !errors.As(err, &re) || re.Metadata()["limit"] != limit || re.Metadata()["limitValue"] != strconv.Itoa(value) {
		t.Fatalf("%s: %v does not name %s = %d", what, err, limit, value)
	}
}

func startBusy(t *testing.T, c a2av1.A2AServiceClient) string {
	t.Helper()
	resp, err := c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("work"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetTask().GetId()
}

// TestFollowUpsPerTaskAreBounded: a running task whose agent does not take
// its follow-ups holds at most WithMaxFollowUpsPerTask of them; one more is
// ResourceExhausted naming MaxFollowUpsPerTask (before, one task accepted
// 20,000).
func TestFollowUpsPerTaskAreBounded(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, busyExecutor(), nil, server.WithMaxFollowUpsPerTask(3))
		id := startBusy(t, e.c)
		followOnce := func() error {
			_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("more", id),
				Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
			return err
		}
		for i := range 3 {
			if err := followOnce(); err != nil {
				t.Fatalf("follow-up %d: %v", i, err)
			}
		}
		wantLimit(t, "one follow-up over the limit", followOnce(), runtime.ErrResourceExhausted, "MaxFollowUpsPerTask", 3)
	})
}

// TestHistoryPerTaskIsBounded: a client message that would take a task's
// history beyond WithMaxHistoryPerTask is InvalidRequest naming
// MaxHistoryPerTask.
func TestHistoryPerTaskIsBounded(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, busyExecutor(), nil, server.WithMaxHistoryPerTask(3), server.WithMaxFollowUpsPerTask(-1))
		id := startBusy(t, e.c)
		followOnce := func() error {
			_, err := e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("more", id),
				Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
			return err
		}
		for i := range 2 {
			if err := followOnce(); err != nil {
				t.Fatalf("follow-up %d: %v", i, err)
			}
		}
		wantLimit(t, "a message over the history limit", followOnce(), runtime.ErrInvalidRequest, "MaxHistoryPerTask", 3)
		task, err := e.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: id})
		if err != nil || len(task.GetHistory()) != 3 {
			t.Fatalf("GetTask: %d messages, %v; want 3", len(task.GetHistory()), err)
		}
	})
}

// openStream starts a stream and waits for its first event; stop ends it.
func openStream(t *testing.T, seq iter.Seq2[*a2av1.StreamResponse, error]) (stop func(), err error) {
	t.Helper()
	next, stop := iter.Pull2(seq)
	_, err, ok := next()
	if !ok {
		err = errors.New("the stream ended before its first event")
	}
	if err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// TestStreamsAreBounded: the server holds at most WithMaxStreams streams
// (SendStreamingMessage and SubscribeToTask together), one caller at most
// WithMaxStreamsPerCaller; one more is ResourceExhausted naming the limit,
// and a slot freed by a closed stream can be taken again.
func TestStreamsAreBounded(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, busyExecutor(), nil, server.WithMaxStreams(3), server.WithMaxStreamsPerCaller(2), server.WithTaskOwner(server.OwnerByCallerID))
		alice := e.client(runtime.WithHeader("Authorization", "Bearer alice"))
		bob := e.client(runtime.WithHeader("Authorization", "Bearer bob"))
		stream := func(c a2av1.A2AServiceClient) (func(), error) {
			return openStream(t, c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("work")}))
		}
		stop1, err := stream(alice)
		if err != nil {
			t.Fatalf("alice's first stream: %v", err)
		}
		defer stop1()
		id := startBusy(t, alice)
		stop2, err := openStream(t, alice.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}))
		if err != nil {
			t.Fatalf("alice's subscription: %v", err)
		}
		_, err = stream(alice)
		wantLimit(t, "alice's third stream", err, runtime.ErrResourceExhausted, "MaxStreamsPerCaller", 2)
		stop3, err := stream(bob)
		if err != nil {
			t.Fatalf("bob's first stream: %v", err)
		}
		defer stop3()
		_, err = stream(e.c) // anonymous: only the server's limit counts
		wantLimit(t, "a fourth stream", err, runtime.ErrResourceExhausted, "MaxStreams", 3)
		_, err = openStream(t, bob.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: startBusy(t, bob)}))
		wantLimit(t, "a fourth stream by SubscribeToTask", err, runtime.ErrResourceExhausted, "MaxStreams", 3)
		// Closing a stream frees its slot (once the server has seen it go).
		stop2()
		deadline := ctxT(t)
		for {
			stop, err := stream(e.c)
			if err == nil {
				stop()
				break
			}
			wantCode(t, "a stream after one was closed", err, runtime.ErrResourceExhausted)
			if deadline.Err() != nil {
				t.Fatal("the closed stream's slot never came back")
			}
		}
	})
}
