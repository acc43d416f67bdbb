package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// MetricTaskTransitions counts the task state changes the server wrote,
// by a2a.task.state (the new state) and a2a.task.previous_state ("none"
// for a new task). A task that ends adds one to its final state, so the
// rate of a2a.task.state="failed" is the rate of failed tasks.
const MetricTaskTransitions = "a2a.task.transitions"

// taskObserver counts transitions and, when the write's context has a
// recording span (the call that caused it, or a span of the executor),
// adds an a2a.task.transition event to it.
type taskObserver struct {
	transitions metric.Int64Counter
	// opts[from][to] are the measurement options of one transition.
	opts [][][]metric.AddOption
}

func newTaskObserver(c *config) server.TaskObserver {
	o := &taskObserver{transitions: counter(c.meter(), MetricTaskTransitions, "{transition}", "Task state changes.")}
	n := len(a2av1.TaskState_name)
	o.opts = make([][][]metric.AddOption, n)
	for from := range n {
		o.opts[from] = make([][]metric.AddOption, n)
		for to := range n {
			o.opts[from][to] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
				AttrPreviousTaskState.String(stateName(a2av1.TaskState(from))), AttrTaskState.String(stateName(a2av1.TaskState(to)))))}
		}
	}
	return o.observe
}

func (o *taskObserver) observe(ctx context.Context, tenant string, task *a2av1.Task, from, to a2av1.TaskState) {
	if f, t := int(from), int(to); f >= 0 && f < len(o.opts) && t >= 0 && t < len(o.opts) {
		o.transitions.Add(ctx, 1, o.opts[f][t]...)
	} else {
		o.transitions.Add(ctx, 1, metric.WithAttributes(AttrPreviousTaskState.String(stateName(from)), AttrTaskState.String(stateName(to))))
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("a2a.task.transition", trace.WithAttributes(AttrTaskID.String(task.GetId()),
			AttrPreviousTaskState.String(stateName(from)), AttrTaskState.String(stateName(to))))
	}
}
