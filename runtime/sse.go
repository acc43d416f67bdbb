package runtime

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"
)

// Server-Sent Events (WHATWG HTML §9.2) as the A2A HTTP bindings use them:
// every event is a single data field holding one JSON document, with no event
// names or retry hints, and the stream ends when the response ends. An event
// whose payload carries a task generation (A2A 1.1; a call that negotiated
// 1.0 sees none) has it as its id, which a client resuming the stream sends
// back as Last-Event-ID (docs/bindings.md, Resumable streams).

// sseContentType is the media type of an SSE response.
const sseContentType = "text/event-stream"

// sseWriter writes events to an HTTP response and flushes each one, so a
// client sees an event as soon as the handler sends it. It is not safe for
// concurrent use; callers serialise.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	// writeTimeout bounds each write (WithWriteTimeout; 0: none).
	writeTimeout time.Duration
	// noFlush is set once the writer turned out not to support flushing:
	// events then reach the client when the response ends.
	noFlush bool
	buf     []byte
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// start sends the response headers: 200, text/event-stream, no caching, and
// X-Accel-Buffering: no so that nginx-style proxies pass events through
// instead of buffering the response.
func (s *sseWriter) start() {
	h := s.w.Header()
	h.Set("Content-Type", sseContentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	s.w.WriteHeader(http.StatusOK)
	s.started = true
}

// writeEvent writes one event whose data is payload and flushes it. A
// payload holding line breaks is split over several data lines, which readers
// join with "\n"; compact JSON never has any, so A2A events stay one line
// (the official Go SDK v2.3.1 reads every data line as its own event).
func (s *sseWriter) writeEvent(payload []byte) error { return s.writeTypedEvent("", payload) }

// writeEventWithID is writeEvent with an "id:" field: the generation the
// event brought its task to.
func (s *sseWriter) writeEventWithID(id int64, payload []byte) error {
	return s.writeFields("", id, true, payload)
}

// writeTypedEvent is writeEvent with an "event:" field naming the event's
// type when typ is not empty.
func (s *sseWriter) writeTypedEvent(typ string, payload []byte) error {
	return s.writeFields(typ, 0, false, payload)
}

// writeFields writes one event: its type when typ is not empty, its id when
// hasID, and payload as its data.
func (s *sseWriter) writeFields(typ string, id int64, hasID bool, payload []byte) error {
	if !s.started {
		s.start()
	}
	b := s.buf[:0]
	if typ != "" {
		b = append(b, "event: "...)
		b = append(b, typ...)
		b = append(b, '\n')
	}
	if hasID {
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, '\n')
	}
	for {
		b = append(b, "data: "...)
		i := bytes.IndexAny(payload, "\r\n")
		if i < 0 {
			b = append(b, payload...)
			b = append(b, '\n')
			break
		}
		b = append(b, payload[:i]...)
		b = append(b, '\n')
		if payload[i] == '\r' && i+1 < len(payload) && payload[i+1] == '\n' {
			i++
		}
		payload = payload[i+1:]
	}
	b = append(b, '\n')
	err := s.write(b)
	if cap(b) <= maxRetainedStreamBuffer {
		s.buf = b
	} else {
		s.buf = nil // an idle stream keeps no copy of a large event
	}
	return err
}

// keepAliveComment is the SSE comment sent on a stream that has been quiet
// for the keep-alive interval; readers ignore it.
var keepAliveComment = []byte(": keep-alive\n\n")

// writeKeepAlive writes keepAliveComment.
func (s *sseWriter) writeKeepAlive() error { return s.write(keepAliveComment) }

// maxRetainedStreamBuffer is the largest encoding buffer a stream keeps
// between events; a larger one is dropped after its event is written.
const maxRetainedStreamBuffer = 64 << 10

// write writes b and flushes it, within the write timeout: a client that
// stops reading fills the connection's buffers, the write blocks, and the
// deadline ends it, so such a client cannot hold the stream (and what it
// refers to) for longer than the timeout. The deadline is lifted after the
// write, so that a stream may stay quiet for as long as its task needs.
func (s *sseWriter) write(b []byte) error {
	if s.writeTimeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout)) // ErrNotSupported: no deadline
		defer func() { _ = s.rc.SetWriteDeadline(time.Time{}) }()
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	if s.noFlush {
		return nil
	}
	if err := s.rc.Flush(); err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			s.noFlush = true
			return nil
		}
		return err
	}
	return nil
}

// sseReader splits an SSE byte stream into the data of its events. It reads
// what the A2A bindings need and what real servers send: data lines with or
// without the space after the colon, several data lines per event (joined
// with "\n"), LF or CRLF line ends, and it ignores comments and the id,
// event and retry fields. Lines ended by a lone CR are not recognised.
type sseReader struct {
	r   *bufio.Reader
	max int64 // largest event data accepted, in bytes

	data    []byte
	hasData bool
	line    []byte
}

// errSSETooLarge reports an event or line over the reader's limit.
var errSSETooLarge = errors.New("SSE event too large")

func newSSEReader(r io.Reader, maxEventBytes int64) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4096), max: maxEventBytes}
}

// next returns the data of the next event, valid until the following call.
// A last event not followed by a blank line is still returned. At the end of
// the stream it returns io.EOF.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	s.hasData = false
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && s.hasData {
				return s.data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.data, nil
			}
			continue // blank line after comments or ignored fields only
		}
		if line[0] == ':' {
			continue // comment, e.g. a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(field) != "data" {
			continue // id, event, retry and unknown fields carry nothing for A2A
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		if int64(len(s.data)+len(value)) > s.max {
			return nil, fmt.Errorf("%w: over the limit of %d bytes", errSSETooLarge, s.max)
		}
		s.data = append(s.data, value...)
		s.hasData = true
	}
}

// readLine returns the next line without its LF or CRLF ending. A final line
// without a line end is returned before io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		if int64(len(s.line)+len(chunk)) > s.max+2 { // +2: the line end
			return nil, fmt.Errorf("%w: a line is over the limit of %d bytes", errSSETooLarge, s.max)
		}
		switch {
		case err == nil:
			s.line = append(s.line, chunk...)
			return trimLineEnd(s.line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			s.line = append(s.line, chunk...)
		case errors.Is(err, io.EOF) && len(s.line)+len(chunk) > 0:
			s.line = append(s.line, chunk...)
			return trimLineEnd(s.line), nil
		default:
			return nil, err
		}
	}
}

func trimLineEnd(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// readSSEEvents is the receiving loop of the HTTP bindings' stream clients:
// it reads the events of body, turns each event's data into a response with
// decode and yields it, until the stream ends, decode or the reader fails
// (the error is yielded, then the loop stops), or the caller stops ranging.
// binding names the binding in transport errors.
func readSSEEvents(ctx context.Context, body io.Reader, limit int64, binding Binding, op *Operation,
	yield func(proto.Message, error) bool, decode func(data []byte) (proto.Message, error)) {
	events := newSSEReader(body, limit)
	for {
		data, err := events.next()
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return
		case errors.Is(err, errSSETooLarge):
			yield(nil, Errorf(CodeInvalidAgentResponse, "%s stream: %w", op.Name, err))
			return
		default:
			if ctxErr := ctx.Err(); ctxErr != nil {
				err = ctxErr
			}
			yield(nil, fmt.Errorf("a2a: %s %s: reading the stream: %w", binding.Title(), op.Name, err))
			return
		}
		m, err := decode(data)
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(m, nil) {
			return
		}
	}
}
