package server

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Caps on what callers can make the server hold (docs/limits.md). A
// request over a cap that frees up by itself — concurrent streams, pending
// follow-ups — is ResourceExhausted (JSON-RPC -31429, HTTP 429, gRPC
// RESOURCE_EXHAUSTED: try again later); one over a cap that never frees up
// for that task — its history — is InvalidRequest. Both name the limit in
// their ErrorInfo metadata (limit, limitValue).
const (
	// DefaultMaxStreams is how many streams (SendStreamingMessage and
	// SubscribeToTask, on every binding) the server holds at once.
	DefaultMaxStreams = 1000
	// DefaultMaxStreamsPerCaller is how many of them one caller holds.
	DefaultMaxStreamsPerCaller = 100
	// DefaultMaxAnonymousStreams is how many of them callers without an
	// identity hold together: half of DefaultMaxStreams, so that the other
	// half stays for identified callers however many anonymous ones come.
	DefaultMaxAnonymousStreams = DefaultMaxStreams / 2
	// DefaultMaxFollowUpsPerTask is how many follow-up messages a running
	// task holds that its execution has not taken yet.
	DefaultMaxFollowUpsPerTask = 64
	// DefaultMaxHistoryPerTask is how many messages a task's history may
	// hold before client messages are refused.
	DefaultMaxHistoryPerTask = 1000
	// DefaultMaxSubscriberBytes is how many bytes of events (their
	// proto.Size) a stream's subscriber may hold queued that its client has
	// not taken.
	DefaultMaxSubscriberBytes = store.DefaultSubscriberBytes
)

// limit sets *dst from an option's n: n < 0 turns the limit off (0), n > 0
// sets it, 0 keeps the default.
func limit(dst *int, n int) {
	switch {
	case n < 0:
		*dst = 0
	case n > 0:
		*dst = n
	}
}

// WithMaxStreams bounds the streams the server holds at once
// (DefaultMaxStreams; n < 0: no limit). One more is refused with
// ResourceExhausted naming MaxStreams before anything happens (no task is
// created for a refused SendStreamingMessage).
func WithMaxStreams(n int) Option { return func(s *Server) { limit(&s.followers.maxStreams, n) } }

// WithMaxStreamsPerCaller bounds the streams one caller holds at once
// (DefaultMaxStreamsPerCaller; n < 0: no limit); one more is
// ResourceExhausted naming MaxStreamsPerCaller. The caller is told by the
// identity the server gives owners: the WithTaskOwner function's owner,
// else the caller id. Callers without one (anonymous) are bounded together
// by WithMaxAnonymousStreams.
func WithMaxStreamsPerCaller(n int) Option {
	return func(s *Server) { limit(&s.followers.maxCallerStreams, n) }
}

// WithMaxAnonymousStreams bounds the streams that callers without an
// identity (see WithMaxStreamsPerCaller) hold together
// (DefaultMaxAnonymousStreams; n < 0: only WithMaxStreams bounds them). One
// more is ResourceExhausted naming MaxAnonymousStreams. Anonymous callers
// count as one owner, since nothing tells them apart that they could not
// change at will (a remote address is shared behind a proxy and plentiful
// with IPv6): whatever they do, WithMaxStreams minus this many streams stay
// for identified callers.
func WithMaxAnonymousStreams(n int) Option {
	return func(s *Server) { limit(&s.followers.maxAnonStreams, n) }
}

// WithMaxFollowUpsPerTask bounds the follow-up messages a running task
// holds that its execution has not taken yet (DefaultMaxFollowUpsPerTask;
// n < 0: no limit). One more is ResourceExhausted naming
// MaxFollowUpsPerTask: the client retries once the agent has caught up.
func WithMaxFollowUpsPerTask(n int) Option {
	return func(s *Server) { limit(&s.maxFollowUps, n) }
}

