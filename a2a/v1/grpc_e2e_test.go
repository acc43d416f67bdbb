package a2av1_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

// serveGRPC starts a gRPC server with the generated registration on a
// loopback TCP socket and returns its address (host:port).
func serveGRPC(t testing.TB, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(srv, h, opts...)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// dialGRPC opens a plaintext connection the test closes.
func dialGRPC(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// grpcClient is the generated client over a connection the test owns.
func grpcClient(t testing.TB, addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	return a2av1.NewA2AServiceGRPCClientFromConn(dialGRPC(t, addr), opts...)
}

// TestGRPCAllOperations drives all eleven operations through the generated
// gRPC client (which opens its own connection from the interface URL)
// against the in-memory agent over loopback TCP.
func TestGRPCAllOperations(t *testing.T) {
	for _, form := range []string{"%s", "dns:///%s", "http://%s/a2a/grpc", "grpc://%s"} {
		t.Run(form, func(t *testing.T) {
			agent := testagent.New()
			agent.ExtendedCard = &a2av1.AgentCard{Name: "ext", Description: "extended", Version: "1"}
			c, err := a2av1.NewA2AServiceGRPCClient(fmt.Sprintf(form, serveGRPC(t, agent)))
			if err != nil {
				t.Fatal(err)
			}
			exerciseAllOperations(t, c)
		})
	}
}

// exerciseAllOperations calls every operation of the A2A service against a
// fresh testagent.Agent (with an extended card named "ext") and checks the
// answers; it is binding-neutral.
func exerciseAllOperations(t *testing.T, c a2av1.A2AServiceClient) {
	t.Helper()
	ctx := context.Background()

	sent, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("hello", "")})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	task := sent.GetTask()
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || task.GetArtifacts()[0].GetParts()[0].GetText() != "Echo: hello" {
		t.Fatalf("SendMessage task = %v", task)
	}

	direct, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("message", "")})
	if err != nil || direct.GetMessage().GetParts()[0].GetText() != "Echo: message" {
		t.Fatalf("SendMessage(direct) = %v, %v", direct, err)
	}

	var kinds []string
	for ev, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("streamed", "")}) {
		if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
		switch {
		case ev.GetTask() != nil:
			kinds = append(kinds, "task")
		case ev.GetStatusUpdate() != nil:
			kinds = append(kinds, ev.GetStatusUpdate().GetStatus().GetState().String())
		case ev.GetArtifactUpdate() != nil:
			kinds = append(kinds, "artifact")
		}
	}
	if got, want := strings.Join(kinds, ","), "task,TASK_STATE_WORKING,artifact,TASK_STATE_COMPLETED"; got != want {
		t.Fatalf("stream events = %s, want %s", got, want)
	}

	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId(), HistoryLength: proto.Int32(0)})
	if err != nil || got.GetId() != task.GetId() || len(got.GetHistory()) != 0 {
		t.Fatalf("GetTask = %v, %v", got, err)
	}

	list, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil || list.GetTotalSize() != 2 || list.GetPageSize() != 50 || list.GetTasks()[0].GetArtifacts() != nil {
		t.Fatalf("ListTasks = %v, %v", list, err)
	}

	waiting, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("input", "")})
	if err != nil {
		t.Fatalf("SendMessage(input): %v", err)
	}
	open := waiting.GetTask()
	var snapshots int
	for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: open.GetId()}) {
		if err != nil {
			t.Fatalf("SubscribeToTask: %v", err)
		}
		if ev.GetTask().GetId() != open.GetId() {
			t.Fatalf("SubscribeToTask first event = %v, want the task snapshot", ev)
		}
		snapshots++
	}
	if snapshots != 1 {
		t.Fatalf("SubscribeToTask sent %d events, want 1", snapshots)
	}

	canceled, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: open.GetId()})
	if err != nil || canceled.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Fatalf("CancelTask = %v, %v", canceled, err)
	}

	cfg, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Url: "https://hooks.example/a2a"})
	if err != nil || cfg.GetId() == "" {
		t.Fatalf("CreateTaskPushNotificationConfig = %v, %v", cfg, err)
	}
	one, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()})
	if err != nil || one.GetUrl() != "https://hooks.example/a2a" {
		t.Fatalf("GetTaskPushNotificationConfig = %v, %v", one, err)
	}
	all, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task.GetId()})
	if err != nil || len(all.GetConfigs()) != 1 {
		t.Fatalf("ListTaskPushNotificationConfigs = %v, %v", all, err)
	}
	card, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil || card.GetName() != "ext" {
		t.Fatalf("GetExtendedAgentCard = %v, %v", card, err)
	}
	empty, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()})
	if err != nil || empty == nil {
		t.Fatalf("DeleteTaskPushNotificationConfig = %v, %v", empty, err)
	}
	if _, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task.GetId(), Id: cfg.GetId()}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("GetTaskPushNotificationConfig after delete: %v, want TaskNotFound", err)
	}
	if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("again", task.GetId())}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Fatalf("SendMessage to a terminal task: %v, want UnsupportedOperation", err)
	}
	if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: task.GetId()}); !errors.Is(err, runtime.ErrTaskNotCancelable) {
		t.Fatalf("CancelTask(completed): %v, want TaskNotCancelable", err)
	}
}

