package runtime

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Type URLs of the google.rpc error details carried in a JSON-RPC error's
// data array (and in google.rpc.Status details on the other bindings).
const (
	typeURLErrorInfo  = "type.googleapis.com/google.rpc.ErrorInfo"
	typeURLBadRequest = "type.googleapis.com/google.rpc.BadRequest"
)

// timestampMetadataKey is the ErrorInfo metadata entry holding the time the
// error was rendered, as the official SDK sends it.
const timestampMetadataKey = "timestamp"

// errorInfoJSON is the ProtoJSON form of a google.protobuf.Any holding a
// google.rpc.ErrorInfo. The wire shape is built by hand rather than through
// anypb and the errdetails types: it is small, fixed, and needs no type
// registry; tests check it against protojson.
type errorInfoJSON struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// badRequestJSON is the ProtoJSON form of an Any holding a google.rpc.BadRequest.
type badRequestJSON struct {
	Type            string               `json:"@type"`
	FieldViolations []fieldViolationJSON `json:"fieldViolations"`
}

type fieldViolationJSON struct {
	Field       string `json:"field"`
	Description string `json:"description,omitempty"`
}

// errorDetails returns the google.rpc details of e as ProtoJSON Any values:
// always an ErrorInfo (reason, domain a2a-protocol.org, metadata plus a
// timestamp), then a BadRequest when e names invalid fields. Every binding
// renders these; JSON-RPC puts them in error.data.
func errorDetails(e *Error, now time.Time) []any {
	md := make(map[string]string, len(e.metadata)+1)
	for k, v := range e.metadata {
		md[k] = v
	}
	if _, ok := md[timestampMetadataKey]; !ok {
		md[timestampMetadataKey] = now.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	details := []any{errorInfoJSON{Type: typeURLErrorInfo, Reason: e.code.Reason(), Domain: ErrorDomain, Metadata: md}}
	if len(e.violations) > 0 {
		br := badRequestJSON{Type: typeURLBadRequest, FieldViolations: make([]fieldViolationJSON, len(e.violations))}
		for i, v := range e.violations {
			br.FieldViolations[i] = fieldViolationJSON(v)
		}
		details = append(details, br)
	}
	return details
}

// jsonrpcErrorObject is the "error" member of a JSON-RPC response.
type jsonrpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// marshalJSONRPCError renders e as a JSON-RPC error object:
// {"code":…,"message":…,"data":[ErrorInfo, BadRequest?]}, or with data the
// ErrorInfo object alone when e is in that form (adaptError). Only the message is sent, never the cause.
func marshalJSONRPCError(e *Error, now time.Time) []byte {
	var data any
	if details := errorDetails(e, now); e.form.dataObject {
		data = details[0]
	} else {
		data = details
	}
	b, err := json.Marshal(jsonrpcErrorObject{Code: e.code.JSONRPCCode(), Message: e.Message(), Data: data})
	if err != nil { // only strings and ints inside: cannot fail
		return []byte(`{"code":-32603,"message":"internal error"}`)
	}
	return b
}

// wireDetails is what a client extracted from a details (data) array.
type wireDetails struct {
	reason, domain string
	metadata       map[string]string
	violations     []FieldViolation
}

// anyDetailJSON accepts the members of every detail type this runtime reads.
type anyDetailJSON struct {
	Type     string                     `json:"@type"`
	Reason   string                     `json:"reason"`
	Domain   string                     `json:"domain"`
	Metadata map[string]json.RawMessage `json:"metadata"`
	// ProtoJSON parsers accept both the JSON name and the proto name.
	FieldViolations      []fieldViolationJSON `json:"fieldViolations"`
	FieldViolationsProto []fieldViolationJSON `json:"field_violations"`
}

// decodeErrorDetails reads a details array leniently: elements that are not
// objects, have unknown types or do not decode are skipped, and a single
// object is taken as a one-element array. The first ErrorInfo of the A2A
// domain wins (else the first ErrorInfo); violations of every BadRequest are
// collected.
func decodeErrorDetails(raw []byte) wireDetails {
	var out wireDetails
	haveInfo := false
	for _, el := range detailElements(raw) {
		var d anyDetailJSON
		if json.Unmarshal(el, &d) != nil {
			continue
		}
		switch typeName(d.Type) {
		case "google.rpc.ErrorInfo":
			if !haveInfo || (out.domain != ErrorDomain && d.Domain == ErrorDomain) {
				haveInfo = true
				out.reason, out.domain, out.metadata = d.Reason, d.Domain, errorInfoMetadata(d.Metadata)
			}
		case "google.rpc.BadRequest":
			for _, fv := range append(d.FieldViolations, d.FieldViolationsProto...) {
				out.violations = append(out.violations, FieldViolation(fv))
			}
		}
	}
	return out
}

// detailElements returns the elements of a details array, a single object
// as the only one; nil for anything else.
func detailElements(raw []byte) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '[':
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil
		}
		return elems
	case '{':
		return []json.RawMessage{raw}
	}
	return nil
}

// errorInfoMetadata is the metadata of an ErrorInfo, nil when it has none.
// A value that is not a JSON string keeps its JSON text.
func errorInfoMetadata(raw map[string]json.RawMessage) map[string]string {
	if len(raw) == 0 {
		return nil
	}
	md := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := jsonString(v); ok {
			md[k] = s
		} else {
			md[k] = string(v)
		}
	}
	return md
}

// typeName returns the message full name of an Any type URL (the part after
// the last '/').
func typeName(typeURL string) string {
	return typeURL[strings.LastIndexByte(typeURL, '/')+1:]
}

// decodeJSONRPCError rebuilds an *Error from a JSON-RPC error object. The
// ErrorInfo reason (A2A domain) decides the code, then the JSON-RPC code. An
// error member that is not an object is reported as InvalidAgentResponse
// unless it is a bare string, which is kept as the message of an Internal error.
func decodeJSONRPCError(raw []byte) *Error {
	var obj struct {
		Code    json.Number     `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		if s, ok := jsonString(raw); ok {
			return NewError(CodeInternal, s)
		}
		return Errorf(CodeInvalidAgentResponse, "malformed JSON-RPC error object %s: %w", snippet(raw, 200), err)
	}
	fallback := CodeInternal
	if n, err := strconv.ParseFloat(string(obj.Code), 64); err == nil {
		fallback = CodeFromJSONRPC(int(n))
	}
	d := decodeErrorDetails(obj.Data)
	return decodeWireError(d.reason, d.domain, fallback, obj.Message, d.metadata, d.violations)
}
