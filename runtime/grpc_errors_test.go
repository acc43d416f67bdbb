package runtime

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

var fixedNow = time.Date(2026, 5, 28, 10, 30, 0, 0, time.UTC)

// TestGRPCStatusRendering pins the status every A2A error becomes: the code
// of the table, the message, ErrorInfo with reason, domain, metadata and
// timestamp, and BadRequest for field violations.
func TestGRPCStatusRendering(t *testing.T) {
	for _, c := range allErrorCodes() {
		t.Run(c.String(), func(t *testing.T) {
			e := NewError(c, "went wrong").WithMetadata("taskId", "t-1").
				WithViolations(FieldViolation{Field: "message.parts", Description: "must not be empty"})
			st := grpcStatus(e, fixedNow)
			if st.Code() != c.GRPCCode() || st.Message() != "went wrong" {
				t.Fatalf("status = %v, want code %v and the message", st, c.GRPCCode())
			}
			details := st.Details()
			if len(details) != 2 {
				t.Fatalf("details = %v, want ErrorInfo and BadRequest", details)
			}
			info, ok := details[0].(*errdetails.ErrorInfo)
			want := &errdetails.ErrorInfo{Reason: c.Reason(), Domain: ErrorDomain,
				Metadata: map[string]string{"taskId": "t-1", "timestamp": "2026-05-28T10:30:00.000Z"}}
			if !ok || !proto.Equal(info, want) {
				t.Errorf("ErrorInfo = %v, want %v", details[0], want)
			}
			br, ok := details[1].(*errdetails.BadRequest)
			if !ok || len(br.GetFieldViolations()) != 1 || br.GetFieldViolations()[0].GetField() != "message.parts" ||
				br.GetFieldViolations()[0].GetDescription() != "must not be empty" {
				t.Errorf("BadRequest = %v", details[1])
			}

			back, hasInfo := decodeGRPCStatus(st)
			if !hasInfo || back.Code() != c || back.Message() != "went wrong" || back.Metadata()["taskId"] != "t-1" ||
				!slices.Equal(back.FieldViolations(), e.FieldViolations()) {
				t.Errorf("decoded = %v (metadata %v), want the original error", back, back.Metadata())
			}
		})
	}
}

func TestGRPCStatusWithoutViolationsHasNoBadRequest(t *testing.T) {
	st := grpcStatus(TaskNotFound("t-9"), fixedNow)
	if n := len(st.Proto().GetDetails()); n != 1 {
		t.Fatalf("%d details, want only the ErrorInfo", n)
	}
	if st.Message() != `task "t-9" not found` {
		t.Errorf("message = %q", st.Message())
	}
	// A caller-supplied timestamp is kept.
	st = grpcStatus(Internal(errors.New("secret")).WithMetadata("timestamp", "then"), fixedNow)
	info := st.Details()[0].(*errdetails.ErrorInfo)
	if info.GetMetadata()["timestamp"] != "then" || st.Message() != "internal error" {
		t.Errorf("status = %v, ErrorInfo %v", st, info)
	}
}

