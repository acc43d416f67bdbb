// Package echotest runs the echo agent's (internal/echo) behaviour contract
// through a typed v1.0 client, whatever binding, protocol version or
// transport stands between them. The v0.3 compatibility tests of agentcard
// (every binding a v0.3-only agent offers) and compat/a2av03grpc (the v0.3
// gRPC transport) use it.
package echotest

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
)

// Option changes what RoundTrip checks.
type Option func(*options)

type options struct {
	authenticated a2av1.A2AServiceClient
}

// Authenticated makes RoundTrip check, besides the anonymous refusal, that
// c (a client of the same agent with the credentials of
// echo.BearerAuthenticator) is served the extended card.
func Authenticated(c a2av1.A2AServiceClient) Option {
	return func(o *options) { o.authenticated = c }
}

// Code is the runtime error code of err (0 when err is not a
// *runtime.Error).
func Code(err error) runtime.ErrorCode {
	var e *runtime.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// RoundTrip runs every operation of the typed v1.0 client c against the
// echo agent, with the agent's push webhooks allowed to 127.0.0.1, and
// fails t where an answer is not the echo agent's: a direct message, a
// task read back by GetTask, a stream of 3 chunks, a slow task subscribed
// to then cancelled, push configs (created with and without an id, read,
// listed, deleted), the extended card (refused to c, which has no
// credentials) and the typed errors. ListTasks must be UnsupportedOperation,
// as it is over A2A v0.3.
func RoundTrip(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, opts ...Option) {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	checkDirectMessage(ctx, t, c)
	task := checkTaskReadBack(ctx, t, c)
	checkStream(ctx, t, c)
	checkSubscribeThenCancel(ctx, t, c)
	checkPushConfigs(ctx, t, c, task.GetId())
	checkExtendedCard(ctx, t, c, o.authenticated)
	checkTypedErrors(ctx, t, c, task.GetId())
}

// checkDirectMessage: "message …" is answered by a message, not a task.
func checkDirectMessage(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient) {
	t.Helper()
	resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("message hi")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetMessage().Text() != "Echo: message hi" {
		t.Fatalf("SendMessage message = %v", resp)
	}
}

// checkTaskReadBack sends a message answered by a completed task and reads
// it back with GetTask; it returns the task for the checks that need one.
func checkTaskReadBack(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient) *a2av1.Task {
	t.Helper()
	resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	task := resp.GetTask()
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(task.GetArtifacts()) != 1 {
		t.Fatalf("SendMessage task = %v", task)
	}
	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId(), HistoryLength: proto.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetId() != task.GetId() || got.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" || len(got.GetHistory()) != 1 {
		t.Fatalf("GetTask = %v", got)
	}
	return task
}

// checkStream: task, working, 3 chunks, completed.
func checkStream(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient) {
	t.Helper()
	var events []*a2av1.StreamResponse
	for e, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("stream 3"))) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	if len(events) != 6 || events[0].GetTask() == nil || events[5].GetStatusUpdate().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED ||
		!events[4].GetArtifactUpdate().GetLastChunk() {
		t.Fatalf("stream events = %v", events)
	}
}

// checkSubscribeThenCancel starts a slow task with returnImmediately,
// subscribes to it (the first event is the task), then cancels it.
func checkSubscribeThenCancel(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient) {
	t.Helper()
	resp, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: a2av1.NewTextMessage("slow 60000"),
		Configuration: &a2av1.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	slow := resp.GetTask().GetId()
	if slow == "" || resp.GetTask().GetStatus().GetState() == a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("returnImmediately SendMessage = %v", resp)
	}
	subCtx, stop := context.WithCancel(ctx)
	first := make(chan *a2av1.StreamResponse, 1)
	go func() {
		for e, err := range c.SubscribeToTask(subCtx, &a2av1.SubscribeToTaskRequest{Id: slow}) {
			if err != nil {
				t.Errorf("SubscribeToTask: %v", err)
			}
			first <- e
			return
		}
	}()
	select {
	case e := <-first:
		if e.GetTask().GetId() != slow {
			t.Errorf("SubscribeToTask first event = %v, want the task", e)
		}
	case <-ctx.Done():
		t.Fatal("SubscribeToTask sent nothing")
	}
	stop()
	canceled, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: slow})
	if err != nil {
		t.Fatal(err)
	}
	if canceled.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Errorf("CancelTask state = %v", canceled.GetStatus().GetState())
	}
}

