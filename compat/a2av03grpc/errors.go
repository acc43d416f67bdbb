package a2av03grpc

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2agen/a2agen/runtime"
)

// v03StatusError reads an error status without an A2A ErrorInfo the way
// A2A v0.3 peers mean it. v0.3's gRPC binding has no ErrorInfo, and the
// official SDKs' v0.3 servers (the Go SDK v0.3.x, internal/grpcutil) send
// FAILED_PRECONDITION only for TaskNotCancelable and UNIMPLEMENTED for
// UnsupportedOperation, while runtime reads a bare FAILED_PRECONDITION as
// UnsupportedOperation (v1.0.1's table, where ErrorInfo tells the errors
// apart). A status with an ErrorInfo (a2agen's own v0.3 server sends one) is
// left as runtime decoded it; so is every other error.
func v03StatusError(err error) error {
	var e *runtime.Error
	if err == nil || !errors.As(err, &e) || e.Code() != runtime.CodeUnsupportedOperation {
		return err
	}
	st, ok := status.FromError(e.Unwrap())
	if !ok || st.Code() != codes.FailedPrecondition || len(st.Proto().GetDetails()) > 0 {
		return err
	}
	return runtime.NewError(runtime.CodeTaskNotCancelable, e.Message()).WithCause(e.Unwrap())
}
