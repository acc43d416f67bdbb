package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// scenario is a named sequence of steps the SDK client runs against a server
// that implements the echo contract.
type scenario struct {
	name string
	run  func(r *runner, ctx context.Context)
	// alone marks a scenario that "all" leaves out: it needs a
	// particular server or flag.
	alone bool
}

// scenarios in the order "all" runs them.
var scenarios = []scenario{
	{"send", (*runner).scenarioSend, false},
	{"tasks", (*runner).scenarioTasks, false},
	{"cancel", (*runner).scenarioCancel, false},
	{"errors", (*runner).scenarioErrors, false},
	{"stream", (*runner).scenarioStream, false},
	{"resubscribe", (*runner).scenarioResubscribe, false},
	{"card", (*runner).scenarioCard, false},
	{"push", (*runner).scenarioPush, false},
	{"extensions", (*runner).scenarioExtensions, true},
	{"list", (*runner).scenarioList, true},
}

func scenarioNames() []string {
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.name
	}
	return names
}

func (r *runner) runScenario(ctx context.Context, s scenario) { s.run(r, ctx) }

// ok is the pseudo-reason meaning "the call succeeds" in expectation lists.
const ok = "OK"

// wantOutcome checks err against reasons, where ok means success.
func wantOutcome(rep *stepReport, err error, reasons []string) error {
	if err == nil && slices.Contains(reasons, ok) {
		return nil
	}
	if err != nil {
		noteErr(rep, err)
	}
	var errReasons []string
	for _, r := range reasons {
		if r != ok {
			errReasons = append(errReasons, r)
		}
	}
	if len(errReasons) == 0 {
		return fmt.Errorf("failed: %w", err)
	}
	return wantReason(rep, err, errReasons...)
}

// --- send ------------------------------------------------------------------

func (r *runner) scenarioSend(ctx context.Context) {
	r.step(ctx, "hello-completes-with-echo-artifact", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("hello"), nil)
		if err != nil {
			return err
		}
		return all(
			wantState(task, a2a.TaskStateCompleted),
			wantArtifactTexts(task, "Echo: hello"),
			check(task.ContextID != "", "task has no contextId"),
		)
	})
	r.step(ctx, "message-answers-without-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		res, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("message hi there")})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		msg, isMsg := res.(*a2a.Message)
		if !isMsg {
			return fmt.Errorf("result is %T, want a direct Message", res)
		}
		rep.Fields["text"] = partsText(msg.Parts)
		rep.Fields["contextId"] = msg.ContextID
		return all(
			check(msg.Role == a2a.MessageRoleAgent, "role %q, want ROLE_AGENT", msg.Role),
			check(partsText(msg.Parts) == "Echo: message hi there", "text %q, want %q", partsText(msg.Parts), "Echo: message hi there"),
			check(msg.ContextID != "", "message has no contextId"),
		)
	})
	r.step(ctx, "client-contextId-kept", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		m := userMessage("hello context")
		m.ContextID = "interop-ctx-" + a2a.NewContextID()
		task, err := r.sendTask(ctx, rep, m, nil)
		if err != nil {
			return err
		}
		return check(task.ContextID == m.ContextID, "contextId %q, want the client's %q", task.ContextID, m.ContextID)
	})
	var input *a2a.Task
	r.step(ctx, "input-required-with-agent-message", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("input"), nil)
		if err != nil {
			return err
		}
		input = task
		return all(wantState(task, a2a.TaskStateInputRequired), wantStatusMessage(task))
	})
	r.step(ctx, "follow-up-completes-input-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		if input == nil {
			return errors.New("no INPUT_REQUIRED task from the previous step")
		}
		task, err := r.sendTask(ctx, rep, a2a.NewMessageForTask(a2a.MessageRoleUser, input, a2a.NewTextPart("more words")), nil)
		if err != nil {
			return err
		}
		return all(
			check(task.ID == input.ID, "task id %q, want the same task %q", task.ID, input.ID),
			wantState(task, a2a.TaskStateCompleted),
			wantArtifactTexts(task, "Echo: more words"),
		)
	})
	r.step(ctx, "fail-ends-failed-with-message", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("fail"), nil)
		if err != nil {
			return err
		}
		return all(wantState(task, a2a.TaskStateFailed), wantStatusMessage(task))
	})
	r.step(ctx, "reject-ends-rejected-with-message", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("REJECT please"), nil)
		if err != nil {
			return err
		}
		return all(wantState(task, a2a.TaskStateRejected), wantStatusMessage(task))
	})
	r.step(ctx, "returnImmediately-then-poll", "SendMessage+GetTask", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("slow 300"), &a2a.SendMessageConfig{ReturnImmediately: true})
		if err != nil {
			return err
		}
		if task.Status.State.Terminal() {
			return fmt.Errorf("returnImmediately answered a %s task, want it still running", task.Status.State)
		}
		done, err := r.waitTerminal(ctx, task.ID)
		if err != nil {
			return err
		}
		rep.Fields["finalState"] = string(done.Status.State)
		return all(wantState(done, a2a.TaskStateCompleted), wantArtifactTexts(done, "Echo: slow 300"))
	})
	r.step(ctx, "extensions-as-repeated-headers", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		// The SDK sends one A2A-Extensions line per URI, not one comma-joined line.
		ctx = a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{
			a2a.SvcParamExtensions: {"https://example.com/ext/one", "https://example.com/ext/two"},
		})
		task, err := r.sendTask(ctx, rep, userMessage("hello extensions"), nil)
		if err != nil {
			return err
		}
		return wantState(task, a2a.TaskStateCompleted)
	})
}