func anyOf(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDecodeGRPCStatus covers statuses from other servers: the reason
// decides over the code, A2A's domain over others, and undecodable or
// unknown details are skipped.
func TestDecodeGRPCStatus(t *testing.T) {
	a2aInfo := func(reason string) *errdetails.ErrorInfo {
		return &errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain, Metadata: map[string]string{"k": reason}}
	}
	tests := []struct {
		name     string
		code     codes.Code
		details  []*anypb.Any
		want     ErrorCode
		wantMeta string // value of metadata "k"
		hasInfo  bool
	}{
		{"reason decides over the code", codes.Unimplemented, []*anypb.Any{anyOf(t, a2aInfo("VERSION_NOT_SUPPORTED"))}, CodeVersionNotSupported, "VERSION_NOT_SUPPORTED", true},
		{"no details: code", codes.NotFound, nil, CodeTaskNotFound, "", false},
		{"no details: permission", codes.PermissionDenied, nil, CodeUnauthorized, "", false},
		{"other domain only: code", codes.FailedPrecondition,
			[]*anypb.Any{anyOf(t, &errdetails.ErrorInfo{Reason: "TASK_NOT_FOUND", Domain: "example.com"})}, CodeUnsupportedOperation, "", true},
		{"A2A domain wins over an earlier other domain", codes.Internal, []*anypb.Any{
			anyOf(t, &errdetails.ErrorInfo{Reason: "QUOTA", Domain: "example.com"}),
			anyOf(t, a2aInfo("TASK_NOT_CANCELABLE")),
			anyOf(t, a2aInfo("TASK_NOT_FOUND")),
		}, CodeTaskNotCancelable, "TASK_NOT_CANCELABLE", true},
		{"unknown reason: code", codes.NotFound, []*anypb.Any{anyOf(t, a2aInfo("SOMETHING_NEW"))}, CodeTaskNotFound, "SOMETHING_NEW", true},
		{"unknown and broken details skipped", codes.InvalidArgument, []*anypb.Any{
			anyOf(t, structpb.NewStringValue("free-form")),
			{TypeUrl: "type.googleapis.com/google.rpc.ErrorInfo", Value: []byte{0xff}},
			anyOf(t, a2aInfo("CONTENT_TYPE_NOT_SUPPORTED")),
		}, CodeContentTypeNotSupported, "CONTENT_TYPE_NOT_SUPPORTED", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.FromProto(&spb.Status{Code: int32(tt.code), Message: "msg", Details: tt.details})
			got, hasInfo := decodeGRPCStatus(st)
			if got.Code() != tt.want || hasInfo != tt.hasInfo || got.Message() != "msg" || got.Metadata()["k"] != tt.wantMeta {
				t.Errorf("decoded %v (hasInfo %v, metadata %v), want %v (hasInfo %v, k=%q)", got, hasInfo, got.Metadata(), tt.want, tt.hasInfo, tt.wantMeta)
			}
		})
	}

	t.Run("violations of every BadRequest", func(t *testing.T) {
		st := status.FromProto(&spb.Status{Code: int32(codes.InvalidArgument), Details: []*anypb.Any{
			anyOf(t, &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "a"}}}),
			anyOf(t, &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "b", Description: "bad"}}}),
		}})
		got, _ := decodeGRPCStatus(st)
		if want := []FieldViolation{{Field: "a"}, {Field: "b", Description: "bad"}}; got.Code() != CodeInvalidParams || !slices.Equal(got.FieldViolations(), want) {
			t.Errorf("decoded %v, violations %v, want InvalidParams with %v", got, got.FieldViolations(), want)
		}
	})
}

// TestGRPCCallError pins how the client classifies what grpc-go returns.
func TestGRPCCallError(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	withInfo := grpcStatus(NewError(CodeInternal, "overloaded"), fixedNow)
	unavailableWithInfo := status.FromProto(&spb.Status{Code: int32(codes.Unavailable), Message: "overloaded", Details: withInfo.Proto().GetDetails()})
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		a2a       ErrorCode // 0: not an *Error
		isCtx     error
		grpcCode  codes.Code
		transport bool
	}{
		{"own cancellation", canceled, status.Error(codes.Canceled, "context canceled"), 0, context.Canceled, codes.Canceled, false},
		{"server's A2A error", context.Background(), grpcStatus(TaskNotFound("x"), fixedNow).Err(), CodeTaskNotFound, nil, codes.NotFound, false},
		{"plain status from an interceptor", context.Background(), status.Error(codes.Unauthenticated, "no token"), CodeUnauthenticated, nil, codes.Unauthenticated, false},
		{"connection failure", context.Background(), status.Error(codes.Unavailable, "connection refused"), 0, nil, codes.Unavailable, true},
		{"unknown status", context.Background(), status.Error(codes.Unknown, "proxy said no"), 0, nil, codes.Unknown, true},
		{"unavailable with ErrorInfo", context.Background(), unavailableWithInfo.Err(), CodeInternal, nil, codes.Unavailable, false},
		{"not a status", context.Background(), io.ErrUnexpectedEOF, 0, nil, codes.Unknown, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := grpcCallError(tt.ctx, "GetTask", tt.err)
			var e *Error
			isA2A := errors.As(err, &e)
			switch {
			case tt.a2a != 0 && (!isA2A || e.Code() != tt.a2a):
				t.Errorf("error %v, want *Error %v", err, tt.a2a)
			case tt.a2a == 0 && isA2A:
				t.Errorf("error %v is an *Error, want a transport error", err)
			}
			if tt.isCtx != nil && !errors.Is(err, tt.isCtx) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.isCtx)
			}
			if tt.isCtx == nil && status.Code(err) != tt.grpcCode {
				t.Errorf("status.Code(%v) = %v, want %v", err, status.Code(err), tt.grpcCode)
			}
			if tt.transport && !errors.Is(err, tt.err) {
				t.Errorf("transport error %v does not wrap %v", err, tt.err)
			}
		})
	}
}
