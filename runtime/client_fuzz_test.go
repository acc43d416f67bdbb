package runtime

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The fuzz targets here feed what an agent sends back to the decoders of
// the clients: SSE streams, JSON-RPC responses, HTTP+JSON error bodies and
// gRPC statuses. A client must never panic on an answer, and must always
// turn an error answer into an *Error with a code of the A2A table.
//
//	go test -run '^$' -fuzz FuzzSSEReader -fuzztime 30s ./runtime/

// wantTableError fails t unless e is an *Error whose code is in the table.
func wantTableError(t *testing.T, what string, e *Error) {
	t.Helper()
	if e == nil {
		t.Fatalf("%s decoded to a nil *Error", what)
	}
	if _, ok := errorTable[e.Code()]; !ok {
		t.Fatalf("%s decoded to code %v, which is not in the A2A table", what, e.Code())
	}
	_ = e.Error()
}

// FuzzSSEReader reads arbitrary bytes as an event stream: every event is
// within the limit, and the reader ends (io.EOF or an error) instead of
// looping.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\n",
		"data: a\ndata: b\r\n\r\n: keep-alive\n\nid: 7\nevent: x\ndata:c\n\n",
		"data: no blank line at the end",
		"retry: 10\n\n\n\ndata\n\n",
		"data: " + strings.Repeat("x", 100) + "\n\n",
		"\r\n\r\ndata: \xff\xfe\n\n",
	} {
		f.Add([]byte(s))
	}
	const limit = 64
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := newSSEReader(bytes.NewReader(stream), limit)
		for n := 0; ; n++ {
			data, err := r.next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, errSSETooLarge) {
					t.Fatalf("reading from memory failed with %v", err)
				}
				return
			}
			if len(data) > limit {
				t.Fatalf("event of %d bytes passed the limit of %d", len(data), limit)
			}
			if n > len(stream) {
				t.Fatalf("%d events from %d bytes: the reader does not advance", n, len(stream))
			}
		}
	})
}

// FuzzJSONRPCResponse decodes arbitrary bytes as the answer to request id
// "7": either a result, or an *Error of the table.
func FuzzJSONRPCResponse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"7","result":{"id":"t1"}}`,
		`{"jsonrpc":"2.0","id":"7"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`,
		`{"jsonrpc":"2.0","id":"7","error":{"code":-32001,"message":"x","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"k":"v"}}]}}`,
		`{"jsonrpc":"2.0","id":"7","error":{"code":1e400,"message":"big"}}`,
		`{"jsonrpc":"2.0","id":"7","error":"just text"}`,
		`{"jsonrpc":"2.0","id":"7","error":{"code":-32602,"data":{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message","description":"required"}]}}}`,
		`{"jsonrpc":"1.0","id":7,"result":null}`,
		`[]`, ``, `{`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, err := decodeResponse(raw, "7")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("decodeResponse error %T %v is not an *Error", err, err)
			}
			wantTableError(t, "a JSON-RPC response", e)
		}
		wantTableError(t, "a JSON-RPC error object", decodeJSONRPCError(raw))
	})
}

// FuzzRESTError decodes arbitrary bytes as the body of an HTTP+JSON error
// answer, and as an error event of a stream.
func FuzzRESTError(f *testing.F) {
	now := time.Unix(1700000000, 0)
	f.Add(404, marshalStatus(TaskNotFound("t1"), 404, now))
	f.Add(400, marshalStatus(InvalidParams("bad", FieldViolation{Field: "message.parts", Description: "required"}), 400, now))
	for _, s := range []string{
		`{"error":{"code":5,"status":"NOT_FOUND","message":"gone"}}`,
		`{"error":"text"}`,
		`{"type":"about:blank","title":"Not Found","detail":"no task"}`,
		`{"error":{"code":"x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":7}]}}`,
		`<html>proxy error</html>`, ``, `{`,
	} {
		f.Add(502, []byte(s))
	}
	f.Fuzz(func(t *testing.T, httpStatus int, body []byte) {
		wantTableError(t, "an HTTP+JSON error body", decodeRESTError(httpStatus, "", body))
		if e := decodeErrorEvent(body); e != nil {
			wantTableError(t, "an HTTP+JSON error event", e)
		}
		_ = http.StatusText(httpStatus)
	})
}

// FuzzGRPCStatus decodes arbitrary bytes as a google.rpc.Status (what
// grpc-status-details-bin carries) into the client's error.
func FuzzGRPCStatus(f *testing.F) {
	now := time.Unix(1700000000, 0)
	for _, e := range []*Error{
		TaskNotFound("t1"),
		InvalidParams("bad", FieldViolation{Field: "message", Description: "required"}),
		NewError(CodeUnauthenticated, "who are you"),
	} {
		b, err := proto.Marshal(grpcStatus(e, now).Proto())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		var sp spb.Status
		if proto.Unmarshal(raw, &sp) != nil {
			return
		}
		e, _ := decodeGRPCStatus(status.FromProto(&sp))
		wantTableError(t, "a gRPC status", e)
	})
}
