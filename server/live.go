package server

import (
	"context"
	"fmt"
	"iter"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Live calls (SendLiveMessage, A2A 1.1 draft, PR #2153): one task fed by a
// stream of client messages while its events stream back. The first message
// starts the task or continues the one its taskId names, exactly as
// SendStreamingMessage does; every later one is a follow-up of that task,
// exactly as a SendMessage with its taskId would be (it joins the history and
// reaches the running execution, or starts the next turn of a task that waits
// for input). The runtime serves the rpc on gRPC only (UnsupportedOperation
// on the HTTP bindings) and refuses it to a call that negotiated A2A 1.0.

// liveInput is one item of a live call's request stream.
type liveInput struct {
	req *a2av1.StreamRequest
	err error
}

// SendLiveMessage implements a2av1.A2AServiceHandler: the task first, then
// its status and artifact updates in the order they happened, while the
// client's further messages go into the same task in the order sent. The
// call ends when the task is terminal and the client has closed its side,
// or when the client has closed its side and the task waits for input
// (INPUT_REQUIRED), which no one can then give it. A message the server
// refuses (a terminal task, another task's id, a full history) ends the call
// with that error; a direct reply, which creates no task, is the only answer.
func (s *Server) SendLiveMessage(ctx context.Context, reqs iter.Seq2[*a2av1.StreamRequest, error], stream runtime.Stream[*a2av1.StreamResponse]) error {
	if !s.streaming {
		return errNoStreaming()
	}
	in := readLive(ctx, reqs)
	first, err := firstLive(ctx, in)
	if err != nil {
		return err
	}
	c, release, err := s.beginStream(ctx, first.GetTenant())
	if err != nil {
		return err
	}
	defer release()
	req, err := liveMessage(first, "")
	if err != nil {
		return err
	}
	st, err := s.start(c, req, followEvents)
	if err != nil {
		return err
	}
	if st.reply != nil {
		return stream.Send(replyEvent(st.reply))
	}
	taskID := st.rec.Task.GetId()
	followUp := func(r *a2av1.StreamRequest) error {
		req, err := liveMessage(r, taskID)
		if err != nil {
			return err
		}
		_, err = s.start(c, req, followNothing)
		return err
	}
	return s.followers.relayLive(c, stream, st.rec.Task, st.rec.Version, st.sub, in, followUp)
}

// readLive ranges over a live call's requests on a goroutine of its own
// and hands them over one by one; the channel closes after the last (the
// client closed its side) or after an error, or when ctx ends.
func readLive(ctx context.Context, reqs iter.Seq2[*a2av1.StreamRequest, error]) <-chan liveInput {
	in := make(chan liveInput)
	go func() {
		defer close(in)
		for req, err := range reqs {
			select {
			case in <- liveInput{req: req, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return in
}

// firstLive waits for a live call's first request.
func firstLive(ctx context.Context, in <-chan liveInput) (*a2av1.StreamRequest, error) {
	select {
	case r, ok := <-in:
		switch {
		case !ok:
			return nil, runtime.InvalidParams("a live call needs a first request with a message: the client closed its side without sending one")
		case r.err != nil:
			return nil, r.err
		}
		return r.req, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("server: the client left before its first live request: %w", ctx.Err())
	}
}

// liveMessage is the SendMessage request a live request stands for: its
// message, for the task taskID once the call has one ("" for the first).
// The server takes messages only: a client-written artifact update is
// refused.
func liveMessage(r *a2av1.StreamRequest, taskID string) (*a2av1.SendMessageRequest, error) {
	msg := r.GetMessage()
	if msg == nil {
		if r.GetArtifactUpdate() != nil {
			return nil, runtime.UnsupportedOperation("this agent takes only messages in a live call, not client-written artifact updates (StreamRequest.artifactUpdate)")
		}
		return nil, runtime.InvalidParams("a live request needs a message", runtime.FieldViolation{Field: "message", Description: "required"})
	}
	if taskID != "" {
		switch msg.GetTaskId() {
		case "":
			// The server's copy with the task's id: a caller's request is
			// never written into (interceptors may read it afterwards).
			msg = ownMessage(new(a2av1.Message), msg, taskID, msg.GetContextId())
		case taskID:
		default:
			return nil, runtime.InvalidParams(
				fmt.Sprintf("message.taskId %q is not the task %q of this live call: every message of a live call goes into its one task", msg.GetTaskId(), taskID),
				runtime.FieldViolation{Field: "message.taskId", Description: "differs from the live call's task"})
		}
	}
	return &a2av1.SendMessageRequest{Tenant: r.GetTenant(), Message: msg, Metadata: r.GetMetadata()}, nil
}

// relayLive is relay for a live call: it sends first (the task snapshot, at
// version) and then the events of sub, and meanwhile hands each request of
// in to followUp. It ends as SendLiveMessage says.
func (fw *follower) relayLive(c *call, stream runtime.Stream[*a2av1.StreamResponse], first *a2av1.Task, version int64, sub store.Subscription, in <-chan liveInput, followUp func(*a2av1.StreamRequest) error) error {
	defer sub.Close()
	defer fw.openStream()()
	if err := stream.Send(taskEvent(first)); err != nil {
		return err
	}
	lv := &liveRelay{state: first.GetStatus().GetState(), last: version, events: sub.Events()}
	if store.IsTerminal(lv.state) {
		lv.events = nil // nothing follows
	}
	done := c.ctx.Done()
	for !lv.over(in) {
		var err error
		select {
		case ev, ok := <-lv.events:
			ev.Taken()
			if !ok {
				return fw.subscriptionEnd(c, sub.Err())
			}
			err = lv.forward(stream, ev)
		case r, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			err = r.err
			if err == nil {
				err = followUp(r.req)
			}
		case <-fw.ending:
			if store.IsTerminal(lv.state) {
				return nil // the client has had the task's last event
			}
			return fw.endStream(c, stream, first.GetId(), lv.last, sub)
		case <-done:
			return c.ctx.Err()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// liveRelay is what relayLive knows of the task it relays: the state and
// version of the last event sent, and the events still to come (nil once
// the task is terminal).
type liveRelay struct {
	state  a2av1.TaskState
	last   int64
	events <-chan store.Event
}

// over reports whether a live call ends: the client closed its side (in is
// nil) and the task is terminal, or waits for input the client can no
// longer give.
func (lv *liveRelay) over(in <-chan liveInput) bool {
	return in == nil && (store.IsTerminal(lv.state) || lv.state == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED)
}

// forward sends one event of the task and notes the state and version it
// brings the client to.
func (lv *liveRelay) forward(stream runtime.Stream[*a2av1.StreamResponse], ev store.Event) error {
	if err := stream.Send(ev.Response); err != nil {
		return err
	}
	lv.last = ev.Version
	if st := ev.Response.GetStatusUpdate(); st != nil {
		lv.state = st.GetStatus().GetState()
		if store.IsTerminal(lv.state) {
			lv.events = nil
		}
	}
	return nil
}