// WithMaxHistoryPerTask bounds the messages of a task's history
// (DefaultMaxHistoryPerTask; n < 0: no limit): a client message that would
// go beyond it is InvalidRequest naming MaxHistoryPerTask (start a new task
// in the same context). The agent's own messages are not refused.
func WithMaxHistoryPerTask(n int) Option {
	return func(s *Server) { limit(&s.maxHistory, n) }
}

// WithMaxSubscriberBytes bounds the bytes of events (their proto.Size)
// queued for one stream's subscription that the stream has not taken yet
// (DefaultMaxSubscriberBytes, 4 MiB; n < 0: no byte bound, only the
// store's event count). A stream whose client reads slower than its task
// writes large events is then dropped, as one that lags the count behind,
// with an error event naming MaxSubscriberBytes that tells it to call
// SubscribeToTask. Stores that queue events per subscriber (in-memory,
// SQLite, PostgreSQL) honour it; an event alone larger than the budget is
// still delivered when nothing else is queued.
func WithMaxSubscriberBytes(n int64) Option {
	return func(s *Server) {
		switch {
		case n < 0:
			s.followers.maxSubscriberBytes = 0
		case n > 0:
			s.followers.maxSubscriberBytes = n
		}
	}
}

// budgeted is the context a subscription is made with: it carries the
// subscriber byte budget.
func (fw *follower) budgeted(ctx context.Context) context.Context {
	return store.WithSubscriberBytes(ctx, fw.maxSubscriberBytes)
}

// limitError is the error of a request over a cap.
func limitError(code runtime.ErrorCode, name string, value int, format string, args ...any) *runtime.Error {
	return runtime.NewError(code, fmt.Sprintf(format, args...)).
		WithMetadata("limit", name).WithMetadata("limitValue", strconv.Itoa(value))
}

// streamSlots counts the streams held: in all, per caller, and by callers
// without an identity together.
type streamSlots struct {
	mu        sync.Mutex
	total     int
	anonymous int
	byCaller  map[string]int
}

// streamIdentity is who a stream counts against for WithMaxStreamsPerCaller
// ("" for none).
func (c *call) streamIdentity(owned bool) string {
	if owned {
		return c.owner
	}
	return subjectOf(c.caller)
}

// holdStream takes a stream slot for the call, or says which cap it is
// over. release gives the slot back.
func (fw *follower) holdStream(c *call) (release func(), err error) {
	who := c.streamIdentity(fw.owned)
	sl := &fw.streamSlots
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if fw.maxStreams > 0 && sl.total >= fw.maxStreams {
		return nil, limitError(runtime.CodeResourceExhausted, "MaxStreams", fw.maxStreams,
			"the agent already serves %d streams, the most it holds at once (MaxStreams); try again later", fw.maxStreams)
	}
	if who != "" && fw.maxCallerStreams > 0 && sl.byCaller[who] >= fw.maxCallerStreams {
		return nil, limitError(runtime.CodeResourceExhausted, "MaxStreamsPerCaller", fw.maxCallerStreams,
			"this caller already has %d streams open, the most one caller may hold (MaxStreamsPerCaller); close one or try again later", fw.maxCallerStreams)
	}
	if who == "" && fw.maxAnonStreams > 0 && sl.anonymous >= fw.maxAnonStreams {
		return nil, limitError(runtime.CodeResourceExhausted, "MaxAnonymousStreams", fw.maxAnonStreams,
			"anonymous callers already hold %d streams, the most they may hold together (MaxAnonymousStreams); authenticate, or try again later", fw.maxAnonStreams)
	}
	sl.total++
	if who != "" {
		if sl.byCaller == nil {
			sl.byCaller = make(map[string]int)
		}
		sl.byCaller[who]++
	} else {
		sl.anonymous++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			sl.mu.Lock()
			defer sl.mu.Unlock()
			sl.total--
			if who != "" {
				if sl.byCaller[who]--; sl.byCaller[who] == 0 {
					delete(sl.byCaller, who)
				}
			} else {
				sl.anonymous--
			}
		})
	}, nil
}