// --- tasks -----------------------------------------------------------------

func (r *runner) scenarioTasks(ctx context.Context) {
	contextID := "interop-list-" + a2a.NewContextID()
	var one, two, failed *a2a.Task
	before := time.Now().Add(-time.Minute)
	if !r.step(ctx, "setup-three-tasks-in-one-context", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		var err error
		for _, p := range []struct {
			dst  **a2a.Task
			text string
		}{{&one, "hello one"}, {&two, "hello two"}, {&failed, "fail"}} {
			// Status timestamps have millisecond precision on the wire:
			// keep the three apart so that "newest first" is one order.
			time.Sleep(3 * time.Millisecond)
			m := userMessage(p.text)
			m.ContextID = contextID
			if *p.dst, err = r.sendTask(ctx, rep, m, nil); err != nil {
				return err
			}
		}
		return nil
	}) {
		return
	}
	r.step(ctx, "get-task-full-history", "GetTask", func(ctx context.Context, rep *stepReport) error {
		task, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: one.ID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["history"] = len(task.History)
		return all(
			wantState(task, a2a.TaskStateCompleted),
			wantArtifactTexts(task, "Echo: hello one"),
			check(len(task.History) >= 1, "history is empty, want the user message"),
		)
	})
	r.step(ctx, "get-task-historyLength-0", "GetTask", func(ctx context.Context, rep *stepReport) error {
		task, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: one.ID, HistoryLength: ptr(0)})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["history"] = len(task.History)
		return check(len(task.History) == 0, "%d history messages, want none", len(task.History))
	})
	r.step(ctx, "get-task-historyLength-1", "GetTask", func(ctx context.Context, rep *stepReport) error {
		task, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: one.ID, HistoryLength: ptr(1)})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["history"] = len(task.History)
		return check(len(task.History) <= 1, "%d history messages, want at most 1", len(task.History))
	})
	r.step(ctx, "list-by-context-newest-first", "ListTasks", func(ctx context.Context, rep *stepReport) error {
		res, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		ids := taskIDs(res.Tasks)
		rep.Fields["taskIds"], rep.Fields["totalSize"] = ids, res.TotalSize
		return all(
			check(slices.Equal(ids, []a2a.TaskID{failed.ID, two.ID, one.ID}), "tasks %v, want %v (newest first)", ids, []a2a.TaskID{failed.ID, two.ID, one.ID}),
			check(res.TotalSize == 3, "totalSize %d, want 3", res.TotalSize),
			check(res.NextPageToken == "", "nextPageToken %q on the only page, want empty", res.NextPageToken),
		)
	})
	r.step(ctx, "list-filter-status", "ListTasks", func(ctx context.Context, rep *stepReport) error {
		res, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, Status: a2a.TaskStateFailed})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		ids := taskIDs(res.Tasks)
		rep.Fields["taskIds"] = ids
		return check(slices.Equal(ids, []a2a.TaskID{failed.ID}), "tasks %v, want only the FAILED one %v", ids, failed.ID)
	})
	r.step(ctx, "list-artifacts-only-when-asked", "ListTasks", func(ctx context.Context, rep *stepReport) error {
		without, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		with, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, IncludeArtifacts: true})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		var problems []error
		for _, t := range without.Tasks {
			problems = append(problems, check(len(t.Artifacts) == 0, "task %s has artifacts without includeArtifacts", t.ID))
		}
		withArtifacts := 0
		for _, t := range with.Tasks {
			if len(t.Artifacts) > 0 {
				withArtifacts++
			}
		}
		rep.Fields["withArtifacts"] = withArtifacts
		problems = append(problems, check(withArtifacts == 2, "%d tasks carry artifacts with includeArtifacts, want the 2 completed ones", withArtifacts))
		return all(problems...)
	})
	r.step(ctx, "list-pages", "ListTasks", func(ctx context.Context, rep *stepReport) error {
		first, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, PageSize: 2})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		if len(first.Tasks) != 2 || first.NextPageToken == "" {
			return fmt.Errorf("first page has %d tasks and token %q, want 2 and a token", len(first.Tasks), first.NextPageToken)
		}
		second, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, PageSize: 2, PageToken: first.NextPageToken})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		ids := append(taskIDs(first.Tasks), taskIDs(second.Tasks)...)
		rep.Fields["taskIds"] = ids
		return all(
			check(slices.Equal(ids, []a2a.TaskID{failed.ID, two.ID, one.ID}), "pages hold %v, want %v", ids, []a2a.TaskID{failed.ID, two.ID, one.ID}),
			check(second.NextPageToken == "", "last page token %q, want empty", second.NextPageToken),
			check(first.PageSize == 2, "pageSize %d echoed, want 2", first.PageSize),
		)
	})
	r.step(ctx, "list-statusTimestampAfter", "ListTasks", func(ctx context.Context, rep *stepReport) error {
		// Over HTTP+JSON the SDK client sends this as ?lastUpdatedAfter= (a pre-release name).
		future := time.Now().Add(time.Hour)
		past, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, StatusTimestampAfter: &before})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		later, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, StatusTimestampAfter: &future})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["afterPast"], rep.Fields["afterFuture"] = len(past.Tasks), len(later.Tasks)
		wantFuture := 0
		if r.cfg.expect == expectSDK && r.binding == a2a.TransportProtocolHTTPJSON {
			// The SDK's REST client sends lastUpdatedAfter, which its REST
			// server does not read (v2.3.1's dropped statusTimestampAfter too:
			// it parsed the query into a **time.Time its type switch did not know).
			wantFuture = 3
		}
		return all(
			check(len(past.Tasks) == 3, "%d tasks updated after a minute ago, want 3", len(past.Tasks)),
			check(len(later.Tasks) == wantFuture, "%d tasks updated after an hour from now, want %d", len(later.Tasks), wantFuture),
		)
	})
}

