package runtime

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
)

// ErrorCode identifies one kind of A2A error, independent of the binding. It is
// not a wire number: each binding maps it through one table (see errorTable).
type ErrorCode int

// The A2A errors (spec §3.3.2) and the JSON-RPC standard errors.
const (
	CodeTaskNotFound ErrorCode = iota + 1
	CodeTaskNotCancelable
	CodePushNotificationNotSupported
	CodeUnsupportedOperation
	CodeContentTypeNotSupported
	CodeInvalidAgentResponse
	CodeExtendedAgentCardNotConfigured
	CodeExtensionSupportRequired
	CodeVersionNotSupported
	CodeParseError
	CodeInvalidRequest
	CodeMethodNotFound
	CodeInvalidParams
	CodeInternal
	CodeUnauthenticated
	CodeUnauthorized
	// CodeResourceExhausted: the agent is at one of its limits for now (a
	// cap on concurrent streams, on pending follow-ups); the same request
	// may succeed later. A2A defines no such error: it follows the
	// unauthenticated/unauthorized codes' pattern (-31000 minus the HTTP
	// status, 429) and gRPC's RESOURCE_EXHAUSTED.
	CodeResourceExhausted
	// CodeTaskGenerationMismatch: SendMessageConfiguration.if_generation_match
	// names another generation than the task's (A2A 1.1 draft, §3.2.7).
	CodeTaskGenerationMismatch
)

// ErrorDomain is the google.rpc.ErrorInfo domain of every A2A error.
const ErrorDomain = "a2a-protocol.org"

// errorSpec is one row of the mapping table: how an ErrorCode appears on each
// binding.
type errorSpec struct {
	name    string     // Go-facing name, e.g. "TaskNotFound"
	reason  string     // google.rpc.ErrorInfo reason
	jsonrpc int        // JSON-RPC error code
	http    int        // HTTP status for the HTTP+JSON binding
	grpc    codes.Code // gRPC status code
	message string     // default message
}

// errorTable is the single source of the wire mapping of A2A errors. The codes
// are those of A2A v1.0.1; the unauthenticated/unauthorized JSON-RPC codes are
// not standardised and follow the official Go SDK so that both agree.
var errorTable = map[ErrorCode]errorSpec{
	CodeTaskNotFound:                   {"TaskNotFound", "TASK_NOT_FOUND", -32001, http.StatusNotFound, codes.NotFound, "task not found"},
	CodeTaskNotCancelable:              {"TaskNotCancelable", "TASK_NOT_CANCELABLE", -32002, http.StatusBadRequest, codes.FailedPrecondition, "task cannot be canceled"},
	CodePushNotificationNotSupported:   {"PushNotificationNotSupported", "PUSH_NOTIFICATION_NOT_SUPPORTED", -32003, http.StatusBadRequest, codes.FailedPrecondition, "push notifications are not supported"},
	CodeUnsupportedOperation:           {"UnsupportedOperation", "UNSUPPORTED_OPERATION", -32004, http.StatusBadRequest, codes.FailedPrecondition, "operation not supported"},
	CodeContentTypeNotSupported:        {"ContentTypeNotSupported", "CONTENT_TYPE_NOT_SUPPORTED", -32005, http.StatusBadRequest, codes.InvalidArgument, "content type not supported"},
	CodeInvalidAgentResponse:           {"InvalidAgentResponse", "INVALID_AGENT_RESPONSE", -32006, http.StatusInternalServerError, codes.Internal, "invalid agent response"},
	CodeExtendedAgentCardNotConfigured: {"ExtendedAgentCardNotConfigured", "EXTENDED_AGENT_CARD_NOT_CONFIGURED", -32007, http.StatusBadRequest, codes.FailedPrecondition, "extended agent card not configured"},
	CodeExtensionSupportRequired:       {"ExtensionSupportRequired", "EXTENSION_SUPPORT_REQUIRED", -32008, http.StatusBadRequest, codes.FailedPrecondition, "a required extension was not requested"},
	CodeVersionNotSupported:            {"VersionNotSupported", "VERSION_NOT_SUPPORTED", -32009, http.StatusBadRequest, codes.FailedPrecondition, "protocol version not supported"},
	CodeParseError:                     {"ParseError", "PARSE_ERROR", -32700, http.StatusBadRequest, codes.InvalidArgument, "invalid JSON payload"},
	CodeInvalidRequest:                 {"InvalidRequest", "INVALID_REQUEST", -32600, http.StatusBadRequest, codes.InvalidArgument, "request payload validation error"},
	CodeMethodNotFound:                 {"MethodNotFound", "METHOD_NOT_FOUND", -32601, http.StatusNotImplemented, codes.Unimplemented, "method not found"},
	CodeInvalidParams:                  {"InvalidParams", "INVALID_PARAMS", -32602, http.StatusBadRequest, codes.InvalidArgument, "invalid parameters"},
	CodeInternal:                       {"Internal", "INTERNAL_ERROR", -32603, http.StatusInternalServerError, codes.Internal, "internal error"},
	CodeUnauthenticated:                {"Unauthenticated", "UNAUTHENTICATED", -31401, http.StatusUnauthorized, codes.Unauthenticated, "authentication required"},
	CodeUnauthorized:                   {"Unauthorized", "UNAUTHORIZED", -31403, http.StatusForbidden, codes.PermissionDenied, "permission denied"},
	CodeResourceExhausted:              {"ResourceExhausted", "RESOURCE_EXHAUSTED", -31429, http.StatusTooManyRequests, codes.ResourceExhausted, "the agent is at a limit; try again later"},
	CodeTaskGenerationMismatch:         {"TaskGenerationMismatch", "TASK_GENERATION_MISMATCH", -32010, http.StatusConflict, codes.Aborted, "task generation mismatch"},
}

