package a2av1_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

// TestGRPCClientURLForms drives all eleven operations through the generated
// gRPC client built from each form of interface URL it accepts (it opens its
// own connection) against the in-memory agent over loopback TCP.
func TestGRPCClientURLForms(t *testing.T) {
	for _, form := range []string{"%s", "dns:///%s", "http://%s/a2a/grpc", "grpc://%s"} {
		t.Run(form, func(t *testing.T) {
			c, err := a2av1.NewA2AServiceGRPCClient(fmt.Sprintf(form, serveGRPC(t, newAgentWithCard()).addr))
			if err != nil {
				t.Fatal(err)
			}
			runAllOperations(t, c)
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
	cc := dialGRPC(t, serveGRPC(t, testagent.New()).addr)
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

// TestGRPCMetadataOnTheWire checks, with grpc-go alone, that repeated
// a2a-extensions entries are split and merged, and that activated extensions
// come back in the header and the trailer (unary) and in the header before
// the first message (stream).
func TestGRPCMetadataOnTheWire(t *testing.T) {
	cc := dialGRPC(t, serveGRPC(t, paramsEcho{}).addr)
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
	cc := dialGRPC(t, serveGRPC(t, testagent.New(), runtime.WithVersionPolicy(runtime.VersionStrict)).addr)
	err := cc.Invoke(context.Background(), "/lf.a2a.v1.A2AService/GetTask", &a2av1.GetTaskRequest{Id: "x"}, new(a2av1.Task))
	st, info, _ := statusDetails(t, err)
	if st.Code() != codes.FailedPrecondition || info.GetReason() != "VERSION_NOT_SUPPORTED" {
		t.Fatalf("strict policy without a2a-version: %v, ErrorInfo %v; want FAILED_PRECONDITION VERSION_NOT_SUPPORTED", st, info)
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