// --- cancel ----------------------------------------------------------------

func (r *runner) scenarioCancel(ctx context.Context) {
	var task *a2a.Task
	if !r.step(ctx, "start-slow-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		var err error
		task, err = r.sendTask(ctx, rep, userMessage("slow 10000"), &a2a.SendMessageConfig{ReturnImmediately: true})
		if err != nil {
			return err
		}
		return check(!task.Status.State.Terminal(), "task is already %s", task.Status.State)
	}) {
		return
	}
	r.step(ctx, "cancel-working-task", "CancelTask", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["state"] = string(got.Status.State)
		return all(check(got.ID == task.ID, "task %q, want %q", got.ID, task.ID), wantState(got, a2a.TaskStateCanceled))
	})
	r.step(ctx, "get-canceled-task", "GetTask", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["state"] = string(got.Status.State)
		return wantState(got, a2a.TaskStateCanceled)
	})
	r.step(ctx, "cancel-again-returns-task", "CancelTask", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return wantState(got, a2a.TaskStateCanceled)
	})
}

// --- errors ----------------------------------------------------------------

func (r *runner) scenarioErrors(ctx context.Context) {
	unknown := a2a.TaskID("interop-no-such-task-" + a2a.NewContextID())
	r.step(ctx, "get-unknown-task", "GetTask", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: unknown})
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "cancel-unknown-task", "CancelTask", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: unknown})
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "message-to-unknown-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		m := userMessage("hello")
		m.TaskID = unknown
		_, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "subscribe-unknown-task", "SubscribeToTask", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: unknown}))
		rep.Fields["events"] = describeAll(events)
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "message-without-parts", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: &a2a.Message{ID: a2a.NewMessageID(), Role: a2a.MessageRoleUser}})
		return wantReason(rep, err, "INVALID_PARAMS")
	})

	var done *a2a.Task
	if !r.step(ctx, "setup-completed-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		var err error
		done, err = r.sendTask(ctx, rep, userMessage("hello"), nil)
		if err != nil {
			return err
		}
		return wantState(done, a2a.TaskStateCompleted)
	}) {
		return
	}
	r.step(ctx, "cancel-terminal-task", "CancelTask", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: done.ID})
		return wantReason(rep, err, "TASK_NOT_CANCELABLE")
	})
	r.step(ctx, "message-to-terminal-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, done, a2a.NewTextPart("again"))})
		// The spec says UnsupportedOperation (-32004); the SDK server answers -32602.
		return wantReason(rep, err, r.sdkOr([]string{"INVALID_PARAMS"}, []string{"UNSUPPORTED_OPERATION"})...)
	})
	r.step(ctx, "subscribe-terminal-task", "SubscribeToTask", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: done.ID}))
		rep.Fields["events"] = describeAll(events)
		// The spec says UnsupportedOperation (-32004); the SDK server (single process) answers TaskNotFound.
		return wantReason(rep, err, r.sdkOr([]string{"TASK_NOT_FOUND"}, []string{"UNSUPPORTED_OPERATION"})...)
	})
	r.step(ctx, "get-missing-push-config", "GetTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: done.ID, ID: "interop-missing"})
		// The spec says TaskNotFound; the SDK server answers an internal error.
		return wantReason(rep, err, r.sdkOr([]string{"INTERNAL_ERROR"}, []string{"TASK_NOT_FOUND"})...)
	})
	// Since v2.4.0 the SDK server looks the task up before any push-config
	// call (up to v2.3.1 it answered an internal error to Get, listed the
	// empty configs and stored a config of any task id).
	r.step(ctx, "push-config-of-unknown-task", "GetTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: unknown, ID: "interop-missing"})
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "list-push-configs-of-unknown-task", "ListTaskPushNotificationConfigs", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: unknown})
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "create-push-config-for-unknown-task", "CreateTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: unknown, URL: "http://127.0.0.1:9/never"})
		return wantReason(rep, err, "TASK_NOT_FOUND")
	})
	r.step(ctx, "delete-missing-push-config-is-idempotent", "DeleteTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		return wantOK(rep, r.client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: done.ID, ID: "interop-missing"}))
	})
}

