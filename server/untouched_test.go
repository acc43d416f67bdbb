package server_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// TestServerLeavesRequestsUntouched: the server never writes into a
// caller's request — not the ids it picks for a new task, not the context
// id a follow-up joins, not the id of an inline or created push config —
// while the task, its stored messages and the answers carry them. A
// program calling the server directly may reuse its request, and
// interceptors read it after the handler returned.
func TestServerLeavesRequestsUntouched(t *testing.T) {
	e := newEnv(t, bindings[0], nil, nil, server.WithLogger(discardLogger()), server.WithPushOptions(push.AllowPrivateNetworks()))
	ctx := ctxT(t)
	unchanged := func(what string, req, before proto.Message) {
		t.Helper()
		if !proto.Equal(req, before) {
			t.Errorf("%s changed the request:\n got %v\nwant %v", what, req, before)
		}
	}

	req := &a2av1.SendMessageRequest{Message: userMsg("input"), Configuration: &a2av1.SendMessageConfiguration{
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Url: "http://127.0.0.1:1/hook"}}}
	before := proto.Clone(req)
	resp, err := e.srv.SendMessage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	unchanged("SendMessage of a new task", req, before)
	task := resp.GetTask()
	if h := task.GetHistory(); len(h) != 1 || h[0].GetTaskId() != task.GetId() || h[0].GetContextId() != task.GetContextId() || h[0].GetMessageId() != req.GetMessage().GetMessageId() {
		t.Fatalf("history %v; want the message with the task's ids %q, %q", h, task.GetId(), task.GetContextId())
	}
	cfgs, err := e.srv.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
	if err != nil || len(cfgs.GetConfigs()) != 1 || cfgs.GetConfigs()[0].GetId() == "" || cfgs.GetConfigs()[0].GetTaskId() != task.GetId() {
		t.Fatalf("push configs %v, %v; want the inline one with an id and the task's id", cfgs, err)
	}

	fu := &a2av1.SendMessageRequest{Message: followUp("more", task.GetId())}
	before = proto.Clone(fu)
	resp, err = e.srv.SendMessage(ctx, fu)
	if err != nil {
		t.Fatal(err)
	}
	unchanged("SendMessage of a follow-up", fu, before)
	h := resp.GetTask().GetHistory()
	if last := h[len(h)-1]; last.GetMessageId() != fu.GetMessage().GetMessageId() || last.GetContextId() != task.GetContextId() || last.GetTaskId() != task.GetId() {
		t.Fatalf("the follow-up as stored: %v; want it with the task's ids", last)
	}

	cfg := &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Url: "http://127.0.0.1:1/other"}
	before = proto.Clone(cfg)
	got, err := e.srv.CreateTaskPushNotificationConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	unchanged("CreateTaskPushNotificationConfig", cfg, before)
	if got.GetId() == "" {
		t.Fatal("the created config has no id")
	}
}