// TestGRPCErrorsRoundTrip checks that every A2A error a handler returns
// reaches the generated client as the same typed error, unary and
// mid-stream, carried by the gRPC code of the error table.
func TestGRPCErrorsRoundTrip(t *testing.T) {
	errs := allErrors()
	c := grpcClient(t, serveGRPC(t, errorHandler{errs: errs}, runtime.WithLogger(slog.New(slog.DiscardHandler))))
	for name, want := range errs {
		t.Run(name, func(t *testing.T) {
			check := func(how string, err error) {
				var got *runtime.Error
				if !errors.As(err, &got) {
					t.Fatalf("%s: error %v (%T) is not a *runtime.Error", how, err, err)
				}
				if got.Code() != want.Code() || got.Code().String() != name {
					t.Fatalf("%s: code = %v, want %v", how, got.Code(), want.Code())
				}
				if got.Message() != want.Message() {
					t.Errorf("%s: message = %q, want %q", how, got.Message(), want.Message())
				}
				for k, v := range want.Metadata() {
					if got.Metadata()[k] != v {
						t.Errorf("%s: metadata[%q] = %q, want %q", how, k, got.Metadata()[k], v)
					}
				}
				if got.Metadata()["timestamp"] == "" {
					t.Errorf("%s: ErrorInfo metadata lacks the timestamp: %v", how, got.Metadata())
				}
				if !slices.Equal(got.FieldViolations(), want.FieldViolations()) {
					t.Errorf("%s: violations = %v, want %v", how, got.FieldViolations(), want.FieldViolations())
				}
				if !errors.Is(err, want) {
					t.Errorf("%s: errors.Is(err, sentinel of %v) = false", how, want.Code())
				}
				if code := status.Code(err); code != want.Code().GRPCCode() {
					t.Errorf("%s: gRPC status code = %v, want %v", how, code, want.Code().GRPCCode())
				}
			}
			_, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: name})
			check("unary", err)

			var events int
			var streamErr error
			for _, err := range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: name}) {
				if err != nil {
					streamErr = err
					break
				}
				events++
			}
			if events != 1 {
				t.Fatalf("stream delivered %d events before the error, want 1", events)
			}
			check("mid-stream", streamErr)
		})
	}
}

// statusDetails returns the ErrorInfo and BadRequest of a status error.
func statusDetails(t *testing.T, err error) (*status.Status, *errdetails.ErrorInfo, *errdetails.BadRequest) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("error %v carries no gRPC status", err)
	}
	var info *errdetails.ErrorInfo
	var br *errdetails.BadRequest
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.BadRequest:
			br = d
		}
	}
	return st, info, br
}

