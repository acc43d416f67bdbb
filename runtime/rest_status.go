package runtime

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/codes"
)

// Errors of the HTTP+JSON binding are google.rpc.Status documents (A2A
// §11.6):
//
//	{"error":{"code":404,"status":"NOT_FOUND","message":"task \"t\" not found",
//	  "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND",
//	    "domain":"a2a-protocol.org","metadata":{"taskId":"t","timestamp":"…"}}]}}
//
// code is the HTTP status, status the gRPC code name; details are those every
// binding sends (errorDetails). The same document is the data of the final
// event of a stream that fails after it started.

// statusDocument is the JSON shape of a Status error response. Code and
// Message are set only for an error in the form of an adapter with
// RESTErrorCode: the JSON-RPC code and the message, beside the Status.
type statusDocument struct {
	Code    int        `json:"code,omitempty"`
	Message string     `json:"message,omitempty"`
	Error   statusJSON `json:"error"`
}

type statusJSON struct {
	Code    int    `json:"code"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// grpcCodeName returns the canonical name of a gRPC code ("NOT_FOUND").
func grpcCodeName(c codes.Code) string {
	if name, ok := rpccode.Code_name[int32(c)]; ok {
		return name
	}
	return "UNKNOWN"
}

// marshalStatus renders e as a Status document sent with HTTP status
// httpStatus. Only the message is sent, never the cause.
func marshalStatus(e *Error, httpStatus int, now time.Time) []byte {
	doc := statusDocument{Error: statusJSON{
		Code:    httpStatus,
		Status:  grpcCodeName(e.code.GRPCCode()),
		Message: e.Message(),
		Details: errorDetails(e, now),
	}}
	if e.form.restCode {
		doc.Code, doc.Message = e.code.JSONRPCCode(), e.Message()
	}
	b, err := json.Marshal(doc)
	if err != nil { // only strings and ints inside: cannot fail
		return []byte(`{"error":{"code":500,"status":"INTERNAL","message":"internal error"}}`)
	}
	return b
}

// restErrorBody is what a client looks for in an error body: a Status
// document, an RFC 7807 problem document, or a looser {"error":"text"}.
type restErrorBody struct {
	Error json.RawMessage `json:"error"`
	// A JSON-RPC error object at the top level (the v0.3 REST body of the
	// JS SDK); Code is not a JSON-RPC code when not negative.
	Code    json.RawMessage `json:"code"`
	Message json.RawMessage `json:"message"`
	// RFC 7807 members (application/problem+json), which A2A §6.4/§6.5
	// examples show; status is the HTTP status there.
	Type   string `json:"type"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

type restStatusBody struct {
	Code    json.Number     `json:"code"`
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details"`
}

// decodeRESTError rebuilds an *Error from an error answer, whatever its
// Content-Type: a Status document is decoded by its ErrorInfo reason (A2A
// domain), then by its gRPC status name, then by the HTTP status; a body
// without one whose top-level code is a JSON-RPC error code (what the A2A
// v0.3 REST servers of the JS SDK send: {"code":-32001,"message":…}) is
// decoded as that JSON-RPC error; an RFC 7807 problem document and anything
// else are mapped by the HTTP status, keeping the detail (or a snippet of
// the body) as the message.
func decodeRESTError(httpStatus int, statusText string, body []byte) *Error {
	doc := bytes.TrimSpace(body)
	if len(doc) > 0 && doc[0] == '{' {
		var b restErrorBody
		if json.Unmarshal(doc, &b) == nil {
			if e := decodeStatusMember(httpStatus, b.Error); e != nil {
				return e
			}
			if n, err := strconv.ParseInt(string(bytes.TrimSpace(b.Code)), 10, 64); err == nil && n < 0 {
				if _, ok := jsonString(b.Message); ok {
					return decodeJSONRPCError(doc)
				}
			}
			if b.Title != "" || b.Detail != "" || b.Type != "" {
				msg := b.Detail
				if msg == "" {
					msg = b.Title
				}
				return NewError(CodeFromHTTPStatus(httpStatus), msg)
			}
		}
	}
	if statusText == "" {
		statusText = strconv.Itoa(httpStatus) + " " + http.StatusText(httpStatus)
	}
	msg := "HTTP " + statusText
	if text := strings.TrimSpace(string(doc)); text != "" {
		msg += ": " + snippet([]byte(text), 200)
	}
	return NewError(CodeFromHTTPStatus(httpStatus), msg)
}

// decodeStatusMember decodes the "error" member of a Status document, or
// returns nil when raw is absent or not usable.
func decodeStatusMember(httpStatus int, raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if s, ok := jsonString(raw); ok {
		return NewError(CodeFromHTTPStatus(httpStatus), s)
	}
	var st restStatusBody
	if raw[0] != '{' || json.Unmarshal(raw, &st) != nil {
		return nil
	}
	// The document's own code is the HTTP status the error maps to; inside a
	// stream event it is the only one (the response itself was 200).
	if n, err := st.Code.Int64(); err == nil && n >= 400 && n <= 599 {
		httpStatus = int(n)
	}
	fallback := CodeFromHTTPStatus(httpStatus)
	if c, ok := rpccode.Code_value[st.Status]; ok && c != int32(codes.OK) && c != int32(codes.Unknown) {
		fallback = CodeFromGRPC(codes.Code(c))
	}
	d := decodeErrorDetails(st.Details)
	return decodeWireError(d.reason, d.domain, fallback, st.Message, d.metadata, d.violations)
}

// DecodeRESTError rebuilds the *Error of an HTTP+JSON error body answered
// with httpStatus, exactly as the HTTP+JSON client transport does (a
// google.rpc.Status document by ErrorInfo reason, then gRPC status name,
// then HTTP status; problem documents and text by HTTP status). A stream
// event {"error":{…}} decodes with httpStatus 500 overridden by the
// document's own code. Transports that call NewRESTTransport with their own
// response types (compat/a2av03's v0.3 client) use it for error events the
// runtime cannot recognise in them.
func DecodeRESTError(httpStatus int, body []byte) *Error {
	return decodeRESTError(httpStatus, "", body)
}