// errorSince are the errors of protocol versions after A2A 1.0: the version
// that introduced each, and the error a caller of an earlier version gets
// instead, since it cannot know the code (version_view.go). An error of a new
// version is its row in errorTable and its line here.
var errorSince = map[ErrorCode]errorIntroduced{
	// A2A 1.0 refuses a message that the task's state does not admit (a
	// follow-up to a terminal task) with UnsupportedOperation.
	CodeTaskGenerationMismatch: {"1.1", CodeUnsupportedOperation},
}

// errorIntroduced is a row of errorSince.
type errorIntroduced struct {
	version string
	older   ErrorCode
}

// String returns the Go-facing name of the code, e.g. "TaskNotFound".
func (c ErrorCode) String() string {
	if s, ok := errorTable[c]; ok {
		return s.name
	}
	return fmt.Sprintf("ErrorCode(%d)", int(c))
}

// Reason returns the google.rpc.ErrorInfo reason, e.g. "TASK_NOT_FOUND".
func (c ErrorCode) Reason() string { return c.spec().reason }

// JSONRPCCode returns the JSON-RPC error code, e.g. -32001.
func (c ErrorCode) JSONRPCCode() int { return c.spec().jsonrpc }

// HTTPStatus returns the HTTP status used by the HTTP+JSON binding.
func (c ErrorCode) HTTPStatus() int { return c.spec().http }

// GRPCCode returns the gRPC status code.
func (c ErrorCode) GRPCCode() codes.Code { return c.spec().grpc }

func (c ErrorCode) spec() errorSpec {
	if s, ok := errorTable[c]; ok {
		return s
	}
	return errorTable[CodeInternal]
}

// FieldViolation names one invalid field of a request (google.rpc.BadRequest).
// Field is a path of JSON names, e.g. "message.parts" or "message.parts[0].text".
type FieldViolation struct {
	Field       string
	Description string
}

// Error is an A2A error. Handlers return one (usually through a constructor such
// as TaskNotFound) and every binding renders it with the codes of errorTable.
// Clients decode wire errors back into *Error, so callers can write
//
//	if errors.Is(err, runtime.ErrTaskNotFound) { … }
//
// or use errors.As to reach the message, metadata and field violations.
type Error struct {
	code       ErrorCode
	message    string
	metadata   map[string]string
	violations []FieldViolation
	challenges []string // WWW-Authenticate challenges (auth.go)
	cause      error
	// form is the error form of the VersionAdapter e is rendered for
	// (adaptError); zero for the service's own.
	form errorForm
}

