package runtime

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Clients resume broken streams (A2A 1.1 draft, resumable streams): when a
// SendStreamingMessage or SubscribeToTask stream breaks — the connection
// failed, not the agent answering an error — after at least one event that
// carried a generation, the client calls SubscribeToTask for the event's
// task with the last generation it received (Last-Event-ID; gRPC metadata
// a2a-last-event-id), and the caller's iteration goes on with what the
// agent replays and then sends live, as if nothing had happened. The
// agent's log makes the result exact (no event lost or repeated); an event
// at a generation the client already has is dropped all the same. Retries
// are bounded (WithStreamResume) and spaced by a doubling backoff; the
// count starts again once a resumed stream delivers an event.
//
// Only calls whose events carry generations resume: a client that
// negotiated 1.0 sees none, and its broken streams end with the error as
// before. The service must have a SubscribeToTask rpc (A2A's services do);
// generated clients pass their service description (ClientDefaults).

// DefaultStreamResumeRetries is how many times a broken stream is resumed
// in a row, by default.
const DefaultStreamResumeRetries = 6

// The backoff between resumption attempts: the first wait, doubled after
// each failed attempt up to the most.
const (
	streamResumeFirstWait = 100 * time.Millisecond
	streamResumeMaxWait   = 2 * time.Second
)

// WithStreamResume sets how many times in a row a client resumes a broken
// stream (default DefaultStreamResumeRetries); retries < 1 turns resumption
// off, so that a broken stream ends with its error at once.
func WithStreamResume(retries int) ClientOption {
	return func(c *clientConfig) {
		c.resumeRetries = max(retries, 0)
		c.resumeSet = true
	}
}

// withService records the description of the service a client calls.
func withService(desc *ServiceDesc) ClientOption {
	return func(c *clientConfig) { c.service = desc }
}

// streamOpener opens one stream of a transport (through its
// interceptors): the transports of this package.
type streamOpener interface {
	streamOnce(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error]
}

// resumeOp is the SubscribeToTask rpc that resumes streams of op, or nil
// when op's streams are not resumed.
func (c *clientConfig) resumeOp(op *Operation) *Operation {
	if c.retries() < 1 || c.service == nil || !op.ServerStreaming || op.ClientStreaming {
		return nil
	}
	if op.Name != "SendStreamingMessage" && op.Name != "SubscribeToTask" {
		return nil
	}
	for i := range c.service.Operations {
		if o := &c.service.Operations[i]; o.Name == "SubscribeToTask" && o.ServerStreaming && !o.ClientStreaming {
			return o
		}
	}
	return nil
}

// retries is the configured number of resumptions in a row.
func (c *clientConfig) retries() int {
	if !c.resumeSet {
		return DefaultStreamResumeRetries
	}
	return c.resumeRetries
}

// resumable opens a stream of op with open and, when op's streams resume,
// resumes it when it breaks (see above); a send's stream (sendRetriesOf)
// that broke before its first event is sent again instead, with the same
// Idempotency-Key (client_sendkey.go). One loop does both, with one
// resumedStream per call, so that a stream pays for neither until it
// breaks but the relaying of its events.
func (c *clientConfig) resumable(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message, open streamOpener) iter.Seq2[proto.Message, error] {
	sub, resends := c.resumeOp(op), sendRetriesOf(ctx, op)
	if sub == nil && resends == 0 {
		return open.streamOnce(ctx, op, req, newResp)
	}
	return func(yield func(proto.Message, error) bool) {
		s := &resumedStream{retries: c.retries(), sub: sub, req: req, yield: yield}
		relay := s.relay
		callCtx, callOp, callReq := ctx, op, req
		for {
			s.broke = nil
			open.streamOnce(callCtx, callOp, callReq, newResp)(relay)
			if s.broke == nil { // ended, or the caller stopped reading
				return
			}
			if !s.delivered && s.resent < resends && connectionBroke(ctx, s.broke) {
				// Nothing reached the caller (and nothing was resumed):
				// the send again, as it was.
				if !pause(ctx, s.resent) {
					yield(nil, s.broke)
					return
				}
				s.resent++
				continue
			}
			if sub == nil {
				yield(nil, s.broke)
				return
			}
			next, err := s.resume(ctx, s.broke)
			if err != nil {
				yield(nil, err)
				return
			}
			callCtx, callOp, callReq = withResumeAfter(ctx, s.last), sub, next
		}
	}
}

