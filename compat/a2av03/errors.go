package a2av03

import "github.com/a2agen/a2agen/runtime"

// The JSON-RPC error codes of A2A v0.3 are those of v1.0 for every error
// the two share (-32001 to -32007, and the JSON-RPC ones), so a v0.3
// agent's errors already decode into the same *runtime.Error codes;
// v0.3 calls -32007 AuthenticatedExtendedCardNotConfigured, v1.0
// ExtendedAgentCardNotConfigured. v0.3 defines no error data; errors
// served to v0.3 clients carry the google.rpc.ErrorInfo as the object
// error.data (JSON-RPC), and HTTP+JSON bodies carry the JSON-RPC code and
// message beside the google.rpc.Status (Adapter).

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
	"v1.0 → v0.3: JSON-RPC error.data is the google.rpc.ErrorInfo object alone (v0.3 clients decode data as an object), so the field violations of a v1.0 BadRequest detail are named by the error message only",
	"v1.0 → v0.3: ExtensionSupportRequired (-32008) and VersionNotSupported (-32009) are answered as InvalidRequest (-32600) with their message",
	"v0.3 → v1.0: message/send configuration without blocking is blocking (the v1.0 default) in the JSON-RPC and kind forms; in ProtoJSON (v0.3 HTTP+JSON) a configuration without blocking is blocking false, since ProtoJSON omits a false bool (no configuration at all stays blocking); v1.0 → v0.3 always writes blocking",
	"v0.3 → v1.0 → v0.3: a timestamp with a zone offset comes back in UTC (the same instant)",
	"v0.3 tasks/pushNotificationConfig/list and GET /v1/tasks/{id}/pushNotificationConfigs have no paging: they are served as one v1.0 page (at most server.MaxPushConfigPageSize, 100, configs), so a task with more (WithMaxPushConfigsPerTask above 100 or unlimited) lists only the first 100; a v1.0 client calling a v0.3 agent drops pageSize and pageToken and gets what the agent returns, with no nextPageToken (v0.3 over gRPC pages as v1.0 does)",
	"HTTP+JSON: /v1/<v0.3 route> without A2A-Version is the v0.3 route, not the v1.0 route of a tenant named v1; a v1.0 client of tenant v1 must send A2A-Version: 1.0 (our clients always do), or its call is read as v0.3 and refused with InvalidParams",
	"v0.3 → v1.0 (card): an OAuth2 scheme with several flows keeps one, the first of authorizationCode, clientCredentials, implicit, password (v1.0 has one flow per scheme); implicit and password become v1.0's deprecated flows",
	"v1.0 → v0.3 (card): OAuth flows are written in their v1.0 form, one flow per scheme; pkceRequired and the device-code flow have no v0.3 member (v0.3 readers ignore them), so a scheme with only a device-code flow has no flow a v0.3 client knows",
	"v1.0 ListTasks has no v0.3 JSON-RPC method nor v0.3 proto rpc: a v1.0 client calling a v0.3-only agent over JSON-RPC or HTTP+JSON gets UnsupportedOperation without a call (our own v0.3 layer serves GET /v1/tasks, but a v0.3 agent need not)",
	"v1.0 → v0.3 HTTP+JSON in ProtoJSON (the v0.3 proto's form): part metadata, a file part's name and a message's referenceTaskIds have no v0.3 proto field and are not written (they are read when a client sends them, as the Go SDK ≥ 2.4 does); the JSON-RPC object form keeps them",
	"v0.3 HTTP+JSON card (GET /v1/card): one document for both forms' readers, the JSON card with each security scheme's proto member beside its v0.3 members; its security requirements are in the JSON form ({name: scopes}), which a ProtoJSON reader (the JS SDK) reads as empty requirements",
	"HTTP+JSON client: snake_case member names of an answer (the official Go SDK's v0.3 server writes them) are read as camelCase everywhere except inside metadata and data, so a snake_case key of a security scheme name, extension params or push-config id map in such an answer loses its underscores",
}