// Sentinels for errors.Is: an *Error matches a sentinel with the same code.
var (
	ErrTaskNotFound                   = &Error{code: CodeTaskNotFound}
	ErrTaskNotCancelable              = &Error{code: CodeTaskNotCancelable}
	ErrPushNotificationNotSupported   = &Error{code: CodePushNotificationNotSupported}
	ErrUnsupportedOperation           = &Error{code: CodeUnsupportedOperation}
	ErrContentTypeNotSupported        = &Error{code: CodeContentTypeNotSupported}
	ErrInvalidAgentResponse           = &Error{code: CodeInvalidAgentResponse}
	ErrExtendedAgentCardNotConfigured = &Error{code: CodeExtendedAgentCardNotConfigured}
	ErrExtensionSupportRequired       = &Error{code: CodeExtensionSupportRequired}
	ErrVersionNotSupported            = &Error{code: CodeVersionNotSupported}
	ErrParse                          = &Error{code: CodeParseError}
	ErrInvalidRequest                 = &Error{code: CodeInvalidRequest}
	ErrMethodNotFound                 = &Error{code: CodeMethodNotFound}
	ErrInvalidParams                  = &Error{code: CodeInvalidParams}
	ErrInternal                       = &Error{code: CodeInternal}
	ErrUnauthenticated                = &Error{code: CodeUnauthenticated}
	ErrUnauthorized                   = &Error{code: CodeUnauthorized}
	ErrResourceExhausted              = &Error{code: CodeResourceExhausted}
	ErrTaskGenerationMismatch         = &Error{code: CodeTaskGenerationMismatch}
)

// NewError returns an error of the given code. An empty message selects the
// code's default message.
func NewError(code ErrorCode, message string) *Error {
	return &Error{code: code, message: message}
}

// Errorf returns an error of the given code with a formatted message. A %w verb
// records the wrapped error as the cause (reachable with errors.Unwrap); the
// cause is never sent on the wire beyond the formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{code: code, message: err.Error(), cause: errors.Unwrap(err)}
}

// Code returns the error's code.
func (e *Error) Code() ErrorCode { return e.code }

// Message returns the human-readable message (the code's default when none
// was given).
func (e *Error) Message() string {
	if e.message == "" {
		return e.code.spec().message
	}
	return e.message
}

// Metadata returns a copy of the ErrorInfo metadata (string → string).
func (e *Error) Metadata() map[string]string { return maps.Clone(e.metadata) }

// FieldViolations returns the invalid fields reported with the error.
func (e *Error) FieldViolations() []FieldViolation {
	return append([]FieldViolation(nil), e.violations...)
}

// Error implements error: "<Code>: <message>", then "; <field>: <description>"
// for each field violation the message does not already say, so that a
// message listing its violations (as typed skill data's does) does not
// show each twice.
func (e *Error) Error() string {
	var b strings.Builder
	msg := e.Message()
	b.WriteString(e.code.String())
	b.WriteString(": ")
	b.WriteString(msg)
	for _, v := range e.violations {
		text := v.Field
		if v.Description != "" {
			text += ": " + v.Description
			if strings.Contains(msg, text) {
				continue
			}
		}
		b.WriteString("; ")
		b.WriteString(text)
	}
	return b.String()
}

// Unwrap returns the cause given with Errorf or WithCause.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same code, which makes the
// Err… sentinels work with errors.Is.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.code == e.code
}

// WithMetadata returns a copy of e with one more ErrorInfo metadata entry.
func (e *Error) WithMetadata(key, value string) *Error {
	c := *e
	c.metadata = maps.Clone(e.metadata)
	if c.metadata == nil {
		c.metadata = make(map[string]string, 1)
	}
	c.metadata[key] = value
	return &c
}

// WithViolations returns a copy of e with field violations appended.
func (e *Error) WithViolations(v ...FieldViolation) *Error {
	c := *e
	c.violations = append(append([]FieldViolation(nil), e.violations...), v...)
	return &c
}