// --- stream ----------------------------------------------------------------

func (r *runner) scenarioStream(ctx context.Context) {
	var streamed a2a.TaskID
	r.step(ctx, "stream-5-chunks", "SendStreamingMessage", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("stream 5")}))
		rep.Fields["events"] = describeAll(events)
		if err := wantOK(rep, err); err != nil {
			return err
		}
		if len(events) == 0 {
			return errors.New("no events")
		}
		task, isTask := events[0].(*a2a.Task)
		if !isTask {
			return fmt.Errorf("first event is %s, want the Task", describe(events[0]))
		}
		streamed = task.ID
		rep.Fields["taskId"] = task.ID
		return all(
			wantSequence(events, "task:SUBMITTED", "status:WORKING",
				"artifact:chunk 1/5;", "artifact+:chunk 2/5;", "artifact+:chunk 3/5;", "artifact+:chunk 4/5;", "artifact+:chunk 5/5;[last]",
				"status:COMPLETED"),
			wantSameTask(events, task),
			wantOneArtifactID(events),
		)
	})
	r.step(ctx, "streamed-task-has-appended-artifact", "GetTask", func(ctx context.Context, rep *stepReport) error {
		if streamed == "" {
			return errors.New("no task from the previous step")
		}
		task, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: streamed})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return all(wantState(task, a2a.TaskStateCompleted), wantArtifactTexts(task, "chunk 1/5;chunk 2/5;chunk 3/5;chunk 4/5;chunk 5/5;"))
	})
	r.step(ctx, "stream-message-is-one-event", "SendStreamingMessage", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("message streamed")}))
		rep.Fields["events"] = describeAll(events)
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return wantSequence(events, "message:Echo: message streamed")
	})
	r.step(ctx, "stream-hello", "SendStreamingMessage", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("hello stream")}))
		rep.Fields["events"] = describeAll(events)
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return wantSequence(events, "task:SUBMITTED", "artifact:Echo: hello stream[last]?", "status:COMPLETED")
	})
	r.step(ctx, "stream-ends-at-input-required", "SendStreamingMessage", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("input")}))
		rep.Fields["events"] = describeAll(events)
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return wantSequence(events, "task:SUBMITTED", "status:INPUT_REQUIRED")
	})
	r.step(ctx, "stream-fail", "SendStreamingMessage", func(ctx context.Context, rep *stepReport) error {
		events, err := collect(r.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("fail")}))
		rep.Fields["events"] = describeAll(events)
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return wantSequence(events, "task:SUBMITTED", "status:WORKING", "status:FAILED")
	})
}

