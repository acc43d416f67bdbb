package server

import (
	"context"
	"strconv"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Resuming a stream (A2A 1.1 draft, resumable streams). Every event a stream
// sends carries the generation its task reached with it (the SSE id on the
// HTTP bindings). A client whose stream broke calls SubscribeToTask with the
// last generation it received, N (Last-Event-ID; gRPC metadata
// a2a-last-event-id), and gets:
//
//   - the events after N, from the store's event log (store.TaskEvents),
//     when the log still holds every one of them up to the task's current
//     generation; else the task's snapshot (the log was trimmed, N is not a
//     generation of the task's log — before its creation's, or past its
//     current one — or more than MaxReplayedEvents events followed N);
//   - then the task's events as they happen, as any stream: the snapshot
//     the store's Subscribe returns and the log agree on the generation,
//     and the subscription brings exactly the writes after it, so nothing
//     is sent twice and nothing is missed.
//
// The resumed stream ends where the broken one would have: when the task is
// terminal or waits for input (after the replay, or at once when N already
// is that state's generation). Unlike a new subscription, a terminal task
// can be resumed: the client gets the end it missed.

// resumeAfter returns the generation a SubscribeToTask call resumes after,
// ok false for a new subscription. Only calls of A2A 1.1 or later resume:
// a 1.0 call's events carry no generation, and its request is read with
// 1.0's meaning (docs/bindings.md, A2A 1.1 draft).
func resumeAfter(ctx context.Context) (after int64, ok bool, err error) {
	info, found := runtime.CallInfoFromContext(ctx)
	if !found || !hasGenerations(info.Version) {
		return 0, false, nil
	}
	return runtime.LastEventID(info.Header)
}

// hasGenerations reports whether protocol version v (Major.Minor) is 1.1 or
// later.
func hasGenerations(v string) bool {
	major, minor, found := strings.Cut(v, ".")
	if !found {
		return false
	}
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && (ma > 1 || ma == 1 && mi >= 1)
}

// MaxReplayedEvents is the most events a resumed stream replays: a client
// further behind gets the task's snapshot instead, so that one resumption
// reads a bounded part of the store's log.
const MaxReplayedEvents = 10_000

// resume relays to stream what a client that received the task's events up
// to generation after missed, then its live events (sub, from rec on).
func (fw *follower) resume(c *call, stream runtime.Stream[*a2av1.StreamResponse], rec store.Record, sub store.Subscription, after int64) error {
	prelude, err := fw.missed(c, rec, after)
	if err != nil {
		sub.Close()
		return err
	}
	state := rec.Task.GetStatus().GetState()
	ended := store.IsTerminal(state) || state == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED
	return fw.relayAfter(c, stream, rec.Task.GetId(), prelude, ended, rec.Version, sub)
}

// missed is what a client at generation after has not seen of the task at
// rec: the logged events after it, or the snapshot when the log lacks any.
func (fw *follower) missed(c *call, rec store.Record, after int64) ([]*a2av1.StreamResponse, error) {
	cur := rec.Task.GetGeneration()
	if cur == 0 {
		cur = rec.Generation
	}
	if after == cur {
		return nil, nil
	}
	if after < cur && after > 0 && cur-after <= MaxReplayedEvents {
		evs, err := fw.store.TaskEvents(c.ctx, c.tenant, rec.Task.GetId(), after, cur)
		if err != nil {
			return nil, internalError("reading the task's events to resume the stream", err)
		}
		if int64(len(evs)) == cur-after && store.Contiguous(evs, after) {
			out := make([]*a2av1.StreamResponse, len(evs))
			for i, ev := range evs {
				out[i] = ev.Response
			}
			return out, nil
		}
	}
	return []*a2av1.StreamResponse{taskEvent(rec.Task)}, nil
}
