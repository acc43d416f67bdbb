package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Relaying a task's events to a stream (SendStreamingMessage,
// SubscribeToTask), and ending the open streams at Shutdown.

// streamCatchUp bounds how long a stream ended by Shutdown waits for its
// feed to bring the writes the store already has: a shared store's feed
// (PostgreSQL's notifications) arrives a little after the write.
const streamCatchUp = time.Second

// openStream counts a stream until the returned function is called, so that
// Shutdown can wait for the streams it ends. Streams opened after that are
// not counted (they end at once).
func (fw *follower) openStream() (done func()) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.streamsEnded {
		return func() {}
	}
	fw.streams.Add(1)
	return fw.streams.Done
}

// endStreams tells every open stream and waiting call to end, and waits
// until the streams have sent their last event or ctx is done.
func (fw *follower) endStreams(ctx context.Context) {
	fw.mu.Lock()
	fw.streamsEnded = true
	fw.mu.Unlock()
	fw.endOnce.Do(func() { close(fw.ending) })
	done := make(chan struct{})
	go func() {
		fw.streams.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// endStream ends a stream at Shutdown; last is the version of the last
// write the stream has relayed. It first relays what the feed still brings
// up to the version the store has now (a little while at most), so that
// the client has the task's latest state; a stream whose task is then
// terminal or INPUT_REQUIRED ends as usual, with that state as its last
// status event, and any other ends with an error event saying the agent is
// shutting down and what state the task is in, so that the client knows to
// follow it elsewhere (SubscribeToTask on another instance, GetTask).
func (fw *follower) endStream(c *call, stream runtime.Stream[*a2av1.StreamResponse], id string, last int64, sub store.Subscription) error {
	rec, err := fw.store.Task(c.ctx, c.tenant, id)
	if err != nil {
		return runtime.NewError(runtime.CodeInternal, fmt.Sprintf(
			"the agent is shutting down and ends this stream; call GetTask or SubscribeToTask for task %q", id)).WithMetadata("taskId", id)
	}
	timer := time.NewTimer(streamCatchUp)
	defer timer.Stop()
catchUp:
	for last < rec.Version {
		select {
		case ev, ok := <-sub.Events():
			ev.Taken()
			if !ok {
				break catchUp
			}
			if err := stream.Send(ev.Response); err != nil {
				return err
			}
			if endsStream(ev.Response) {
				return nil
			}
			last = ev.Version
		case <-timer.C:
			break catchUp
		case <-c.ctx.Done():
			return c.ctx.Err()
		}
	}
	final := statusEvent(rec.Task)
	if endsStream(final) {
		// Not relayed yet (the feed lagged): the latest state, which ends
		// the stream as it would have.
		return stream.Send(final)
	}
	state := rec.Task.GetStatus().GetState()
	return runtime.NewError(runtime.CodeInternal, fmt.Sprintf(
		"the agent is shutting down and ends this stream; task %q is %s: call SubscribeToTask to follow it",
		id, stateName(state))).WithMetadata("taskId", id)
}

// stateName is TASK_STATE_WORKING as WORKING.
func stateName(s a2av1.TaskState) string {
	const prefix = "TASK_STATE_"
	name := s.String()
	if len(name) > len(prefix) && name[:len(prefix)] == prefix {
		return name[len(prefix):]
	}
	return name
}

// relay sends first (the task snapshot, at version) and then the events of
// sub until the stream's end condition. A subscriber dropped for lagging
// gets an error as its last event, telling it to subscribe again; a stream
// open when Shutdown ends streams gets the task's latest state (endStream).
func (fw *follower) relay(c *call, stream runtime.Stream[*a2av1.StreamResponse], first *a2av1.Task, version int64, sub store.Subscription) error {
	return fw.relayAfter(c, stream, first.GetId(), []*a2av1.StreamResponse{taskEvent(first)},
		store.IsTerminal(first.GetStatus().GetState()), version, sub)
}

// relayAfter sends prelude (a snapshot, or the events a resumed stream
// missed: resume.go) and then, unless ended, the events of sub after
// version (the version prelude brings the client to), as relay does.
func (fw *follower) relayAfter(c *call, stream runtime.Stream[*a2av1.StreamResponse], id string, prelude []*a2av1.StreamResponse, ended bool, version int64, sub store.Subscription) error {
	defer sub.Close()
	defer fw.openStream()()
	for _, ev := range prelude {
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	if ended {
		return nil
	}
	last := version
	events, done := sub.Events(), c.ctx.Done()
	for {
		select {
		case ev, ok := <-events:
			ev.Taken()
			if !ok {
				return fw.subscriptionEnd(c, sub.Err())
			}
			if err := stream.Send(ev.Response); err != nil {
				return err
			}
			if endsStream(ev.Response) {
				return nil
			}
			last = ev.Version
		case <-fw.ending:
			return fw.endStream(c, stream, id, last, sub)
		case <-done:
			return c.ctx.Err()
		}
	}
}

func (fw *follower) subscriptionEnd(c *call, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrSubscriberBytes):
		return limitError(runtime.CodeInternal, "MaxSubscriberBytes", int(fw.maxSubscriberBytes),
			"this stream's client read too slowly: the events queued for it exceeded %d bytes (MaxSubscriberBytes) and it was closed; call SubscribeToTask to continue from the current task", fw.maxSubscriberBytes)
	case errors.Is(err, store.ErrSlowSubscriber):
		return runtime.NewError(runtime.CodeInternal,
			"this stream fell too far behind the task and was closed; call SubscribeToTask to continue from the current task")
	case c.ctx.Err() != nil:
		return c.ctx.Err()
	}
	return internalError("following the task", err)
}

// endsStream reports whether ev ends a stream: a terminal state or
// INPUT_REQUIRED. AUTH_REQUIRED keeps the stream open (A2A §7.6.1: the agent
// may resume once the client authenticated elsewhere).
func endsStream(ev *a2av1.StreamResponse) bool {
	st := ev.GetStatusUpdate()
	if st == nil {
		return false
	}
	state := st.GetStatus().GetState()
	return store.IsTerminal(state) || state == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED
}
