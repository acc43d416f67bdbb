package runtime

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// grpcStatus renders e as a google.rpc.Status: the code of errorTable, the
// message (never the cause), and the details every binding carries — a
// google.rpc.ErrorInfo (reason, domain a2a-protocol.org, metadata plus a
// timestamp) and, when e names invalid fields, a google.rpc.BadRequest. gRPC
// sends the status in the grpc-status-details-bin trailer.
func grpcStatus(e *Error, now time.Time) *status.Status {
	md := make(map[string]string, len(e.metadata)+1)
	for k, v := range e.metadata {
		md[k] = v
	}
	if _, ok := md[timestampMetadataKey]; !ok {
		md[timestampMetadataKey] = now.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	details := make([]*anypb.Any, 0, 2)
	if a, err := anypb.New(&errdetails.ErrorInfo{Reason: e.code.Reason(), Domain: ErrorDomain, Metadata: md}); err == nil {
		details = append(details, a)
	}
	if len(e.violations) > 0 {
		br := &errdetails.BadRequest{FieldViolations: make([]*errdetails.BadRequest_FieldViolation, len(e.violations))}
		for i, v := range e.violations {
			br.FieldViolations[i] = &errdetails.BadRequest_FieldViolation{Field: v.Field, Description: v.Description}
		}
		if a, err := anypb.New(br); err == nil {
			details = append(details, a)
		}
	}
	return status.FromProto(&spb.Status{Code: int32(e.code.GRPCCode()), Message: e.Message(), Details: details})
}

// Names of the detail messages read from a status, compared with the last
// segment of the Any type URL so that any type URL prefix is accepted.
const (
	errorInfoName  = "google.rpc.ErrorInfo"
	badRequestName = "google.rpc.BadRequest"
)

// decodeGRPCStatus rebuilds an *Error from a status: the ErrorInfo reason
// decides the code when its domain is A2A's (the first such ErrorInfo wins,
// else the first ErrorInfo of any domain), then the gRPC code through
// CodeFromGRPC. Message, ErrorInfo metadata and the field violations of every
// BadRequest are kept; details that do not decode are skipped.
func decodeGRPCStatus(st *status.Status) (e *Error, hasInfo bool) {
	var (
		reason, domain string
		metadata       map[string]string
		violations     []FieldViolation
	)
	for _, d := range st.Proto().GetDetails() {
		switch typeName(d.GetTypeUrl()) {
		case errorInfoName:
			if hasInfo && domain == ErrorDomain {
				continue // an A2A ErrorInfo was found already
			}
			var info errdetails.ErrorInfo
			if proto.Unmarshal(d.GetValue(), &info) != nil {
				continue
			}
			if hasInfo && info.GetDomain() != ErrorDomain {
				continue // keep the first ErrorInfo until an A2A one comes
			}
			hasInfo = true
			reason, domain, metadata = info.GetReason(), info.GetDomain(), info.GetMetadata()
		case badRequestName:
			var br errdetails.BadRequest
			if proto.Unmarshal(d.GetValue(), &br) != nil {
				continue
			}
			for _, fv := range br.GetFieldViolations() {
				violations = append(violations, FieldViolation{Field: fv.GetField(), Description: fv.GetDescription()})
			}
		}
	}
	if len(metadata) == 0 {
		metadata = nil
	}
	return decodeWireError(reason, domain, CodeFromGRPC(st.Code()), st.Message(), metadata, violations), hasInfo
}

// grpcCallError turns what grpc-go returned for a call into the error the
// client reports:
//
//   - the caller's own cancellation or deadline: the context error, wrapped
//     with the method name, so errors.Is(err, context.Canceled) works —
//     whatever status came back, since the agent's answer (its own
//     DEADLINE_EXCEEDED, from the grpc-timeout we sent, or any error) may
//     arrive before grpc-go or ctx notice that the deadline passed (see
//     callerContextErr);
//   - a status carrying an ErrorInfo, or any code other than those below: an
//     *Error (ErrorInfo reason first, then CodeFromGRPC) whose cause is the
//     status error, so status.Code(err) keeps working;
//   - UNAVAILABLE, CANCELED, DEADLINE_EXCEEDED and UNKNOWN without an
//     ErrorInfo: a transport failure (no connection, a proxy or server that
//     is not an A2A agent), returned as grpc-go reported it, wrapped with the
//     method name, like a failed HTTP exchange on the other bindings. Callers
//     may retry on status.Code(err) == codes.Unavailable.
func grpcCallError(ctx context.Context, method string, err error) error {
	if ctxErr := callerContextErr(ctx); ctxErr != nil {
		return fmt.Errorf("a2a: gRPC %s: %w", method, ctxErr)
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("a2a: gRPC %s: %w", method, err)
	}
	e, hasInfo := decodeGRPCStatus(st)
	if !hasInfo {
		switch st.Code() {
		case codes.Unavailable, codes.Canceled, codes.DeadlineExceeded, codes.Unknown:
			return fmt.Errorf("a2a: gRPC %s: %w", method, err)
		}
	}
	return e.WithCause(err)
}
