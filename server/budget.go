package server

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Budgets on what one client message, and one task, may carry
// (docs/limits.md). They bound what a caller makes the store keep: a
// message over them never reaches the store or the agent, and is refused
// with InvalidParams naming the limit (ErrorInfo metadata limit,
// limitValue): the same message will never be accepted, so the client
// sends less, or starts a new task.
const (
	// DefaultMaxPartsPerMessage is how many parts a client message may
	// have. Each part costs the server a decoded message of its own (about
	// 100 bytes of heap however little it carries), so the count bounds
	// what a body of one-character parts costs beyond its bytes.
	DefaultMaxPartsPerMessage = 1000
	// DefaultMaxMessageBytes is how large a client message may be: its
	// protobuf size (parts, metadata, extensions, reference ids).
	DefaultMaxMessageBytes = 4 << 20
	// DefaultMaxTaskBytes is how large a task's history and artifacts
	// together (their protobuf size) may grow through client messages.
	DefaultMaxTaskBytes = 16 << 20
)

// WithMaxPartsPerMessage bounds the parts of a client message
// (DefaultMaxPartsPerMessage; n < 0: no limit). More is InvalidParams
// naming MaxPartsPerMessage; it is counted before anything else is done
// with the message.
func WithMaxPartsPerMessage(n int) Option {
	return func(s *Server) { limit(&s.maxParts, n) }
}

// WithMaxMessageBytes bounds the protobuf size of a client message
// (DefaultMaxMessageBytes; n < 0: no limit). Larger is InvalidParams naming
// MaxMessageBytes.
func WithMaxMessageBytes(n int64) Option {
	return func(s *Server) { limit64(&s.maxMessageBytes, n) }
}

// WithMaxTaskBytes bounds the protobuf size of a task's history and
// artifacts together (DefaultMaxTaskBytes; n < 0: no limit): a client
// message that would take the task beyond it is InvalidParams naming
// MaxTaskBytes (start a new task in the same context). The agent's own
// writes are not refused, but count against later client messages.
func WithMaxTaskBytes(n int64) Option {
	return func(s *Server) { limit64(&s.maxTaskBytes, n) }
}

// limit64 is limit for int64 limits.
func limit64(dst *int64, n int64) {
	switch {
	case n < 0:
		*dst = 0
	case n > 0:
		*dst = n
	}
}

// budgetError is the refusal of a message over a budget: InvalidParams
// with a violation of field and the limit's metadata.
func budgetError(field, name string, value int64, format string, args ...any) *runtime.Error {
	msg := fmt.Sprintf(format, args...)
	return runtime.InvalidParams(msg, runtime.FieldViolation{Field: field, Description: msg}).
		WithMetadata("limit", name).WithMetadata("limitValue", strconv.FormatInt(value, 10))
}

// checkMessageBudget refuses a client message with more parts than
// WithMaxPartsPerMessage allows (counted first: it costs nothing) or larger
// than WithMaxMessageBytes; else it returns the message's size.
func (s *Server) checkMessageBudget(msg *a2av1.Message) (int64, error) {
	if n := len(msg.GetParts()); s.maxParts > 0 && n > s.maxParts {
		return 0, budgetError("message.parts", "MaxPartsPerMessage", int64(s.maxParts),
			"the message has %d parts, more than the %d a message may have (MaxPartsPerMessage)", n, s.maxParts)
	}
	size := int64(proto.Size(msg))
	if s.maxMessageBytes > 0 && size > s.maxMessageBytes {
		return 0, budgetError("message", "MaxMessageBytes", s.maxMessageBytes,
			"the message is %d bytes (protobuf size), more than the %d a message may be (MaxMessageBytes)", size, s.maxMessageBytes)
	}
	return size, nil
}

// checkTaskBudget refuses a client message of size bytes to task (nil for
// a new one) when the task's history and artifacts would grow beyond
// WithMaxTaskBytes.
func (s *Server) checkTaskBudget(id string, task *a2av1.Task, size int64) error {
	if s.maxTaskBytes <= 0 {
		return nil
	}
	if task == nil {
		if size <= s.maxTaskBytes {
			return nil
		}
		return budgetError("message", "MaxTaskBytes", s.maxTaskBytes,
			"the message is %d bytes (protobuf size), more than the %d a task may hold (MaxTaskBytes)", size, s.maxTaskBytes)
	}
	held := taskBytes(task)
	if held+size <= s.maxTaskBytes {
		return nil
	}
	return budgetError("message", "MaxTaskBytes", s.maxTaskBytes,
		"task %q holds %d bytes of history and artifacts; with this message of %d bytes it would hold more than the %d a task may (MaxTaskBytes); start a new task in its context",
		id, held, size, s.maxTaskBytes).WithMetadata("taskId", id)
}

// taskBytes is the protobuf size of a task's history and artifacts.
func taskBytes(task *a2av1.Task) int64 {
	var n int64
	for _, m := range task.GetHistory() {
		n += int64(proto.Size(m))
	}
	for _, a := range task.GetArtifacts() {
		n += int64(proto.Size(a))
	}
	return n
}