// resumedStream follows one stream of the caller's across the calls that
// resume it (or send it again): the task it is about, the last generation
// delivered, and the resumptions in a row since an event last arrived.
type resumedStream struct {
	retries  int
	sub      *Operation    // SubscribeToTask; nil: not resumed
	req      proto.Message // of the caller's call
	taskID   string
	last     int64
	failures int
	// yield is the caller's; broke is the error the current call's stream
	// broke with; delivered: an event reached the caller; resent: how many
	// times the send was sent again.
	yield     func(proto.Message, error) bool
	broke     error
	delivered bool
	resent    int
}

// relay is the yield of one call's stream: it passes on to the caller the
// events that were not delivered before, and keeps the error the stream
// broke with (in s.broke) instead of passing it on.
func (s *resumedStream) relay(m proto.Message, err error) bool {
	if err != nil {
		s.broke = err
		return false
	}
	if s.sub != nil {
		if id, gen, ok := streamPosition(m); ok {
			if s.last > 0 && gen <= s.last && id == s.taskID {
				return true // already delivered
			}
			s.taskID, s.last, s.failures = id, gen, 0
		}
	}
	s.delivered = true
	return s.yield(m, nil)
}

// resume decides whether a stream that broke is resumed, and waits before
// the resumption: it returns the SubscribeToTask request to resume with, or
// the error that ends the caller's stream. A stream is resumed only when a
// task's event came, the connection failed, and retries are left.
func (s *resumedStream) resume(ctx context.Context, broke error) (proto.Message, error) {
	if s.last == 0 || s.taskID == "" || !brokenConnection(ctx, broke) || s.failures >= s.retries {
		return nil, broke
	}
	next, err := subscribeRequest(s.sub, s.req, s.taskID)
	if err != nil {
		return nil, errors.Join(broke, err)
	}
	s.failures++
	if !waitResume(ctx, s.failures) {
		return nil, broke
	}
	return next, nil
}

// brokenConnection reports whether a stream's error is a failure of the
// connection (what resuming can cure) rather than the agent's answer (an
// *Error) or the caller's own cancellation. Unlike connectionBroke, which
// decides whether a request is sent again, any other error counts.
func brokenConnection(ctx context.Context, err error) bool {
	return !answeredOrAbandoned(ctx, err)
}

// waitResume waits before the attempt-th resumption; false when ctx ended
// first.
func waitResume(ctx context.Context, attempt int) bool {
	wait := streamResumeFirstWait
	for i := 1; i < attempt && wait < streamResumeMaxWait; i++ {
		wait *= 2
	}
	return sleep(ctx, min(wait, streamResumeMaxWait))
}

// subscribeRequest is the request of sub (SubscribeToTask) for task id, in
// the tenant of the broken call's request orig.
func subscribeRequest(sub *Operation, orig proto.Message, id string) (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(sub.Request)
	if err != nil {
		return nil, Errorf(CodeInternal, "resuming the stream: no Go type for %s: %w", sub.Request, err)
	}
	m := mt.New()
	fields := m.Descriptor().Fields()
	idField := fields.ByName("id")
	if idField == nil || idField.Kind() != protoreflect.StringKind {
		return nil, Errorf(CodeInternal, "resuming the stream: %s has no string field id", sub.Request)
	}
	m.Set(idField, protoreflect.ValueOfString(id))
	if to := fields.ByName("tenant"); to != nil && to.Kind() == protoreflect.StringKind {
		o := orig.ProtoReflect()
		if from := o.Descriptor().Fields().ByName("tenant"); from != nil && from.Kind() == protoreflect.StringKind {
			if t := o.Get(from).String(); t != "" {
				m.Set(to, protoreflect.ValueOfString(t))
			}
		}
	}
	return m.Interface(), nil
}

// resumeAfterKey carries the generation a resuming call names.
type resumeAfterKey struct{}

// withResumeAfter is ctx for a SubscribeToTask call resuming after
// generation gen: the HTTP bindings send Last-Event-ID (sendHeaders), gRPC
// the a2a-last-event-id metadata.
func withResumeAfter(ctx context.Context, gen int64) context.Context {
	v := strconv.FormatInt(gen, 10)
	ctx = metadata.AppendToOutgoingContext(ctx, MetadataLastEventID, v)
	return context.WithValue(ctx, resumeAfterKey{}, v)
}

// resumeAfterHeader is the Last-Event-ID value of a resuming call, "" for
// others.
func resumeAfterHeader(ctx context.Context) string {
	v, _ := ctx.Value(resumeAfterKey{}).(string)
	return v
}
