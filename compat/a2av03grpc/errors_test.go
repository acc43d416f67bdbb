package a2av03grpc_test

import (
	"errors"
	"net"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// statusServer answers every call with the status st, as a v0.3 server
// without ErrorInfo (the Go SDK v0.3.x) or with one (a2agen) does.
func statusServer(t *testing.T, st *status.Status) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.UnknownServiceHandler(func(any, grpc.ServerStream) error { return st.Err() }))
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)
	return ln.Addr().String()
}

// TestV03StatusWithoutErrorInfo: over v0.3's gRPC binding a status without
// ErrorInfo is read as v0.3 servers mean it: FAILED_PRECONDITION is
// TaskNotCancelable (the Go SDK v0.3.x answers a cancel of a finished task
// so), UNIMPLEMENTED UnsupportedOperation; a status with an A2A ErrorInfo
// keeps its reason.
func TestV03StatusWithoutErrorInfo(t *testing.T) {
	withInfo, err := status.New(codes.FailedPrecondition, "no such operation").
		WithDetails(&errdetails.ErrorInfo{Reason: "UNSUPPORTED_OPERATION", Domain: runtime.ErrorDomain})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		st   *status.Status
		want error
	}{
		{"FAILED_PRECONDITION", status.New(codes.FailedPrecondition, "task cannot be canceled"), runtime.ErrTaskNotCancelable},
		{"UNIMPLEMENTED", status.New(codes.Unimplemented, "unsupported"), runtime.ErrUnsupportedOperation},
		{"FAILED_PRECONDITION+ErrorInfo", withInfo, runtime.ErrUnsupportedOperation},
		{"NOT_FOUND", status.New(codes.NotFound, "task not found"), runtime.ErrTaskNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := v1Client(t, statusServer(t, tc.st))
			_, err := c.CancelTask(ctx(t), &a2av1.CancelTaskRequest{Id: "t1"})
			if !errors.Is(err, tc.want) {
				t.Errorf("CancelTask: %v, want %v", err, tc.want)
			}
			if status.Code(err) != tc.st.Code() {
				t.Errorf("status.Code(err) = %v, want the server's %v", status.Code(err), tc.st.Code())
			}
			_, err = collectErr(c.SubscribeToTask(ctx(t), &a2av1.SubscribeToTaskRequest{Id: "t1"}))
			if !errors.Is(err, tc.want) {
				t.Errorf("SubscribeToTask: %v, want %v", err, tc.want)
			}
		})
	}
}

func collectErr(seq func(func(*a2av1.StreamResponse, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
