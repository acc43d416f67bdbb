package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	a2av03pb "github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// TestPushFormFollowsRegistrationVersion: with Config.V03, webhooks of one
// task registered through A2A v0.3 — inline in a v0.3 message/send and with
// tasks/pushNotificationConfig/set over JSON-RPC, HTTP+JSON and gRPC — and
// one given inline in a v0.3 message/stream of another task are
// posted the Task in its v0.3 shape (kind "task", lower-case states, as
// application/json) after every change, ending with the completed task and
// its artifact; a webhook of the same task registered through v1.0 is
// posted the v1.0 StreamResponses, ending with the COMPLETED status update.
// Every receiver is a real HTTP server on loopback; the v0.3 bodies are
// decoded strictly as a v0.3 Task.
func TestPushFormFollowsRegistrationVersion(t *testing.T) {
	release := make(chan struct{})
	skill := func(ctx context.Context, _ *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		if err := ev.Artifact(server.TextArtifact("answer", "forty-two")); err != nil {
			return err
		}
		return ev.Complete(server.AgentMessage("done"))
	}
	doc, err := runtime.MarshalJSON(&a2av1.AgentCard{
		Name: "pushy", Description: "d", Version: "1", Capabilities: &a2av1.AgentCapabilities{PushNotifications: proto.Bool(true), Streaming: proto.Bool(true)},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{Id: "a", Name: "A", Description: "a", Tags: []string{"t"}}},
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: "http://127.0.0.1:8080/", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"},
			{Url: "http://127.0.0.1:8080/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: "1.0"},
			{Url: "127.0.0.1:9090", ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	jsonrpc := host.Binding{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"}
	rest := host.Binding{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest"}
	grpcB := host.Binding{Protocol: runtime.BindingGRPC, Address: ":9090"}
	a := hosttest.Start(t, host.Config{CardJSON: doc, V03: true, Bindings: []host.Binding{jsonrpc, rest, grpcB},
		Skills: []host.Skill{{ID: "a", Run: skill}}, Push: []push.Option{push.AllowPrivateNetworks()}})
	card := a.Card()
	hook := proctest.NewWebhook(t)
	ctx := context.Background()

	v03JSONRPC := a2av1.NewA2AServiceClient(a2av03.NewJSONRPCClientTransport(a.URL(jsonrpc)))
	v03REST := a2av1.NewA2AServiceClient(a2av03.NewRESTClientTransport(a.URL(rest)))
	inner, err := runtime.NewGRPCTransport(a.URL(grpcB), runtime.ClientDefaults(&a2av03pb.A2AServiceDesc,
		[]runtime.ClientOption{runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials()))})...)
	if err != nil {
		t.Fatal(err)
	}
	v03GRPC := a2av1.NewA2AServiceClient(a2av03grpc.NewTransport(inner))
	v10 := a.Client(t, jsonrpc, card, "a")
	for _, c := range []a2av1.A2AServiceClient{v03JSONRPC, v03REST, v03GRPC} {
		t.Cleanup(func() { _ = c.Close() })
	}

	// The task, with a webhook given inline in a v0.3 message/send.
	msg := hosttest.Message("go", "a")
	msg.Configuration = &a2av1.SendMessageConfiguration{ReturnImmediately: true,
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "inline", Url: hook.URL + "/inline", Token: "tok-inline"}}
	resp, err := v03JSONRPC.SendMessage(ctx, msg)
	if err != nil {
		t.Fatalf("v0.3 message/send with an inline push config: %v", err)
	}
	taskID := resp.GetTask().GetId()
	if taskID == "" {
		t.Fatalf("v0.3 message/send answered %v, want a task", resp)
	}
	v03Paths := map[string]a2av1.A2AServiceClient{"/jsonrpc": v03JSONRPC, "/rest": v03REST, "/grpc": v03GRPC}
	for path, c := range v03Paths {
		if _, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: taskID, Id: strings.TrimPrefix(path, "/"), Url: hook.URL + path}); err != nil {
			t.Fatalf("setting the push config %s through v0.3: %v", path, err)
		}
	}
	if _, err := v10.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: taskID, Id: "v10", Url: hook.URL + "/v10"}); err != nil {
		t.Fatalf("setting the push config through v1.0: %v", err)
	}
	close(release)

	// A second task, with a webhook given inline in a v0.3 message/stream.
	streamMsg := hosttest.Message("go", "a")
	streamMsg.Configuration = &a2av1.SendMessageConfiguration{
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "streamed", Url: hook.URL + "/stream"}}
	streamed := ""
	for ev, err := range v03JSONRPC.SendStreamingMessage(ctx, streamMsg) {
		if err != nil {
			t.Fatalf("v0.3 message/stream with an inline push config: %v", err)
		}
		if id := ev.GetTask().GetId() + ev.GetStatusUpdate().GetTaskId(); id != "" {
			streamed = id
		}
	}

	v03Hooks := []string{"/inline", "/jsonrpc", "/rest", "/grpc", "/stream"}
	completed := func() bool {
		for _, path := range v03Hooks {
			ds := hook.Deliveries(path)
			if len(ds) == 0 {
				return false
			}
			if task, err := proctest.DecodeV03Task(ds[len(ds)-1].Body); err != nil || task.Status.State != "completed" {
				return false
			}
		}
		ds := hook.Deliveries("/v10")
		return len(ds) > 0 && ds[len(ds)-1].Event.GetStatusUpdate().GetStatus().GetState() == a2av1.TaskState_TASK_STATE_COMPLETED
	}
	for deadline := time.Now().Add(20 * time.Second); !completed(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not every webhook got the completed task within 20s; received:\n%s", proctest.Render(hook.All()))
		}
	}

	for _, path := range v03Hooks {
		ds := hook.Deliveries(path)
		for i, d := range ds {
			task, err := proctest.DecodeV03Task(d.Body)
			if err != nil {
				t.Fatalf("notification %d to the v0.3 webhook %s: %v", i, path, err)
			}
			want := taskID
			if path == "/stream" {
				want = streamed
			}
			if task.ID != want || task.ContextID == "" {
				t.Errorf("notification %d to %s is task %q of context %q, want task %s with its context", i, path, task.ID, task.ContextID, want)
			}
			if ct := d.Header.Get("Content-Type"); ct != a2av03.PushContentType {
				t.Errorf("notification %d to %s has Content-Type %q, want %q", i, path, ct, a2av03.PushContentType)
			}
		}
		last, _ := proctest.DecodeV03Task(ds[len(ds)-1].Body)
		if len(last.Artifacts) != 1 || len(last.Artifacts[0].Parts) != 1 || last.Artifacts[0].Parts[0].Kind != "text" ||
			last.Artifacts[0].Parts[0].Text != "forty-two" {
			t.Errorf("the completed task posted to %s has artifacts %+v, want the text artifact forty-two", path, last.Artifacts)
		}
	}
	if first, _ := proctest.DecodeV03Task(hook.Deliveries("/inline")[0].Body); first.Status.State != "submitted" && first.Status.State != "working" {
		t.Errorf("the inline v0.3 webhook's first notification is the task in state %q, want it as created (submitted or working)", first.Status.State)
	}
	if got := hook.Deliveries("/inline")[0].Header.Get(push.TokenHeader); got != "tok-inline" {
		t.Errorf("the inline v0.3 webhook got %s %q, want its token", push.TokenHeader, got)
	}
	for i, d := range hook.Deliveries("/v10") {
		if d.Event == nil || d.Event.GetTask() != nil {
			t.Fatalf("notification %d to the v1.0 webhook: %s (%v), want a StreamResponse event", i, d.Body, d.Err)
		}
		if ct := d.Header.Get("Content-Type"); ct != push.ContentType {
			t.Errorf("notification %d to the v1.0 webhook has Content-Type %q, want %q", i, ct, push.ContentType)
		}
		if _, err := proctest.DecodeV03Task(d.Body); err == nil {
			t.Errorf("notification %d to the v1.0 webhook reads as a v0.3 Task: %s", i, d.Body)
		}
	}
}