// --- resubscribe -----------------------------------------------------------

func (r *runner) scenarioResubscribe(ctx context.Context) {
	r.step(ctx, "two-subscribers-see-the-same-events", "SendMessage+SubscribeToTask", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("slow 1500"), &a2a.SendMessageConfig{ReturnImmediately: true})
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		seqs := make([][]a2a.Event, 2)
		errs := make([]error, 2)
		for i := range seqs {
			wg.Go(func() {
				seqs[i], errs[i] = collect(r.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}))
			})
		}
		wg.Wait()
		rep.Fields["events0"], rep.Fields["events1"] = describeAll(seqs[0]), describeAll(seqs[1])
		var problems []error
		for i, events := range seqs {
			if err := wantOK(rep, errs[i]); err != nil {
				return fmt.Errorf("subscriber %d: %w", i, err)
			}
			if len(events) == 0 {
				return fmt.Errorf("subscriber %d got no events", i)
			}
			snap, isTask := events[0].(*a2a.Task)
			problems = append(problems,
				check(isTask, "subscriber %d: first event %s, want the Task snapshot", i, describe(events[0])),
				check(!isTask || snap.ID == task.ID, "subscriber %d: snapshot of another task", i),
				wantSuffix(events, "artifact:Echo: slow 1500[last]?", "status:COMPLETED"),
			)
		}
		// A subscriber that came after a status change starts from a later
		// snapshot and misses that change; after it, both see the same events.
		a, b := describeAll(seqs[0])[1:], describeAll(seqs[1])[1:]
		if len(a) > len(b) {
			a, b = b, a
		}
		problems = append(problems, check(slices.Equal(b[len(b)-len(a):], a),
			"subscribers saw different events after the snapshot: %q vs %q", a, b))
		return all(problems...)
	})
	r.step(ctx, "subscriber-sees-cancel", "SubscribeToTask+CancelTask", func(ctx context.Context, rep *stepReport) error {
		task, err := r.sendTask(ctx, rep, userMessage("slow 10000"), &a2a.SendMessageConfig{ReturnImmediately: true})
		if err != nil {
			return err
		}
		var events []a2a.Event
		var subErr, cancelErr error
		for ev, err := range r.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
			if err != nil {
				subErr = err
				break
			}
			events = append(events, ev)
			if len(events) == 1 {
				_, cancelErr = r.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
			}
		}
		rep.Fields["events"] = describeAll(events)
		if err := wantOK(rep, errors.Join(subErr, cancelErr)); err != nil {
			return err
		}
		return wantSuffix(events, "status:CANCELED")
	})
}