// TestGRPCStatusOnTheWire calls the server with grpc-go alone (no a2agen
// client) and checks the status code, ErrorInfo and BadRequest it sends.
func TestGRPCStatusOnTheWire(t *testing.T) {
	cc := dialGRPC(t, serveGRPC(t, testagent.New()))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0")
	tests := []struct {
		name       string
		method     string
		req        proto.Message
		code       codes.Code
		reason     string
		violations []string
	}{
		{"missing id", "GetTask", &a2av1.GetTaskRequest{}, codes.InvalidArgument, "INVALID_PARAMS", []string{"id"}},
		{"missing message", "SendMessage", &a2av1.SendMessageRequest{}, codes.InvalidArgument, "INVALID_PARAMS", []string{"message"}},
		{"missing nested fields", "SendMessage", &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m"}},
			codes.InvalidArgument, "INVALID_PARAMS", []string{"message.role", "message.parts"}},
		{"missing url and task id", "CreateTaskPushNotificationConfig", &a2av1.TaskPushNotificationConfig{},
			codes.InvalidArgument, "INVALID_PARAMS", []string{"url"}},
		{"unknown task", "GetTask", &a2av1.GetTaskRequest{Id: "nope"}, codes.NotFound, "TASK_NOT_FOUND", nil},
		{"unknown task in cancel", "CancelTask", &a2av1.CancelTaskRequest{Id: "nope"}, codes.NotFound, "TASK_NOT_FOUND", nil},
		{"no extended card", "GetExtendedAgentCard", &a2av1.GetExtendedAgentCardRequest{}, codes.FailedPrecondition, "EXTENDED_AGENT_CARD_NOT_CONFIGURED", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cc.Invoke(ctx, "/lf.a2a.v1.A2AService/"+tt.method, tt.req, new(a2av1.Task))
			st, info, br := statusDetails(t, err)
			if st.Code() != tt.code {
				t.Errorf("code = %v, want %v (%v)", st.Code(), tt.code, err)
			}
			if info == nil || info.GetReason() != tt.reason || info.GetDomain() != runtime.ErrorDomain || info.GetMetadata()["timestamp"] == "" {
				t.Errorf("ErrorInfo = %v, want reason %s, domain %s and a timestamp", info, tt.reason, runtime.ErrorDomain)
			}
			var fields []string
			for _, fv := range br.GetFieldViolations() {
				fields = append(fields, fv.GetField())
			}
			for _, f := range tt.violations {
				if !slices.Contains(fields, f) {
					t.Errorf("BadRequest fields = %v, want %s among them", fields, f)
				}
			}
			if tt.violations == nil && br != nil {
				t.Errorf("unexpected BadRequest %v", br)
			}
		})
	}

	t.Run("streaming validation", func(t *testing.T) {
		cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/lf.a2a.v1.A2AService/SubscribeToTask")
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.SendMsg(&a2av1.SubscribeToTaskRequest{}); err != nil {
			t.Fatal(err)
		}
		_ = cs.CloseSend()
		err = cs.RecvMsg(new(a2av1.StreamResponse))
		st, info, br := statusDetails(t, err)
		if st.Code() != codes.InvalidArgument || info.GetReason() != "INVALID_PARAMS" || len(br.GetFieldViolations()) != 1 || br.GetFieldViolations()[0].GetField() != "id" {
			t.Errorf("SubscribeToTask without id: %v, ErrorInfo %v, BadRequest %v", st, info, br)
		}
	})

	t.Run("undecodable request", func(t *testing.T) {
		// Field 2 (GetTaskRequest.id) holding invalid UTF-8 fails proto3
		// decoding. grpc-go answers before the binding sees the call, as
		// for any protoc-gen-go-grpc service: INTERNAL, no ErrorInfo.
		raw := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), []byte{0xff, 0xfe})
		err := cc.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", rawMessage(raw), new(a2av1.Task), grpc.ForceCodecV2(rawCodec{}))
		st, info, _ := statusDetails(t, err)
		if st.Code() != codes.Internal || info != nil || !strings.Contains(st.Message(), "unmarshal") {
			t.Errorf("undecodable request: %v, ErrorInfo %v; want grpc-go's INTERNAL unmarshal error", st, info)
		}
	})

	t.Run("unknown method", func(t *testing.T) {
		err := cc.Invoke(ctx, "/lf.a2a.v1.A2AService/Frobnicate", &a2av1.GetTaskRequest{}, new(a2av1.Task))
		if status.Code(err) != codes.Unimplemented {
			t.Errorf("unknown method: %v, want UNIMPLEMENTED", err)
		}
	})
}

func TestGRPCUnimplementedIsUnsupportedOperation(t *testing.T) {
	c := grpcClient(t, serveGRPC(t, a2av1.UnimplementedA2AServiceHandler{}))
	_, err := c.ListTasks(context.Background(), &a2av1.ListTasksRequest{})
	if !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Fatalf("ListTasks on Unimplemented: %v, want UnsupportedOperation", err)
	}
	for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
		if !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Fatalf("SendStreamingMessage on Unimplemented: %v, want UnsupportedOperation", err)
		}
	}
}

