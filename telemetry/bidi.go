package telemetry

import (
	"context"
	"iter"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/runtime"
)

// Calls whose client streams its requests (A2A 1.1's SendLiveMessage, on
// gRPC): Tracing, Metrics and RequestLog are runtime.BidiInterceptors, so
// such a call is recorded as a stream whose requests are counted too — on
// the server those received, on the client those sent — and whose task and
// context ids are those of its first request, else of its first event.

var (
	_ runtime.BidiInterceptor = (*tracing)(nil)
	_ runtime.BidiInterceptor = (*metrics)(nil)
	_ runtime.BidiInterceptor = (*requestLog)(nil)
)

// requestCount counts the requests of one call as they pass, and keeps the
// first. On the client the requests and the responses pass on different
// goroutines: its fields are atomic.
type requestCount struct {
	n     atomic.Int64
	first atomic.Pointer[proto.Message]
}

// wrap returns reqs counted, calling each (when not nil) with every request
// and its index from 0; errors pass uncounted.
func (c *requestCount) wrap(reqs iter.Seq2[proto.Message, error], each func(m proto.Message, i int)) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		for m, err := range reqs {
			if err == nil {
				i := c.n.Add(1) - 1
				if i == 0 {
					c.first.Store(&m)
				}
				if each != nil {
					each(m, int(i))
				}
			}
			if !yield(m, err) {
				return
			}
		}
	}
}

// count is the number of requests that passed.
func (c *requestCount) count() int { return int(c.n.Load()) }

// firstRequest is the first request that passed, or nil.
func (c *requestCount) firstRequest() proto.Message {
	if p := c.first.Load(); p != nil {
		return *p
	}
	return nil
}

// sendCount counts the responses of one call and keeps the first.
type sendCount struct {
	n     atomic.Int64
	first atomic.Pointer[proto.Message]
}

// wrap returns send counted, calling each (when not nil) with every
// response and its index from 0.
func (c *sendCount) wrap(send func(proto.Message) error, each func(m proto.Message, i int)) func(proto.Message) error {
	return func(m proto.Message) error {
		i := c.n.Add(1) - 1
		if i == 0 {
			c.first.Store(&m)
		}
		if each != nil {
			each(m, int(i))
		}
		return send(m)
	}
}

func (c *sendCount) count() int { return int(c.n.Load()) }

func (c *sendCount) firstResponse() proto.Message {
	if p := c.first.Load(); p != nil {
		return *p
	}
	return nil
}

// WrapBidi implements runtime.BidiInterceptor: the span of a stream, with
// an a2a.stream.request event per request (a2a.request.index) and
// a2a.stream.requests at its end.
func (t *tracing) WrapBidi(next runtime.BidiFunc) runtime.BidiFunc {
	return func(ctx context.Context, call *runtime.CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
		return t.traceStream(ctx, call,
			func(ctx context.Context) error { return next(ctx, call, reqs, send) },
			func(ctx context.Context, span trace.Span) error {
				var in requestCount
				var out sendCount
				err := next(ctx, call, in.wrap(reqs, func(_ proto.Message, i int) {
					span.AddEvent("a2a.stream.request", trace.WithAttributes(AttrRequestIndex.Int(i)))
				}), out.wrap(send, func(m proto.Message, i int) {
					span.AddEvent("a2a.stream.event", trace.WithAttributes(eventAttrs(m, i)...))
				}))
				t.end(ctx, span, call, in.firstRequest(), out.firstResponse(), err, out.count(), in.count())
				return err
			})
	}
}

// WrapBidi implements runtime.BidiInterceptor: a stream's measurements,
// and its requests counted in a2a.server.stream.requests (received) or
// a2a.client.stream.requests (sent).
func (m *metrics) WrapBidi(next runtime.BidiFunc) runtime.BidiFunc {
	return func(ctx context.Context, call *runtime.CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
		if !m.side(call).duration.Enabled(ctx) { // a no-op provider
			return next(ctx, call, reqs, send)
		}
		return m.measureStream(ctx, call, reqs, send, func(reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
			return next(ctx, call, reqs, send)
		})
	}
}

// countRequests returns reqs with count called for each request that
// passes; errors pass uncounted.
func countRequests(reqs iter.Seq2[proto.Message, error], count func()) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		for msg, err := range reqs {
			if err == nil {
				count()
			}
			if !yield(msg, err) {
				return
			}
		}
	}
}

// WrapBidi implements runtime.BidiInterceptor: the line of a stream, with
// requests=N.
func (r *requestLog) WrapBidi(next runtime.BidiFunc) runtime.BidiFunc {
	return func(ctx context.Context, call *runtime.CallInfo, reqs iter.Seq2[proto.Message, error], send func(proto.Message) error) error {
		start := time.Now()
		var in requestCount
		var out sendCount
		err := next(ctx, call, in.wrap(reqs, nil), out.wrap(send, nil))
		r.log(ctx, call, in.firstRequest(), out.firstResponse(), err, start, out.count(), in.count())
		return err
	}
}