// --- card ------------------------------------------------------------------

func (r *runner) scenarioCard(ctx context.Context) {
	r.step(ctx, "extended-card-has-one-more-skill", "GetExtendedAgentCard", func(ctx context.Context, rep *stepReport) error {
		if r.cfg.bearer != "" {
			ctx = a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{"Authorization": {"Bearer " + r.cfg.bearer}})
		}
		card, err := r.client.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["skills"] = len(card.Skills)
		return check(len(card.Skills) == len(r.card.Skills)+1, "%d skills, want the public card's %d plus one", len(card.Skills), len(r.card.Skills))
	})
}

// --- extensions ------------------------------------------------------------

// scenarioExtensions sends one message asking for two extensions, which the
// SDK puts on the wire as two A2A-Extensions lines. It
// needs no echo contract: any successful answer will do, so a test server
// can record how it read the header.
func (r *runner) scenarioExtensions(ctx context.Context) {
	r.step(ctx, "two-extensions-two-header-lines", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		ctx = a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{
			a2a.SvcParamExtensions: {"https://example.com/ext/one", "https://example.com/ext/two"},
		})
		res, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("message extensions")})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["result"] = fmt.Sprintf("%T", res)
		return nil
	})
}

// --- list ------------------------------------------------------------------

// scenarioList lists tasks without any parameter. Over gRPC the SDK then
// sends pageSize 0 as a present field (and includeArtifacts false): a
// server must read that as "the default page size". Any answer but an
// error will do.
func (r *runner) scenarioList(ctx context.Context) {
	r.step(ctx, "list-tasks-without-parameters", "ListTasks", func(ctx context.Context, rep *stepReport) error {
		res, err := r.client.ListTasks(ctx, &a2a.ListTasksRequest{})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["pageSize"], rep.Fields["tasks"] = res.PageSize, len(res.Tasks)
		return nil
	})
}

// --- push ------------------------------------------------------------------