// TestGRPCStreamCancelLeavesNoGoroutines stops ranging over a stream after
// two events and checks that the handler's context ends and, once the
// connection and server are closed, nothing leaks.
func TestGRPCStreamCancelLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := streamUntilCanceled{ended: make(chan struct{})}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(srv, h)
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(lis) }()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	c := a2av1.NewA2AServiceGRPCClientFromConn(cc)
	n := 0
	for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	select {
	case <-h.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("handler still running 10s after the client stopped reading")
	}
	_ = cc.Close()
	srv.Stop()
	<-served
}

// TestGRPCContextCancelIsReported checks that a caller's cancellation comes
// back as the context error, not as an A2A error.
func TestGRPCContextCancelIsReported(t *testing.T) {
	h := streamUntilCanceled{ended: make(chan struct{})}
	c := grpcClient(t, serveGRPC(t, h))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n := 0
	for _, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMessage("x", "")}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 1 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("after cancel: %v, want context.Canceled", last)
	}
	<-h.ended
}

// grpcParamsEcho answers GetTask with what the handler saw of the service
// parameters and activates one extension; its stream does the same in one
// event.
type grpcParamsEcho struct {
	a2av1.UnimplementedA2AServiceHandler
}

func describeCall(ctx context.Context) (string, error) {
	info, ok := runtime.CallInfoFromContext(ctx)
	if !ok {
		return "", errors.New("no CallInfo in the handler's context")
	}
	runtime.ActivateExtension(ctx, "https://ext.example/a")
	return fmt.Sprintf("%s|%s|%s|%s|%s", info.Binding, info.Tenant, info.Version, strings.Join(info.Extensions, ","), info.Header.Get("Authorization")), nil
}

func (grpcParamsEcho) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	seen, err := describeCall(ctx)
	if err != nil {
		return nil, err
	}
	return &a2av1.Task{Id: req.GetId(), ContextId: seen, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}, nil
}

func (grpcParamsEcho) SubscribeToTask(ctx context.Context, req *a2av1.SubscribeToTaskRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	seen, err := describeCall(ctx)
	if err != nil {
		return err
	}
	return s.Send(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: req.GetId(), ContextId: seen,
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}}})
}

func TestGRPCServiceParametersReachHandler(t *testing.T) {
	addr := serveGRPC(t, grpcParamsEcho{}, runtime.WithRequiredExtensions("https://ext.example/a"))
	c := grpcClient(t, addr, runtime.WithClientTenant("acme"),
		runtime.WithExtensions("https://ext.example/a", "https://ext.example/b"),
		runtime.WithHeader("Authorization", "Bearer t0k3n"))
	req := &a2av1.GetTaskRequest{Id: "t"}
	got, err := c.GetTask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := "GRPC|acme|1.0|https://ext.example/a,https://ext.example/b|Bearer t0k3n"
	if got.GetContextId() != want {
		t.Fatalf("handler saw %q, want %q", got.GetContextId(), want)
	}
	if req.GetTenant() != "" {
		t.Fatalf("the client wrote tenant %q into the caller's request", req.GetTenant())
	}
	for ev, err := range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: "s"}) {
		if err != nil || ev.GetTask().GetContextId() != want {
			t.Fatalf("stream handler saw %v, %v; want %q", ev, err, want)
		}
	}

	bare := grpcClient(t, addr)
	if _, err := bare.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); !errors.Is(err, runtime.ErrExtensionSupportRequired) {
		t.Fatalf("without the required extension: %v, want ExtensionSupportRequired", err)
	}
	old := grpcClient(t, addr, runtime.WithProtocolVersion("0.3"), runtime.WithExtensions("https://ext.example/a"))
	if _, err := old.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); !errors.Is(err, runtime.ErrVersionNotSupported) {
		t.Fatalf("a2a-version 0.3: %v, want VersionNotSupported", err)
	}
	patch := grpcClient(t, addr, runtime.WithProtocolVersion("1.0.7"), runtime.WithExtensions("https://ext.example/a"))
	if got, err := patch.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); err != nil || !strings.Contains(got.GetContextId(), "|1.0|") {
		t.Fatalf("a2a-version 1.0.7: %v, %v; want version 1.0", got, err)
	}
}

