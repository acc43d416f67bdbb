package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// sseFraming is what differs between the HTTP bindings when a
// server-streaming call is answered with Server-Sent Events: how one response
// and a final error become event data, and how an error that happens before
// the first event is answered.
type sseFraming struct {
	binding Binding // for logs
	// encode, when set, encodes a response instead of ProtoJSON (a
	// VersionAdapter's form).
	encode func(proto.Message) ([]byte, error)
	// event appends the data of the event carrying resp, one encoded
	// response message, to dst.
	event func(dst, resp []byte) []byte
	// errorEvent appends the data of the event reporting e after some
	// events were sent.
	errorEvent func(dst []byte, e *Error, now time.Time) []byte
	// errorEventType, when set, is the SSE event type of that event
	// (VersionAdapter.RESTErrorCode: "error").
	errorEventType string
	// writeError answers e as an ordinary (non-SSE) response: the stream has
	// not started.
	writeError func(w http.ResponseWriter, info *CallInfo, e *Error)
}

// errStreamClosed is returned by Send once the handler has returned.
var errStreamClosed = errors.New("a2a: Send called after the streaming handler returned")

// sseStream is the sending side of one streaming call. Send may be called
// from any goroutine; calls are serialised.
type sseStream struct {
	ctx     context.Context
	sse     *sseWriter
	info    *CallInfo
	framing *sseFraming

	mu sync.Mutex
	sendState
	buf       []byte
	lastWrite time.Time   // of the last event or comment
	keepAlive *time.Timer // sends a comment when the stream is quiet
}

// sendState is what a server stream's sends check first, under the
// stream's lock: whether the handler returned, and the first failed write,
// which later sends fail with too.
type sendState struct {
	closed   bool
	writeErr error
}

// refusal is the error a send fails with before writing anything, or nil.
func (s *sendState) refusal() error {
	if s.closed {
		return errStreamClosed
	}
	return s.writeErr
}

func (s *sseStream) send(m proto.Message) error {
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("a2a: stream ended by the client: %w", err)
	}
	var (
		resp []byte
		err  error
	)
	if s.framing.encode != nil {
		resp, err = s.framing.encode(m)
	} else {
		resp, err = marshalJSON(m, true)
	}
	if err != nil {
		return Internal(fmt.Errorf("encoding a stream response: %w", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refusal(); err != nil {
		return err
	}
	if !s.sse.started {
		setActivatedExtensions(s.sse.w.Header(), s.info)
	}
	s.buf = s.framing.event(s.buf[:0], resp)
	if _, gen, ok := streamPosition(m); ok {
		err = s.sse.writeEventWithID(gen, s.buf)
	} else {
		err = s.sse.writeEvent(s.buf)
	}
	if cap(s.buf) > maxRetainedStreamBuffer {
		s.buf = nil
	}
	s.lastWrite = time.Now()
	if err != nil {
		s.writeErr = fmt.Errorf("a2a: writing a stream event: %w", err)
		return s.writeErr
	}
	return nil
}

// keepAliveTick sends a keep-alive comment when the stream has been quiet
// for interval, so that proxies and clients with idle timeouts keep a
// stream open while its task waits (for input, another agent, a person);
// it then waits for the next quiet interval. Before the first event nothing
// is sent: an error then is still answered with a real HTTP status.
func (s *sseStream) keepAliveTick(interval time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refusal() != nil {
		return
	}
	next := interval
	if s.sse.started {
		if quiet := time.Since(s.lastWrite); quiet < interval {
			next = interval - quiet
		} else {
			if err := s.sse.writeKeepAlive(); err != nil {
				s.writeErr = fmt.Errorf("a2a: writing a stream keep-alive: %w", err)
				return
			}
			s.lastWrite = time.Now()
		}
	}
	s.keepAlive.Reset(next)
}

// serveSSE calls a streaming endpoint and relays what it sends as events.
// An error before the first event is answered by framing.writeError (a
// normal error response, so that the client sees a real HTTP status); an
// error after it becomes a final error event, then the response ends.
func (c *handlerConfig) serveSSE(ctx context.Context, w http.ResponseWriter, ep *Endpoint, info *CallInfo, msg proto.Message, framing *sseFraming) {
	s := &sseStream{ctx: ctx, sse: newSSEWriter(w), info: info, framing: framing}
	s.sse.writeTimeout = c.writeTimeout
	if c.streamKeepAlive > 0 {
		s.mu.Lock()
		interval := c.streamKeepAlive
		s.keepAlive = time.AfterFunc(interval, func() { s.keepAliveTick(interval) })
		s.mu.Unlock()
	}
	err := c.callStream(ctx, ep, info, msg, s.send)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.keepAlive != nil {
		s.keepAlive.Stop()
	}
	if err == nil {
		if !s.sse.started {
			// A stream with no events is still a stream: send the headers.
			setActivatedExtensions(w.Header(), info)
			s.sse.start()
		}
		return
	}
	e := c.handlerError(ctx, framing.binding, ep, err)
	if !s.sse.started {
		framing.writeError(w, info, e)
		return
	}
	// A canceled request context means the client is gone; a deadline on
	// it is the agent's own (HTTP carries no client deadline), and the
	// client, still reading, is told with the final event.
	if s.writeErr != nil || errors.Is(ctx.Err(), context.Canceled) {
		return // the client is gone; there is nobody to tell
	}
	out := framing.errorEvent(s.buf[:0], e, time.Now())
	if werr := s.sse.writeTypedEvent(framing.errorEventType, out); werr != nil {
		c.logger.LogAttrs(ctx, slog.LevelDebug, "a2a: writing the final error event failed",
			slog.String("binding", framing.binding.String()), slog.String("method", ep.Operation.Name), slog.Any("error", werr))
	}
}