func (r *runner) scenarioPush(ctx context.Context) {
	if r.cfg.webhook == "" {
		r.step(ctx, "webhook", "-", func(context.Context, *stepReport) error { return errors.New("-webhook is required") })
		return
	}
	var task *a2a.Task
	if !r.step(ctx, "start-slow-task", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		var err error
		task, err = r.sendTask(ctx, rep, userMessage("slow 1500"), &a2a.SendMessageConfig{ReturnImmediately: true})
		return err
	}) {
		return
	}
	const configID = "interop-cfg"
	want := &a2a.PushConfig{
		TaskID: task.ID,
		ID:     configID,
		URL:    r.cfg.webhook,
		Token:  "token-" + string(task.ID),
		Auth:   &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "push-secret"},
	}
	r.step(ctx, "create-push-config", "CreateTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.CreateTaskPushConfig(ctx, want)
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["taskId"], rep.Fields["token"], rep.Fields["id"] = got.TaskID, want.Token, got.ID
		return wantPushConfig(got, want)
	})
	r.step(ctx, "get-push-config", "GetTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: configID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return wantPushConfig(got, want)
	})
	r.step(ctx, "list-push-configs", "ListTaskPushNotificationConfigs", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		rep.Fields["configs"] = len(got)
		return check(len(got) == 1 && got[0].ID == configID, "%d configs, want exactly %q", len(got), configID)
	})
	r.step(ctx, "task-completes", "GetTask", func(ctx context.Context, rep *stepReport) error {
		done, err := r.waitTerminal(ctx, task.ID)
		if err != nil {
			return err
		}
		rep.Fields["taskId"] = done.ID
		return wantState(done, a2a.TaskStateCompleted)
	})
	r.step(ctx, "delete-push-config", "DeleteTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		return wantOK(rep, r.client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: configID}))
	})
	r.step(ctx, "get-deleted-push-config", "GetTaskPushNotificationConfig", func(ctx context.Context, rep *stepReport) error {
		_, err := r.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: configID})
		return wantReason(rep, err, r.sdkOr([]string{"INTERNAL_ERROR"}, []string{"TASK_NOT_FOUND"})...)
	})
	r.step(ctx, "list-after-delete", "ListTaskPushNotificationConfigs", func(ctx context.Context, rep *stepReport) error {
		got, err := r.client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
		if err := wantOK(rep, err); err != nil {
			return err
		}
		return check(len(got) == 0, "%d configs left after delete, want none", len(got))
	})
	r.step(ctx, "inline-push-config", "SendMessage", func(ctx context.Context, rep *stepReport) error {
		inline := &a2a.PushConfig{URL: r.cfg.webhook, Token: "inline-" + a2a.NewContextID()}
		done, err := r.sendTask(ctx, rep, userMessage("hello push"), &a2a.SendMessageConfig{PushConfig: inline})
		if err != nil {
			return err
		}
		rep.Fields["token"] = inline.Token
		return wantState(done, a2a.TaskStateCompleted)
	})
}

// --- helpers ---------------------------------------------------------------

func userMessage(text string) *a2a.Message {
	return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
}

// sendTask sends m and expects a Task back; it notes the task in rep.
func (r *runner) sendTask(ctx context.Context, rep *stepReport, m *a2a.Message, cfg *a2a.SendMessageConfig) (*a2a.Task, error) {
	res, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: m, Config: cfg})
	if err := wantOK(rep, err); err != nil {
		return nil, err
	}
	task, isTask := res.(*a2a.Task)
	if !isTask {
		return nil, fmt.Errorf("result is %T, want a Task", res)
	}
	rep.Fields["taskId"], rep.Fields["contextId"], rep.Fields["state"] = task.ID, task.ContextID, string(task.Status.State)
	if len(task.Artifacts) > 0 {
		rep.Fields["artifacts"] = artifactTexts(task)
	}
	return task, nil
}

