package telemetry

import (
	"context"
	"errors"
	"strconv"

	"google.golang.org/grpc/codes"

	"github.com/a2agen/a2agen/runtime"
)

// outcome is how a call ended, in the terms spans, metrics and the request
// log share.
type outcome struct {
	// name is "OK", the A2A error code's name ("TaskNotFound"), or
	// "Canceled" / "DeadlineExceeded" when the call's context ended.
	name string
	// errorType is the error.type attribute: the A2A ErrorInfo reason
	// ("TASK_NOT_FOUND"), or CANCELED / DEADLINE_EXCEEDED; "" on success.
	errorType string
	// code is the A2A error code; 0 on success and for a context's end.
	code runtime.ErrorCode
	// fault: the call failed because of the agent (or, on the client, the
	// call failed at all): the span's status is Error.
	fault bool
	// ctxEnd: the call's context ended (canceled, or its deadline passed).
	ctxEnd bool
}

var okOutcome = outcome{name: "OK"}

// outcomeOf classifies the error a call ended with. On the server a
// handler's error that only reports the end of the call's context (the
// client went away, its deadline passed) is that, not a failure of the
// agent; on the client every error is a failed call.
func outcomeOf(ctx context.Context, call *runtime.CallInfo, err error) outcome {
	if err == nil || errors.Is(err, runtime.ErrStreamStopped) {
		return okOutcome
	}
	e := runtime.ErrorOrInternal(err)
	if (e.Code() == runtime.CodeInternal) && (call.Client || ctx.Err() != nil) {
		switch {
		case errors.Is(err, context.Canceled):
			return outcome{name: "Canceled", errorType: "CANCELED", fault: call.Client, ctxEnd: true}
		case errors.Is(err, context.DeadlineExceeded):
			return outcome{name: "DeadlineExceeded", errorType: "DEADLINE_EXCEEDED", fault: true, ctxEnd: true}
		}
	}
	o := outcome{name: e.Code().String(), errorType: e.Code().Reason(), code: e.Code(), fault: call.Client}
	if !call.Client {
		switch e.Code().GRPCCode() {
		case codes.Unknown, codes.DeadlineExceeded, codes.Unimplemented, codes.Internal, codes.Unavailable, codes.DataLoss:
			o.fault = true
		}
	}
	return o
}

// statusCode is the rpc.response.status_code of an outcome on a binding:
// the gRPC status code's name (also "OK"), the JSON-RPC error code, or the
// HTTP status of an HTTP+JSON error; "" when the binding has none.
func statusCode(binding runtime.Binding, o outcome) string {
	switch binding {
	case runtime.BindingGRPC:
		switch {
		case o.code != 0:
			return grpcCodeName(o.code.GRPCCode())
		case o.errorType == "CANCELED":
			return "CANCELLED"
		case o.errorType != "":
			return o.errorType
		}
		return "OK"
	case runtime.BindingJSONRPC:
		if o.code != 0 {
			return strconv.Itoa(o.code.JSONRPCCode())
		}
	case runtime.BindingREST:
		if o.code != 0 {
			return strconv.Itoa(o.code.HTTPStatus())
		}
	}
	return ""
}

// grpcCodeNames are the status code names of the gRPC specification
// (grpc-go's String() is CamelCase).
var grpcCodeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
	"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

func grpcCodeName(c codes.Code) string {
	if int(c) < len(grpcCodeNames) {
		return grpcCodeNames[c]
	}
	return strconv.Itoa(int(c))
}