// checkPushConfigs creates a push config of taskID with an id, reads,
// lists and deletes it, then creates one without an id.
func checkPushConfigs(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, taskID string) {
	t.Helper()
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: taskID, Id: "p1", Url: "http://127.0.0.1:9/hook", Token: "tok",
		Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "c"}}
	created, err := c.CreateTaskPushNotificationConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if created.GetTaskId() != taskID || created.GetId() != "p1" || created.GetUrl() != cfg.Url || created.GetAuthentication().GetScheme() != "Bearer" {
		t.Errorf("created push config = %v", created)
	}
	checkPushConfigRead(ctx, t, c, cfg)
	if _, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: taskID, Id: "p1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: taskID, Id: "p1"}); Code(err) == 0 {
		t.Errorf("a deleted push config is still read: %v", err)
	}
	checkPushConfigWithoutID(ctx, t, c, taskID)
}

// checkPushConfigRead reads cfg back, alone and as the only config of its
// task.
func checkPushConfigRead(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, cfg *a2av1.TaskPushNotificationConfig) {
	t.Helper()
	read, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: cfg.TaskId, Id: cfg.Id})
	if err != nil || read.GetUrl() != cfg.Url || read.GetTaskId() != cfg.TaskId || read.GetId() != cfg.Id {
		t.Errorf("GetTaskPushNotificationConfig = %v, %v", read, err)
	}
	list, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: cfg.TaskId})
	if err != nil || len(list.GetConfigs()) != 1 || list.GetConfigs()[0].GetId() != cfg.Id || list.GetConfigs()[0].GetTaskId() != cfg.TaskId {
		t.Errorf("ListTaskPushNotificationConfigs = %v, %v", list, err)
	}
}

// checkPushConfigWithoutID: a config without id gets a fresh one (the
// server's choice on v1.0 and v0.3 JSON; the v0.3 gRPC client names it,
// config_id being REQUIRED there), and the caller's config is left
// untouched.
func checkPushConfigWithoutID(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, taskID string) {
	t.Helper()
	noID := &a2av1.TaskPushNotificationConfig{TaskId: taskID, Url: "http://127.0.0.1:9/hook"}
	created, err := c.CreateTaskPushNotificationConfig(ctx, noID)
	if err != nil {
		t.Fatalf("CreateTaskPushNotificationConfig without id: %v", err)
	}
	if created.GetId() == "" || noID.GetId() != "" {
		t.Errorf("created without id: id %q (the caller's config now has id %q), want a fresh id and the caller's config untouched", created.GetId(), noID.GetId())
	}
	if read, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: taskID, Id: created.GetId()}); err != nil || read.GetUrl() != noID.GetUrl() {
		t.Errorf("GetTaskPushNotificationConfig of the id-less config = %v, %v", read, err)
	}
}

// checkExtendedCard: the extended card, in v1.0 form, is refused to c (no
// credentials) and served to authenticated when there is one.
func checkExtendedCard(ctx context.Context, t testing.TB, c, authenticated a2av1.A2AServiceClient) {
	t.Helper()
	if _, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{}); Code(err) != runtime.CodeUnauthenticated {
		t.Errorf("GetExtendedAgentCard without credentials: %v, want Unauthenticated", err)
	}
	if authenticated == nil {
		return
	}
	card, err := authenticated.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if card.GetName() != echo.Name || len(card.GetSkills()) != 2 || !card.GetCapabilities().GetStreaming() {
		t.Errorf("GetExtendedAgentCard = %v", card)
	}
}

// checkTypedErrors: errors are the same typed runtime errors whatever the
// binding; completedID is a completed task's id.
func checkTypedErrors(ctx context.Context, t testing.TB, c a2av1.A2AServiceClient, completedID string) {
	t.Helper()
	if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "no-such-task"}); Code(err) != runtime.CodeTaskNotFound {
		t.Errorf("GetTask of an unknown task: %v, want TaskNotFound", err)
	}
	if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: completedID}); Code(err) != runtime.CodeTaskNotCancelable {
		t.Errorf("CancelTask of a completed task: %v, want TaskNotCancelable", err)
	}
	for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "no-such-task"}) {
		if Code(err) != runtime.CodeTaskNotFound {
			t.Errorf("SubscribeToTask of an unknown task: %v, want TaskNotFound", err)
		}
		break
	}
	for _, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m", Role: a2av1.Role_ROLE_USER}}) {
		if Code(err) != runtime.CodeInvalidParams {
			t.Errorf("SendStreamingMessage of a message without parts: %v, want InvalidParams", err)
		}
		break
	}
	if _, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{}); Code(err) != runtime.CodeUnsupportedOperation {
		t.Errorf("ListTasks over v0.3: %v, want UnsupportedOperation", err)
	}
}
