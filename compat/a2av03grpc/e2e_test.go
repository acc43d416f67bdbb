package a2av03grpc_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/internal/echo/echotest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// serve starts the echo agent's default server on loopback gRPC, serving
// v1.0 when v1 is true and v0.3 when v03 is true, and returns its address.
func serve(t *testing.T, v1, v03 bool) string {
	t.Helper()
	card := echo.Card(&a2av1.AgentInterface{Url: "127.0.0.1:0", ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0"})
	srv, err := server.New(card, &echo.Agent{}, server.WithExtendedCard(echo.ExtendedCard(card)),
		server.WithPushOptions(push.AllowPrivateNetworks())) // loopback webhooks; none is ever delivered
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	auth := runtime.WithAuthenticator(echo.BearerAuthenticator(""))
	if v1 {
		a2av1.RegisterA2AServiceGRPC(g, srv, auth)
	}
	if v03 {
		a2av03grpc.Register(g, srv, auth)
	}
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(func() {
		g.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// v1Client is the typed v1.0 client calling the agent at addr through the
// v0.3 transport.
func v1Client(t *testing.T, addr string, dial ...grpc.DialOption) a2av1.A2AServiceClient {
	t.Helper()
	dial = append(dial, grpc.WithTransportCredentials(insecure.NewCredentials()))
	inner, err := runtime.NewGRPCTransport(addr, runtime.ClientDefaults(&a2av03pb.A2AServiceDesc,
		[]runtime.ClientOption{runtime.WithGRPCDialOptions(dial...)})...)
	if err != nil {
		t.Fatal(err)
	}
	c := a2av1.NewA2AServiceClient(a2av03grpc.NewTransport(inner))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// bearer sends Authorization: Bearer <token> on every call.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearer) RequireTransportSecurity() bool { return false }

// TestV1ClientToV03OnlyServer runs every operation of the typed v1.0 client
// against a server that serves only a2a.v1.A2AService (v0.3), over loopback.
func TestV1ClientToV03OnlyServer(t *testing.T) {
	addr := serve(t, false, true)
	c := v1Client(t, addr)
	echotest.RoundTrip(ctx(t), t, c, echotest.Authenticated(v1Client(t, addr, grpc.WithPerRPCCredentials(bearer("t")))))
}

// TestOneStoreForBothVersions: a task created over v0.3 is read over v1.0
// and one created over v1.0 is read over v0.3, on one gRPC server.
func TestOneStoreForBothVersions(t *testing.T) {
	addr := serve(t, true, true)
	ctx := ctx(t)
	v03, err := a2av03pb.NewA2AServiceGRPCClient(addr, runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	defer v03.Close()
	v1, err := a2av1.NewA2AServiceGRPCClient(addr, runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	defer v1.Close()

	r, err := v03.SendMessage(ctx, &a2av03pb.SendMessageRequest{Request: &a2av03pb.Message{MessageId: "m-v03", Role: a2av03pb.Role_ROLE_USER,
		Content: []*a2av03pb.Part{{Part: &a2av03pb.Part_Text{Text: "from v0.3"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	id := r.GetTask().GetId()
	if r.GetTask().GetStatus().GetState() != a2av03pb.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("v0.3 SendMessage = %v", r)
	}
	task, err := v1.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
	if err != nil || task.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: from v0.3" {
		t.Fatalf("v1.0 GetTask of the v0.3 task = %v, %v", task, err)
	}
	r1, err := v1.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("from v1.0")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := v03.GetTask(ctx, &a2av03pb.GetTaskRequest{Name: "tasks/" + r1.GetTask().GetId()})
	if err != nil || got.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: from v1.0" {
		t.Fatalf("v0.3 GetTask of the v1.0 task = %v, %v", got, err)
	}
	// A v0.3 stream carries final on its last status update.
	var last *a2av03pb.TaskStatusUpdateEvent
	for e, err := range v03.SendStreamingMessage(ctx, &a2av03pb.SendMessageRequest{Request: &a2av03pb.Message{MessageId: "m-s", Role: a2av03pb.Role_ROLE_USER,
		Content: []*a2av03pb.Part{{Part: &a2av03pb.Part_Text{Text: "stream 2"}}}}}) {
		if err != nil {
			t.Fatal(err)
		}
		if su := e.GetStatusUpdate(); su != nil {
			last = su
		}
	}
	if !last.GetFinal() || last.GetStatus().GetState() != a2av03pb.TaskState_TASK_STATE_COMPLETED {
		t.Errorf("last v0.3 status update = %v, want final COMPLETED", last)
	}
	// A bad resource name is InvalidParams naming the field.
	_, err = v03.GetTask(ctx, &a2av03pb.GetTaskRequest{Name: id})
	var e *runtime.Error
	if !errors.As(err, &e) || e.Code() != runtime.CodeInvalidParams || len(e.FieldViolations()) != 1 || e.FieldViolations()[0].Field != "name" {
		t.Errorf("GetTask name without tasks/: %v, want InvalidParams naming name", err)
	}
}