// WithCause returns a copy of e that wraps cause (for errors.Is/As and logs;
// the cause is not sent on the wire).
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.cause = cause
	return &c
}

// TaskNotFound reports that no task with the id exists (for the caller).
func TaskNotFound(taskID string) *Error {
	return taskError(CodeTaskNotFound, taskID, "task %q not found")
}

// TaskNotCancelable reports that the task is in a state that cannot be canceled.
func TaskNotCancelable(taskID string) *Error {
	return taskError(CodeTaskNotCancelable, taskID, "task %q cannot be canceled in its current state")
}

// taskError is an error of code about task taskID: its message is format
// with the id quoted, and its metadata names the task. Without an id it
// has neither.
func taskError(code ErrorCode, taskID, format string) *Error {
	e := &Error{code: code}
	if taskID != "" {
		e.message = fmt.Sprintf(format, taskID)
		e.metadata = map[string]string{"taskId": taskID}
	}
	return e
}

// PushNotificationNotSupported reports that the agent does not deliver push
// notifications.
func PushNotificationNotSupported() *Error {
	return &Error{code: CodePushNotificationNotSupported}
}

// UnsupportedOperation reports an operation the agent does not support, or
// one that is not allowed in the current state (e.g. a message to a finished task).
func UnsupportedOperation(message string) *Error {
	return &Error{code: CodeUnsupportedOperation, message: message}
}

// ContentTypeNotSupported reports media types the agent cannot handle
// ("incompatible content types: image/png not supported"; metadata
// "mediaTypes"). IncompatibleContentTypes also says what the agent accepts.
func ContentTypeNotSupported(mediaTypes ...string) *Error {
	e := &Error{code: CodeContentTypeNotSupported}
	if len(mediaTypes) > 0 {
		e.message = "incompatible content types: " + strings.Join(mediaTypes, ", ") + " not supported"
		e.metadata = map[string]string{"mediaTypes": strings.Join(mediaTypes, ",")}
	}
	return e
}

// IncompatibleContentTypes reports that none of the media types offered is
// among those accepted, and says both: the media types of a client's parts
// against the input modes of the agent (or skill), or the output modes the
// agent can produce against the client's acceptedOutputModes. The message
// reads "incompatible content types: offered image/png; accepted
// text/plain, application/json"; metadata "offered" and "accepted" hold the
// comma-joined lists.
func IncompatibleContentTypes(offered, accepted []string) *Error {
	list := func(types []string) string {
		if len(types) == 0 {
			return "none"
		}
		return strings.Join(types, ", ")
	}
	return &Error{
		code:    CodeContentTypeNotSupported,
		message: "incompatible content types: offered " + list(offered) + "; accepted " + list(accepted),
		metadata: map[string]string{
			"offered":  strings.Join(offered, ","),
			"accepted": strings.Join(accepted, ","),
		},
	}
}

// InvalidAgentResponse reports that the agent produced a response that does not
// follow the protocol.
func InvalidAgentResponse(message string) *Error {
	return &Error{code: CodeInvalidAgentResponse, message: message}
}

// ExtendedAgentCardNotConfigured reports that the card advertises an extended
// card but none is configured.
func ExtendedAgentCardNotConfigured() *Error {
	return &Error{code: CodeExtendedAgentCardNotConfigured}
}

// ExtensionSupportRequired reports required extensions the client did not
// request in A2A-Extensions.
func ExtensionSupportRequired(uris ...string) *Error {
	e := &Error{code: CodeExtensionSupportRequired}
	if len(uris) > 0 {
		e.message = "required extensions not requested in A2A-Extensions: " + strings.Join(uris, ", ")
		e.metadata = map[string]string{"extensions": strings.Join(uris, ",")}
	}
	return e
}

// VersionNotSupported reports a requested A2A-Version the interface does not
// serve, listing the supported ones.
func VersionNotSupported(requested string, supported ...string) *Error {
	e := &Error{code: CodeVersionNotSupported,
		message: fmt.Sprintf("A2A-Version %q is not supported; supported: %s", requested, strings.Join(supported, ", "))}
	e.metadata = map[string]string{"requestedVersion": requested, "supportedVersions": strings.Join(supported, ",")}
	return e
}

