package telemetry

import (
	"context"
	"errors"

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
// the error code as the binding's wire has it (runtime.BindingSpec
// ErrorStatus: the JSON-RPC error code, the HTTP status of an HTTP+JSON
// error, the gRPC status code's name), and on bindings whose every call has
// a status (gRPC) also "OK" and the end of the call's context
// ("CANCELLED", "DEADLINE_EXCEEDED"); "" when the binding has none.
func statusCode(binding runtime.Binding, o outcome) string {
	spec, ok := runtime.BindingSpecOf(binding)
	switch {
	case !ok:
		return ""
	case o.code != 0:
		return spec.ErrorStatus(o.code)
	case spec.OKStatus == "":
		return ""
	case o.errorType == "CANCELED":
		return runtime.GRPCCodeName(codes.Canceled)
	case o.errorType != "":
		return o.errorType
	}
	return spec.OKStatus
}