// TestGRPCMetadataOnTheWire checks, with grpc-go alone, that repeated
// a2a-extensions entries are split and merged, and that activated extensions
// come back in the header and the trailer (unary) and in the header before
// the first message (stream).
func TestGRPCMetadataOnTheWire(t *testing.T) {
	cc := dialGRPC(t, serveGRPC(t, grpcParamsEcho{}))
	ctx := metadata.AppendToOutgoingContext(context.Background(),
		"a2a-version", "1.0", "a2a-extensions", "https://ext.example/a, https://ext.example/b", "a2a-extensions", "https://ext.example/c,https://ext.example/a")

	var header, trailer metadata.MD
	task := new(a2av1.Task)
	if err := cc.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", &a2av1.GetTaskRequest{Id: "t"}, task, grpc.Header(&header), grpc.Trailer(&trailer)); err != nil {
		t.Fatal(err)
	}
	if want := "GRPC||1.0|https://ext.example/a,https://ext.example/b,https://ext.example/c|"; task.GetContextId() != want {
		t.Errorf("handler saw %q, want %q", task.GetContextId(), want)
	}
	if got := header.Get("a2a-extensions"); !slices.Equal(got, []string{"https://ext.example/a"}) {
		t.Errorf("header a2a-extensions = %q, want the activated extension", got)
	}
	if got := trailer.Get("a2a-extensions"); !slices.Equal(got, []string{"https://ext.example/a"}) {
		t.Errorf("trailer a2a-extensions = %q, want the activated extension", got)
	}

	cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/lf.a2a.v1.A2AService/SubscribeToTask")
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.SendMsg(&a2av1.SubscribeToTaskRequest{Id: "s"}); err != nil {
		t.Fatal(err)
	}
	_ = cs.CloseSend()
	sh, err := cs.Header()
	if err != nil {
		t.Fatal(err)
	}
	if got := sh.Get("a2a-extensions"); !slices.Equal(got, []string{"https://ext.example/a"}) {
		t.Errorf("stream header a2a-extensions = %q, want the extension activated before the first message", got)
	}
	for {
		if err := cs.RecvMsg(new(a2av1.StreamResponse)); err != nil {
			break
		}
	}
	if got := cs.Trailer().Get("a2a-extensions"); !slices.Equal(got, []string{"https://ext.example/a"}) {
		t.Errorf("stream trailer a2a-extensions = %q", got)
	}
}

func TestGRPCStrictVersionPolicyRejectsMissingVersion(t *testing.T) {
	cc := dialGRPC(t, serveGRPC(t, testagent.New(), runtime.WithVersionPolicy(runtime.VersionStrict)))
	err := cc.Invoke(context.Background(), "/lf.a2a.v1.A2AService/GetTask", &a2av1.GetTaskRequest{Id: "x"}, new(a2av1.Task))
	st, info, _ := statusDetails(t, err)
	if st.Code() != codes.FailedPrecondition || info.GetReason() != "VERSION_NOT_SUPPORTED" {
		t.Fatalf("strict policy without a2a-version: %v, ErrorInfo %v; want FAILED_PRECONDITION VERSION_NOT_SUPPORTED", st, info)
	}
}

func TestGRPCTenant(t *testing.T) {
	addr := serveGRPC(t, grpcParamsEcho{}, runtime.WithTenant("acme"))
	got, err := grpcClient(t, addr).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
	if err != nil || !strings.HasPrefix(got.GetContextId(), "GRPC|acme|") {
		t.Fatalf("request without tenant on an interface with tenant acme: %v, %v", got, err)
	}
	_, err = grpcClient(t, addr, runtime.WithClientTenant("other")).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
	var e *runtime.Error
	if !errors.As(err, &e) || e.Code() != runtime.CodeInvalidParams || len(e.FieldViolations()) != 1 || e.FieldViolations()[0].Field != "tenant" {
		t.Fatalf("wrong tenant: %v, want InvalidParams on field tenant", err)
	}
}

// rawMessage is a request already encoded, sent through rawCodec.
type rawMessage []byte

// rawCodec sends rawMessage values as they are and decodes with proto.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.(rawMessage); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	b, err := proto.Marshal(v.(proto.Message))
	return mem.BufferSlice{mem.SliceBuffer(b)}, err
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return proto.Unmarshal(data.Materialize(), v.(proto.Message))
}

func (rawCodec) Name() string { return "proto" }
