package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// printEvent writes one stream event in the text form: the task, a direct
// message, a status change (its state and message), an artifact chunk
// (its content as a block).
func printEvent(w io.Writer, ev *a2av1.StreamResponse) {
	switch e := ev.GetPayload().(type) {
	case *a2av1.StreamResponse_Task:
		printTask(w, e.Task, false)
	case *a2av1.StreamResponse_Message:
		printMessage(w, e.Message)
	case *a2av1.StreamResponse_StatusUpdate:
		labeled(w, "State", e.StatusUpdate.GetStatus().GetState().Short())
		if m := e.StatusUpdate.GetStatus().GetMessage(); m != nil {
			writeParts(w, "Status Message", m.GetParts())
		}
	case *a2av1.StreamResponse_ArtifactUpdate:
		printArtifact(w, e.ArtifactUpdate.GetArtifact())
	}
}

// streamEnd is what a followed stream ended with.
type streamEnd struct {
	taskID, contextID string
	state             a2av1.TaskState
	events            int
}

// followStream prints every event of stream as it arrives (JSON Lines
// with -o json) and returns the identifiers and last state seen. The text
// form ends by restating the task, context and state (SPEC.md §11.2). A
// stream error after events is returned with what was seen, so that the
// caller can fall back to polling.
func (a *app) followStream(stream iter.Seq2[*a2av1.StreamResponse, error]) (streamEnd, error) {
	var end streamEnd
	for ev, err := range stream {
		if err != nil {
			return end, callError(err)
		}
		end.note(ev)
		if a.output == "text" {
			printEvent(a.env.stdout, ev)
			continue
		}
		if err := a.emit(a.env.stdout, ev, nil); err != nil {
			return end, err
		}
	}
	if a.output == "text" && end.taskID != "" {
		labeled(a.env.stdout, "Task ID", end.taskID)
		labeled(a.env.stdout, "Context ID", end.contextID)
		labeled(a.env.stdout, "State", end.state.Short())
	}
	return end, nil
}

// note counts the event and keeps the task, context and state it names.
func (end *streamEnd) note(ev *a2av1.StreamResponse) {
	end.events++
	if id := ev.TaskID(); id != "" {
		end.taskID = id
	}
	if id := ev.ContextID(); id != "" {
		end.contextID = id
	}
	if s := ev.State(); s != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
		end.state = s
	}
}

// finished reports whether a state ends a wait: terminal or interrupted
// (UNSPECIFIED is neither).
func finished(s a2av1.TaskState) bool { return s.Terminal() || s.Interrupted() }

// maxPollInterval bounds the backoff of waitForTask.
const maxPollInterval = 30 * time.Second

// waitForTask polls the task every --poll-interval (backing off by half
// up to 30s while nothing changes) until it is terminal or interrupted; the
// context (--timeout, Ctrl-C) ends the wait. Before each poll it says on
// stderr what it waits for, so the task id stays on screen if the wait is
// interrupted.
func (a *app) waitForTask(ctx context.Context, c *agentcard.Client, id string, history *int32) (*a2av1.Task, error) {
	interval := a.pollInterval
	var last a2av1.TaskState
	announced := false
	for {
		task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id, HistoryLength: history})
		if err != nil {
			return nil, callError(err)
		}
		s := task.GetStatus().GetState()
		if finished(s) {
			return task, nil
		}
		if !announced {
			fmt.Fprintf(a.env.stderr, "a2a: waiting for task %s (context %s), %s; Ctrl-C stops waiting, 'a2a task get --wait %s' resumes it\n",
				id, task.GetContextId(), s.Short(), id)
			announced = true
		}
		if s == last {
			interval = min(interval+interval/2, maxPollInterval)
		} else {
			interval, last = a.pollInterval, s
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, &cliError{code: errTimeout, hint: "task " + id + " is still " + s.Short() + "; wait more with 'a2a task get --wait " + id + "'",
					err: fmt.Errorf("--timeout expired while task %s was %s", id, s.Short())}
			}
			return nil, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// streamFailed reports whether a stream error is the connection's rather
// than an answer of the agent: then a wait falls back to polling.
func streamFailed(err error) bool {
	var e *runtime.Error
	return err != nil && !errors.As(err, &e) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// noteOutcome names on stderr a task outcome that is not a success —
// FAILED, REJECTED, CANCELED, or paused for input or authentication — with
// what to do next. It is a warning, not an error: the command did its job
// and exits 0 (SPEC.md §6.6); the state is in the output.
func (a *app) noteOutcome(taskID, contextID string, s a2av1.TaskState) error {
	switch s {
	case a2av1.TaskState_TASK_STATE_FAILED, a2av1.TaskState_TASK_STATE_REJECTED, a2av1.TaskState_TASK_STATE_CANCELED:
		fmt.Fprintf(a.env.stderr, "a2a: warning: task %s ended %s\n", taskID, s.Short())
	case a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, a2av1.TaskState_TASK_STATE_AUTH_REQUIRED:
		fmt.Fprintf(a.env.stderr, "a2a: warning: task %s is %s; resume it with: %s\n", taskID, s.Short(), resumeCommand(taskID, contextID, s))
	}
	return nil
}

// resumeCommand is the command line that continues an interrupted task.
func resumeCommand(taskID, contextID string, s a2av1.TaskState) string {
	cmd := "a2a send --task-id " + taskID
	if contextID != "" {
		cmd += " --context-id " + contextID
	}
	if s == a2av1.TaskState_TASK_STATE_AUTH_REQUIRED {
		return cmd + " --bearer TOKEN \"<reply>\""
	}
	return cmd + " \"<reply>\""
}
