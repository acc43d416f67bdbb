package a2av03grpc_test

import (
	"context"
	"net"
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/runtime"
)

// TestV03RequestsMeetV1Requirements: a v0.3 request that its own proto
// accepts but whose v1.0 form lacks a field v1.0 requires (a message
// without content, role or id; a push config without url) is refused as
// InvalidParams naming the v0.3 field, before the v1.0 handler sees it.
// The official Go SDK's v0.3 gRPC client sends such a message when asked to
// (found by interop/TestSDKV03ClientToOurDualEcho).
func TestV03RequestsMeetV1Requirements(t *testing.T) {
	addr := serve(t, false, true)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := ctx(t)

	check := func(name string, err error, fields ...string) {
		t.Helper()
		st, _ := status.FromError(err)
		if st.Code() != codes.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument (InvalidParams)", name, err)
			return
		}
		var got []string
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok {
				for _, v := range br.GetFieldViolations() {
					got = append(got, v.GetField())
				}
			}
		}
		if !slices.Equal(got, fields) {
			t.Errorf("%s: fields %v, want %v (%v)", name, got, fields, err)
		}
	}

	noParts := &a2av03pb.SendMessageRequest{Request: &a2av03pb.Message{MessageId: "m1", Role: a2av03pb.Role_ROLE_USER}}
	err = conn.Invoke(c, a2av03pb.A2AServiceSendMessageProcedure, noParts, new(a2av03pb.SendMessageResponse))
	check("SendMessage without content", err, "message.content")

	bare := &a2av03pb.SendMessageRequest{Request: &a2av03pb.Message{Content: []*a2av03pb.Part{{Part: &a2av03pb.Part_Text{Text: "hello"}}}}}
	err = conn.Invoke(c, a2av03pb.A2AServiceSendMessageProcedure, bare, new(a2av03pb.SendMessageResponse))
	check("SendMessage without messageId and role", err, "message.messageId", "message.role")

	desc := &grpc.StreamDesc{StreamName: "SendStreamingMessage", ServerStreams: true}
	s, err := conn.NewStream(c, desc, a2av03pb.A2AServiceSendStreamingMessageProcedure)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SendMsg(noParts); err != nil {
		t.Fatal(err)
	}
	_ = s.CloseSend()
	check("SendStreamingMessage without content", s.RecvMsg(new(a2av03pb.StreamResponse)), "message.content")

	noURL := &a2av03pb.CreateTaskPushNotificationConfigRequest{Parent: "tasks/t1", ConfigId: "c1",
		Config: &a2av03pb.TaskPushNotificationConfig{PushNotificationConfig: &a2av03pb.PushNotificationConfig{Id: "c1"}}}
	err = conn.Invoke(c, a2av03pb.A2AServiceCreateTaskPushNotificationConfigProcedure, noURL, new(a2av03pb.TaskPushNotificationConfig))
	check("CreateTaskPushNotificationConfig without url", err, "config.pushNotificationConfig.url")
}

// TestV03CreatePushConfigWithoutConfigID: CreateTaskPushNotificationConfig
// without the REQUIRED config_id (what the official Go SDK's v0.3 gRPC client
// sends for a config without id) is accepted: the config's own id is used,
// else the server picks one, as v1.0 does; the task is still looked up
// (TaskNotFound, not InvalidParams, for an unknown one).
func TestV03CreatePushConfigWithoutConfigID(t *testing.T) {
	addr := serve(t, false, true)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := ctx(t)
	resp, err := v1Client(t, addr).SendMessage(c, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	task := resp.GetTask().GetId()
	create := func(parent, configID, id string) (*a2av03pb.TaskPushNotificationConfig, error) {
		req := &a2av03pb.CreateTaskPushNotificationConfigRequest{Parent: parent, ConfigId: configID,
			Config: &a2av03pb.TaskPushNotificationConfig{PushNotificationConfig: &a2av03pb.PushNotificationConfig{Id: id, Url: "http://127.0.0.1:9/hook"}}}
		out := new(a2av03pb.TaskPushNotificationConfig)
		return out, conn.Invoke(c, a2av03pb.A2AServiceCreateTaskPushNotificationConfigProcedure, req, out)
	}

	// Neither config_id nor an id: a fresh id, readable under its name.
	got, err := create(a2av03grpc.TaskName(task), "", "")
	if err != nil {
		t.Fatalf("create without config_id or id: %v", err)
	}
	tid, id, err := a2av03grpc.ParsePushConfigName(got.GetName(), "name")
	if err != nil || tid != task || id == "" || got.GetPushNotificationConfig().GetId() != id {
		t.Fatalf("created %v (%v), want a fresh id under task %s", got, err, task)
	}
	read := new(a2av03pb.TaskPushNotificationConfig)
	if err := conn.Invoke(c, a2av03pb.A2AServiceGetTaskPushNotificationConfigProcedure,
		&a2av03pb.GetTaskPushNotificationConfigRequest{Name: got.GetName()}, read); err != nil || read.GetPushNotificationConfig().GetUrl() != "http://127.0.0.1:9/hook" {
		t.Errorf("reading the created config: %v, %v", read, err)
	}
	// No config_id, the config's own id: that id.
	got, err = create(a2av03grpc.TaskName(task), "", "mine")
	if err != nil || got.GetName() != a2av03grpc.PushConfigName(task, "mine") {
		t.Errorf("create with the config's id only: %v, %v; want name %s", got, err, a2av03grpc.PushConfigName(task, "mine"))
	}
	// config_id wins over the config's id.
	got, err = create(a2av03grpc.TaskName(task), "named", "mine")
	if err != nil || got.GetName() != a2av03grpc.PushConfigName(task, "named") {
		t.Errorf("create with config_id: %v, %v; want name %s", got, err, a2av03grpc.PushConfigName(task, "named"))
	}
	// An unknown task without config_id: TaskNotFound.
	if _, err := create(a2av03grpc.TaskName("no-such-task"), "", ""); status.Code(err) != codes.NotFound {
		t.Errorf("create for an unknown task without config_id: %v, want NotFound (TaskNotFound)", err)
	}
	// The other REQUIRED fields stay required: no parent.
	if _, err := create("", "", ""); status.Code(err) != codes.InvalidArgument {
		t.Errorf("create without parent: %v, want InvalidArgument", err)
	}
}

// tenantRecorder answers GetTask with a task, recording the tenant of the
// v1.0 request.
type tenantRecorder struct {
	a2av1.UnimplementedA2AServiceHandler
	tenant chan string
}

func (h tenantRecorder) GetTask(_ context.Context, r *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	h.tenant <- r.GetTenant()
	return &a2av1.Task{Id: r.GetId(), ContextId: "c", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}, nil
}

// TestV03RequestsInInterfaceTenant: v0.3 has no tenants; on an interface
// with a tenant (runtime.WithTenant) the v1.0 form of a v0.3 request
// carries that tenant, so a handler that reads the request's tenant serves
// it there, as the JSON v0.3 layer does.
func TestV03RequestsInInterfaceTenant(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	h := tenantRecorder{tenant: make(chan string, 1)}
	a2av03grpc.Register(g, h, runtime.WithTenant("acme"))
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	out := new(a2av03pb.Task)
	if err := conn.Invoke(ctx(t), a2av03pb.A2AServiceGetTaskProcedure, &a2av03pb.GetTaskRequest{Name: "tasks/t1"}, out); err != nil {
		t.Fatal(err)
	}
	if got := <-h.tenant; got != "acme" {
		t.Errorf("the handler saw tenant %q, want the interface's %q", got, "acme")
	}
}
