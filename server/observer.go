package server

import (
	"context"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Hooks for observability. They keep the server free of any telemetry
// library: package telemetry adapts them to OpenTelemetry.

// TaskObserver is told of every change of a task's state the server
// writes: a new task (from TASK_STATE_UNSPECIFIED), each transition, and
// the settling of tasks whose runner stopped. task is the new snapshot
// (never to be modified). It runs on the writer's goroutine after the
// write succeeded and must not block.
type TaskObserver func(ctx context.Context, tenant string, task *a2av1.Task, from, to a2av1.TaskState)

// WithTaskObserver sets the TaskObserver of the server.
func WithTaskObserver(f TaskObserver) Option {
	return func(s *Server) { s.writer.observer = f }
}

// WithTraceContext sets how the trace context of a write is read from its
// context: it is stored with the push deliveries the write queues
// (store.TraceContext), so that each webhook request continues the trace
// of the call that produced its event, whichever replica sends it. f is
// called only for writes that carry events.
func WithTraceContext(f func(ctx context.Context) store.TraceContext) Option {
	return func(s *Server) { s.writer.traceContext = f }
}

// traceOf is the trace context to store with the deliveries of a write of
// events made with ctx.
func (w *taskWriter) traceOf(ctx context.Context, events []*a2av1.StreamResponse) store.TraceContext {
	if w.traceContext == nil || len(events) == 0 {
		return store.TraceContext{}
	}
	return w.traceContext(ctx)
}

// observeState tells the TaskObserver of a write that changed the task's
// state.
func (w *taskWriter) observeState(ctx context.Context, tenant string, from, to *a2av1.Task) {
	if w.observer == nil {
		return
	}
	f, t := from.GetStatus().GetState(), to.GetStatus().GetState()
	if f != t {
		w.observer(ctx, tenant, to, f, t)
	}
}