// waitTerminal polls GetTask until the task is in a terminal state.
func (r *runner) waitTerminal(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	for {
		task, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err != nil {
			return nil, fmt.Errorf("GetTask while waiting for %s: %w", id, err)
		}
		if task.Status.State.Terminal() {
			return task, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("task %s still %s: %w", id, task.Status.State, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// collect drains a stream; the error is the one that ended it, if any.
func collect(seq func(func(a2a.Event, error) bool)) ([]a2a.Event, error) {
	var events []a2a.Event
	for ev, err := range seq {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

// describe renders an event compactly: "task:SUBMITTED", "status:WORKING",
// "artifact:<text>" ("artifact+" when appending, "[last]" on the last chunk)
// or "message:<text>".
func describe(ev a2a.Event) string {
	switch v := ev.(type) {
	case *a2a.Task:
		return "task:" + shortState(v.Status.State)
	case *a2a.TaskStatusUpdateEvent:
		return "status:" + shortState(v.Status.State)
	case *a2a.TaskArtifactUpdateEvent:
		s := "artifact"
		if v.Append {
			s += "+"
		}
		s += ":" + partsText(v.Artifact.Parts)
		if v.LastChunk {
			s += "[last]"
		}
		return s
	case *a2a.Message:
		return "message:" + partsText(v.Parts)
	default:
		return fmt.Sprintf("%T", ev)
	}
}

func describeAll(events []a2a.Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = describe(ev)
	}
	return out
}

func shortState(s a2a.TaskState) string { return strings.TrimPrefix(string(s), "TASK_STATE_") }

func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func artifactTexts(t *a2a.Task) []string {
	out := make([]string, len(t.Artifacts))
	for i, a := range t.Artifacts {
		out[i] = partsText(a.Parts)
	}
	return out
}

func taskIDs(tasks []*a2a.Task) []a2a.TaskID {
	out := make([]a2a.TaskID, len(tasks))
	for i, t := range tasks {
		out[i] = t.ID
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// check returns an error built from format when cond is false.
func check(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// all joins the failed checks.
func all(errs ...error) error { return errors.Join(errs...) }

func wantState(t *a2a.Task, want a2a.TaskState) error {
	return check(t.Status.State == want, "task %s is %s, want %s", t.ID, t.Status.State, want)
}

func wantArtifactTexts(t *a2a.Task, want ...string) error {
	got := artifactTexts(t)
	return check(slices.Equal(got, want), "artifacts %q, want %q", got, want)
}

func wantStatusMessage(t *a2a.Task) error {
	m := t.Status.Message
	return check(m != nil && m.Role == a2a.MessageRoleAgent && partsText(m.Parts) != "",
		"task %s (%s) has no status message from the agent", t.ID, t.Status.State)
}

// wantSequence compares described events with want; a want entry ending in
// "[last]?" matches the artifact with or without lastChunk, which the echo
// contract leaves open for one-chunk artifacts.
func wantSequence(events []a2a.Event, want ...string) error {
	got := describeAll(events)
	return check(slices.EqualFunc(got, want, eventMatches), "events %q, want %q", got, want)
}

func wantSuffix(events []a2a.Event, want ...string) error {
	got := describeAll(events)
	return check(len(got) >= len(want) && slices.EqualFunc(got[len(got)-len(want):], want, eventMatches),
		"events %q, want them to end with %q", got, want)
}

func eventMatches(got, want string) bool {
	if base, optional := strings.CutSuffix(want, "[last]?"); optional {
		return got == base || got == base+"[last]"
	}
	return got == want
}

func wantSameTask(events []a2a.Event, task *a2a.Task) error {
	for _, ev := range events {
		info := ev.TaskInfo()
		if info.TaskID != task.ID || info.ContextID != task.ContextID {
			return fmt.Errorf("event %s carries task %q context %q, want %q %q", describe(ev), info.TaskID, info.ContextID, task.ID, task.ContextID)
		}
	}
	return nil
}

func wantOneArtifactID(events []a2a.Event) error {
	var id a2a.ArtifactID
	for _, ev := range events {
		if a, isArtifact := ev.(*a2a.TaskArtifactUpdateEvent); isArtifact {
			if id == "" {
				id = a.Artifact.ID
			} else if a.Artifact.ID != id {
				return fmt.Errorf("chunks of two artifacts %q and %q, want one", id, a.Artifact.ID)
			}
		}
	}
	return nil
}

func wantPushConfig(got, want *a2a.PushConfig) error {
	return all(
		check(got.ID == want.ID, "config id %q, want %q", got.ID, want.ID),
		check(got.TaskID == want.TaskID, "taskId %q, want %q", got.TaskID, want.TaskID),
		check(got.URL == want.URL, "url %q, want %q", got.URL, want.URL),
	)
}