// InvalidParams reports invalid request parameters, optionally naming fields.
func InvalidParams(message string, violations ...FieldViolation) *Error {
	return &Error{code: CodeInvalidParams, message: message, violations: violations}
}

// Internal wraps an unexpected error. Its text is not sent to the client (the
// wire message is the generic one); it stays reachable through errors.Unwrap.
func Internal(cause error) *Error {
	return &Error{code: CodeInternal, cause: cause}
}

// Unauthenticated reports missing or invalid credentials.
func Unauthenticated(message string) *Error {
	return &Error{code: CodeUnauthenticated, message: message}
}

// Unauthorized reports an authenticated caller that lacks permission.
func Unauthorized(message string) *Error {
	return &Error{code: CodeUnauthorized, message: message}
}

// ErrorOrInternal is what a server answers for err: an *Error in the chain
// is returned as is; anything else becomes an Internal error wrapping it, so
// unexpected error text never leaks to clients. It is for servers and
// interceptors; a client asks errors.As(err, &e) instead, which tells an A2A
// error from a transport failure that this function would call Internal.
func ErrorOrInternal(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// CodeFromReason maps an ErrorInfo reason back to its code.
func CodeFromReason(reason string) (ErrorCode, bool) {
	for c, s := range errorTable {
		if s.reason == reason {
			return c, true
		}
	}
	return 0, false
}

// CodeFromJSONRPC maps a JSON-RPC error code back to its code. Unknown codes
// in the server-error range are reported as Internal.
func CodeFromJSONRPC(code int) ErrorCode {
	for c, s := range errorTable {
		if s.jsonrpc == code {
			return c
		}
	}
	return CodeInternal
}

// CodeFromHTTPStatus maps an HTTP status to the most likely code, for error
// bodies that carry no ErrorInfo.
func CodeFromHTTPStatus(status int) ErrorCode {
	switch status {
	case http.StatusNotFound:
		return CodeTaskNotFound
	case http.StatusUnauthorized:
		return CodeUnauthenticated
	case http.StatusForbidden:
		return CodeUnauthorized
	case http.StatusNotImplemented, http.StatusMethodNotAllowed:
		return CodeMethodNotFound
	case http.StatusConflict:
		return CodeTaskNotCancelable // A2A v1.0.0 used 409 for it
	case http.StatusUnsupportedMediaType:
		return CodeContentTypeNotSupported // v1.0.0
	case http.StatusBadGateway:
		return CodeInvalidAgentResponse // v1.0.0
	case http.StatusTooManyRequests:
		return CodeResourceExhausted
	}
	if status >= 400 && status < 500 {
		return CodeInvalidParams
	}
	return CodeInternal
}

// CodeFromGRPC maps a gRPC status code to the most likely code, for statuses
// that carry no ErrorInfo.
func CodeFromGRPC(c codes.Code) ErrorCode {
	switch c {
	case codes.NotFound:
		return CodeTaskNotFound
	case codes.InvalidArgument, codes.OutOfRange:
		return CodeInvalidParams
	case codes.Unimplemented:
		return CodeUnsupportedOperation
	case codes.Unauthenticated:
		return CodeUnauthenticated
	case codes.PermissionDenied:
		return CodeUnauthorized
	case codes.FailedPrecondition:
		return CodeUnsupportedOperation
	case codes.ResourceExhausted:
		return CodeResourceExhausted
	}
	return CodeInternal
}

// decodeWireError rebuilds an *Error from what a binding received: the
// ErrorInfo reason (authoritative when its domain is A2A's), else the binding's
// own code through fallback.
func decodeWireError(reason, domain string, fallback ErrorCode, message string, metadata map[string]string, violations []FieldViolation) *Error {
	code := fallback
	if reason != "" && (domain == "" || domain == ErrorDomain) {
		if c, ok := CodeFromReason(reason); ok {
			code = c
		}
	}
	return &Error{code: code, message: message, metadata: metadata, violations: violations}
}
