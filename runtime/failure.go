package runtime

import (
	"fmt"
	goruntime "runtime"
	"strconv"
	"strings"
)

// How failed calls are logged, and by whom.
//
// A binding logs the failures whose cause its client never sees (Internal
// and InvalidAgentResponse errors, panics) once, at error level, with the
// cause; a panic's stack is an attribute of its own ("stack", one frame per
// element), so that a JSON log keeps it as a list instead of one escaped
// string. When an interceptor of the handler logs every call itself — a
// request log — it says so by implementing FailureLogger, and the binding
// then leaves the failures that went through the interceptors to it: each
// failure is logged once. Failures the interceptors never saw (a response
// that cannot be encoded after the handler succeeded) are still logged by
// the binding.

// FailureLogger is implemented by interceptors that log every failed call
// with its cause (telemetry.RequestLog does). A handler with such an
// interceptor does not log the failures its interceptors returned.
type FailureLogger interface {
	Interceptor
	// LogsFailures reports whether the interceptor logs failed calls.
	LogsFailures() bool
}

// logsFailures reports whether one of the interceptors logs failures.
func logsFailures(interceptors []Interceptor) bool {
	for _, i := range interceptors {
		if l, ok := i.(FailureLogger); ok && l.LogsFailures() {
			return true
		}
	}
	return false
}

// PanicError is the cause of the Internal error a handler's panic becomes
// (errors.As reaches it): the panic value and where it happened. The client
// gets "internal error"; the value and stack go to the logs only.
type PanicError struct {
	// Value is what the handler panicked with.
	Value any
	pcs   []uintptr
	what  string // what panicked, for Error; "" for "handler"
}

// NewPanicError returns the PanicError of a panic with value, recovered by
// the deferred function that calls it: its Stack starts at the frame that
// panicked. what names what panicked in the error's text ("executor":
// "executor panicked: <value>"; "" for "handler"). Code that recovers the
// panics of code it calls (the default server, its executors) returns it,
// so that the request log and the bindings log the stack as a list of
// frames instead of one escaped string.
func NewPanicError(what string, value any) *PanicError {
	e := newPanicError(value, 2)
	e.what = what
	return e
}

// newPanicError records the stack of the goroutine that panicked; called
// from the deferred function that recovered, skip frames up.
func newPanicError(value any, skip int) *PanicError {
	pcs := make([]uintptr, 64)
	n := goruntime.Callers(skip+1, pcs)
	pcs = pcs[:n]
	// Start at the frame that panicked: drop the recovery's own frames up
	// to and including runtime.gopanic.
	frames := goruntime.CallersFrames(pcs)
	for i := 0; ; i++ {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			pcs = pcs[i+1:]
			break
		}
		if !more {
			break
		}
	}
	return &PanicError{Value: value, pcs: pcs}
}

// Error implements error: "handler panicked: <value>" (or what
// NewPanicError named), on one line.
func (e *PanicError) Error() string {
	what := e.what
	if what == "" {
		what = "handler"
	}
	return fmt.Sprintf("%s panicked: %v", what, e.Value)
}

// Stack returns the stack of the panic, the frame that panicked first, one
// "function (file:line)" per frame, for logs.
func (e *PanicError) Stack() []string {
	out := make([]string, 0, len(e.pcs))
	frames := goruntime.CallersFrames(e.pcs)
	for {
		f, more := frames.Next()
		if f.Function != "" || f.File != "" {
			var b strings.Builder
			b.WriteString(f.Function)
			b.WriteString(" (")
			b.WriteString(f.File)
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(f.Line))
			b.WriteByte(')')
			out = append(out, b.String())
		}
		if !more {
			return out
		}
	}
}
