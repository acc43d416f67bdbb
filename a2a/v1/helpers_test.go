package a2av1_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

// This file holds the handlers and values the end-to-end tests of every
// binding share.

// userMessage is a one-part text message from the user, on taskID if set.
func userMessage(text, taskID string) *a2av1.Message {
	return &a2av1.Message{MessageId: "m-" + text, TaskId: taskID, Role: a2av1.Role_ROLE_USER,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}
}

// newAgentWithCard is the in-memory agent runAllOperations expects: fresh,
// with an extended card named "ext".
func newAgentWithCard() *testagent.Agent {
	agent := testagent.New()
	agent.ExtendedCard = &a2av1.AgentCard{Name: "ext", Description: "extended", Version: "1"}
	return agent
}

// errorHandler answers GetTask with the error whose code name is the task
// id, and SubscribeToTask with one task event followed by that error.
type errorHandler struct {
	a2av1.UnimplementedA2AServiceHandler
	errs map[string]*runtime.Error
}

func (h errorHandler) GetTask(_ context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	return nil, h.errs[req.GetId()]
}

func (h errorHandler) SubscribeToTask(_ context.Context, req *a2av1.SubscribeToTaskRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	if err := s.Send(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: req.GetId(),
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}}); err != nil {
		return err
	}
	return h.errs[req.GetId()]
}

// allErrors is one error of every A2A and JSON-RPC code, keyed by the
// code's name.
func allErrors() map[string]*runtime.Error {
	return map[string]*runtime.Error{
		"TaskNotFound":                   runtime.TaskNotFound("t-1"),
		"TaskNotCancelable":              runtime.TaskNotCancelable("t-1"),
		"PushNotificationNotSupported":   runtime.PushNotificationNotSupported(),
		"UnsupportedOperation":           runtime.UnsupportedOperation("not here"),
		"ContentTypeNotSupported":        runtime.ContentTypeNotSupported("image/gif"),
		"InvalidAgentResponse":           runtime.InvalidAgentResponse("agent broke the protocol"),
		"ExtendedAgentCardNotConfigured": runtime.ExtendedAgentCardNotConfigured(),
		"ExtensionSupportRequired":       runtime.ExtensionSupportRequired("https://ext.example/v1"),
		"VersionNotSupported":            runtime.VersionNotSupported("2.0", "1.0"),
		"ParseError":                     runtime.NewError(runtime.CodeParseError, "bad json"),
		"InvalidRequest":                 runtime.NewError(runtime.CodeInvalidRequest, "bad request"),
		"MethodNotFound":                 runtime.NewError(runtime.CodeMethodNotFound, "no such method"),
		"InvalidParams":                  runtime.InvalidParams("bad field", runtime.FieldViolation{Field: "id", Description: "too long"}),
		"Internal":                       runtime.NewError(runtime.CodeInternal, ""),
		"Unauthenticated":                runtime.Unauthenticated("token expired"),
		"Unauthorized":                   runtime.Unauthorized("missing scope tasks:read"),
	}
}

// streamUntilCanceled sends events until the client goes away, and reports
// when its context ended.
type streamUntilCanceled struct {
	a2av1.UnimplementedA2AServiceHandler
	ended chan struct{}
}

func (h streamUntilCanceled) SendStreamingMessage(ctx context.Context, _ *a2av1.SendMessageRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	defer close(h.ended)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
			TaskId: "t", ContextId: "c", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}}
		if err := s.Send(ev); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// paramsEcho answers GetTask with what the handler saw of the service
// parameters (in the task's context id) and activates one extension; its
// stream does the same in one event.
type paramsEcho struct {
	a2av1.UnimplementedA2AServiceHandler
}

// describeCall is "binding|tenant|version|extensions|Authorization" of the
// call being served; it activates https://ext.example/a.
func describeCall(ctx context.Context) (string, error) {
	info, ok := runtime.CallInfoFromContext(ctx)
	if !ok {
		return "", errors.New("no CallInfo in the handler's context")
	}
	runtime.ActivateExtension(ctx, "https://ext.example/a")
	return fmt.Sprintf("%s|%s|%s|%s|%s", info.Binding, info.Tenant, info.Version, strings.Join(info.Extensions, ","), info.Header.Get("Authorization")), nil
}

func (paramsEcho) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	seen, err := describeCall(ctx)
	if err != nil {
		return nil, err
	}
	return &a2av1.Task{Id: req.GetId(), ContextId: seen, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}, nil
}

func (paramsEcho) SubscribeToTask(ctx context.Context, req *a2av1.SubscribeToTaskRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	seen, err := describeCall(ctx)
	if err != nil {
		return err
	}
	return s.Send(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: req.GetId(), ContextId: seen,
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}})
}
