package runtime

import (
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestStatusRoundTrip renders every error as a Status document and decodes
// it back, as the REST client does.
func TestStatusRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range allErrorCodes() {
		e := NewError(c, "msg of "+c.String()).WithMetadata("taskId", "t-1").
			WithViolations(FieldViolation{Field: "message.parts", Description: "required"})
		doc := marshalStatus(e, c.HTTPStatus(), now)
		var st statusDocument
		if err := json.Unmarshal(doc, &st); err != nil {
			t.Fatalf("%v: %s does not decode: %v", c, doc, err)
		}
		if st.Error.Code != c.HTTPStatus() || st.Error.Status != grpcCodeName(c.GRPCCode()) || st.Error.Message != e.Message() {
			t.Errorf("%v: %s", c, doc)
		}
		// The first detail is a google.rpc.ErrorInfo as protojson reads it.
		raw, _ := json.Marshal(st.Error.Details[0])
		var info errdetails.ErrorInfo
		var anyDoc map[string]json.RawMessage
		_ = json.Unmarshal(raw, &anyDoc)
		delete(anyDoc, "@type")
		plain, _ := json.Marshal(anyDoc)
		if err := protojson.Unmarshal(plain, &info); err != nil || info.GetReason() != c.Reason() || info.GetDomain() != ErrorDomain ||
			info.GetMetadata()["timestamp"] != "2026-01-02T03:04:05.000Z" {
			t.Errorf("%v: ErrorInfo %s: %v", c, raw, err)
		}
		got := decodeRESTError(c.HTTPStatus(), "", doc)
		if got.Code() != c || got.Message() != e.Message() || got.Metadata()["taskId"] != "t-1" || len(got.FieldViolations()) != 1 {
			t.Errorf("%v: decoded as %v %q %v %v", c, got.Code(), got.Message(), got.Metadata(), got.FieldViolations())
		}
		// Inside a 200 stream, the document's own code decides.
		if ev := decodeErrorEvent(doc); ev == nil || ev.Code() != c {
			t.Errorf("%v: as a stream event decoded as %v", c, ev)
		}
	}
	if grpcCodeName(99) != "UNKNOWN" || grpcCodeName(5) != "NOT_FOUND" {
		t.Error("grpcCodeName")
	}
}

func TestDecodeRESTErrorFallbacks(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   ErrorCode
		msg    string
	}{
		{"status name without ErrorInfo", 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"x"}}`, CodeInvalidParams, "x"},
		{"foreign ErrorInfo domain", 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"x","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"example.com"}]}}`, CodeTaskNotFound, "x"},
		{"UNKNOWN status name", 401, `{"error":{"code":401,"status":"UNKNOWN","message":"x"}}`, CodeUnauthenticated, "x"},
		{"code member only", 200, `{"error":{"code":403,"message":"x"}}`, CodeUnauthorized, "x"},
		{"problem detail", 404, `{"type":"about:blank","title":"Not Found","detail":"task t"}`, CodeTaskNotFound, "task t"},
		{"not JSON", 500, `<html>oops</html>`, CodeInternal, "HTTP 500 Internal Server Error: <html>oops</html>"},
		{"empty", 503, ``, CodeInternal, "HTTP 503 Service Unavailable"},
		{"error not an object", 400, `{"error":[1]}`, CodeInvalidParams, `HTTP 400 Bad Request: {"error":[1]}`},
		// The A2A v0.3 REST body of the JS SDK: a JSON-RPC error at the top level.
		{"top-level JSON-RPC code", 400, `{"code":-32002,"message":"Task not cancelable: t"}`, CodeTaskNotCancelable, "Task not cancelable: t"},
		{"top-level JSON-RPC code with data", 404, `{"code":-32001,"message":"m","data":{"taskId":"t"}}`, CodeTaskNotFound, "m"},
		{"top-level code and the Status: the Status wins", 404, `{"code":-32603,"message":"m","error":{"code":404,"status":"NOT_FOUND","message":"s"}}`, CodeTaskNotFound, "s"},
		{"top-level HTTP code is no JSON-RPC code", 409, `{"code":409,"message":"m"}`, CodeFromHTTPStatus(409), `HTTP 409 Conflict: {"code":409,"message":"m"}`},
		{"problem with a string code", 404, `{"code":"E1","title":"Not Found","detail":"d"}`, CodeTaskNotFound, "d"},
	}
	for _, tt := range tests {
		got := decodeRESTError(tt.status, "", []byte(tt.body))
		if got.Code() != tt.want || got.Message() != tt.msg {
			t.Errorf("%s: %v %q, want %v %q", tt.name, got.Code(), got.Message(), tt.want, tt.msg)
		}
	}
	if decodeErrorEvent([]byte(`{"text":"not an error"}`)) != nil || decodeErrorEvent([]byte(`nope`)) != nil {
		t.Error("decodeErrorEvent found an error in a plain event")
	}
}
