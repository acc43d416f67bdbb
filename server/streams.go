package server

import (
	"context"
	"fmt"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// streamCatchUp bounds how long a stream ended by Shutdown waits for its
// feed to bring the writes the store already has: a shared store's feed
// (PostgreSQL's notifications) arrives a little after the write.
const streamCatchUp = time.Second

// openStream counts a stream until the returned function is called, so that
// Shutdown can wait for the streams it ends. Streams opened after that are
// not counted (they end at once).
func (s *Server) openStream() (done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streamsEnded {
		return func() {}
	}
	s.streams.Add(1)
	return s.streams.Done
}

// endStreams tells every open stream and waiting call to end, and waits
// until the streams have sent their last event or ctx is done.
func (s *Server) endStreams(ctx context.Context) {
	s.mu.Lock()
	s.streamsEnded = true
	s.mu.Unlock()
	s.endOnce.Do(func() { close(s.ending) })
	done := make(chan struct{})
	go func() {
		s.streams.Wait()
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
func (s *Server) endStream(c *call, stream runtime.Stream[*a2av1.StreamResponse], id string, last int64, sub store.Subscription) error {
	rec, err := s.store.Task(c.ctx, c.tenant, id)
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
