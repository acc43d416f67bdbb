package a2av03

import "github.com/a2agen/a2agen/runtime"

// The JSON-RPC error codes of A2A v0.3 are those of v1.0 for every error
// the two share (-32001 to -32007, and the JSON-RPC ones), so a v0.3
// agent's errors already decode into the same *runtime.Error codes;
// v0.3 calls -32007 AuthenticatedExtendedCardNotConfigured, v1.0
// ExtendedAgentCardNotConfigured. v0.3 errors carry no google.rpc.ErrorInfo.

// ErrorCodeToV03 is the JSON-RPC code to answer a v0.3 client with for an
// error of code c: its own code when v0.3 has it, else InvalidRequest
// (-32600), since ExtensionSupportRequired (-32008) and VersionNotSupported
// (-32009) are new in v1.0 and a v0.3 client knows neither. The message is
// kept, so the client still learns what to fix.
func ErrorCodeToV03(c runtime.ErrorCode) runtime.ErrorCode {
	switch c {
	case runtime.CodeExtensionSupportRequired, runtime.CodeVersionNotSupported:
		return runtime.CodeInvalidRequest
	}
	return c
}

// ErrorNames are the v0.3 names of the A2A errors (specification/json/a2a.json).
var ErrorNames = map[runtime.ErrorCode]string{
	runtime.CodeTaskNotFound:                   "TaskNotFoundError",
	runtime.CodeTaskNotCancelable:              "TaskNotCancelableError",
	runtime.CodePushNotificationNotSupported:   "PushNotificationNotSupportedError",
	runtime.CodeUnsupportedOperation:           "UnsupportedOperationError",
	runtime.CodeContentTypeNotSupported:        "ContentTypeNotSupportedError",
	runtime.CodeInvalidAgentResponse:           "InvalidAgentResponseError",
	runtime.CodeExtendedAgentCardNotConfigured: "AuthenticatedExtendedCardNotConfiguredError",
	runtime.CodeParseError:                     "JSONParseError",
	runtime.CodeInvalidRequest:                 "InvalidRequestError",
	runtime.CodeMethodNotFound:                 "MethodNotFoundError",
	runtime.CodeInvalidParams:                  "InvalidParamsError",
	runtime.CodeInternal:                       "InternalError",
}

// Lossy lists every conversion between the v0.3 shapes and v1.0 without an
// exact counterpart, as implemented by this package.
var Lossy = []string{
	"v0.3 → v1.0: status-update final is dropped (a v1.0 stream's end says it); v1.0 → v0.3: final is computed, true for a terminal state or input-required",
	"v0.3 → v1.0: push authentication schemes beyond the first are dropped (v1.0 AuthenticationInfo has one scheme)",
	"v0.3 task state unknown ↔ v1.0 TASK_STATE_UNSPECIFIED",
	"v1.0 → v0.3: ROLE_UNSPECIFIED is written as an empty role, which a v0.3 reader refuses",
	"v1.0 → v0.3: a data part whose value is not a JSON object (array, string, number, bool, null) is wrapped as {\"value\": …}; read back, it stays the object",
	"v1.0 → v0.3: filename and mediaType of text and data parts are dropped (v0.3 has them on file parts only)",
	"v1.0 → v0.3: request tenants are dropped (v0.3 has no tenant; the interface's applies)",
	"v1.0 → v0.3: ExtensionSupportRequired (-32008) and VersionNotSupported (-32009) are answered as InvalidRequest (-32600) with their message",
	"v0.3 → v1.0: message/send configuration without blocking is blocking (the v1.0 default); v1.0 → v0.3 always writes blocking",
	"v0.3 → v1.0 → v0.3: a timestamp with a zone offset comes back in UTC (the same instant)",
}
