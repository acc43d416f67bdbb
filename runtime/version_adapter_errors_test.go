package runtime

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAdaptedErrorForms pins the error forms a VersionAdapter asks for:
// ErrorDataObject makes JSON-RPC error.data the ErrorInfo object,
// RESTErrorCode adds the JSON-RPC code and message beside the Status and
// names the final SSE error event "error"; without them (the service's own
// form) both stay as they were.
func TestAdaptedErrorForms(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &VersionAdapter{Version: "0.3", ErrorDataObject: true, RESTErrorCode: true}
	e := adaptError(a, TaskNotFound("t"), false)

	var rpc struct {
		Code int            `json:"code"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(marshalJSONRPCError(e, now), &rpc); err != nil || rpc.Code != -32001 ||
		rpc.Data["reason"] != "TASK_NOT_FOUND" || rpc.Data["@type"] != typeURLErrorInfo {
		t.Fatalf("adapted JSON-RPC error %s (%v)", marshalJSONRPCError(e, now), err)
	}
	if got := decodeJSONRPCError(marshalJSONRPCError(e, now)); got.Code() != CodeTaskNotFound || got.Metadata()["taskId"] != "t" {
		t.Fatalf("the object form decodes to %v %v", got.Code(), got.Metadata())
	}
	var rest struct {
		Code    int        `json:"code"`
		Message string     `json:"message"`
		Error   statusJSON `json:"error"`
	}
	if err := json.Unmarshal(marshalStatus(e, 404, now), &rest); err != nil || rest.Code != -32001 || rest.Message == "" ||
		rest.Error.Code != 404 || rest.Error.Status != "NOT_FOUND" {
		t.Fatalf("adapted REST error %s (%v)", marshalStatus(e, 404, now), err)
	}
	if got := decodeRESTError(404, "Not Found", marshalStatus(e, 404, now)); got.Code() != CodeTaskNotFound {
		t.Fatalf("the dual body decodes to %v", got.Code())
	}

	// A request that named the version keeps the array of details (the Go
	// SDK v2's v0.3 client), and the REST members.
	named := adaptError(a, TaskNotFound("t"), true)
	if b := marshalJSONRPCError(named, now); !strings.Contains(string(b), `"data":[`) || named.Code() != CodeTaskNotFound {
		t.Fatalf("JSON-RPC error for a request naming 0.3 %s: data is not the array", b)
	}
	if b := marshalStatus(named, 404, now); !strings.HasPrefix(string(b), `{"code":-32001,`) {
		t.Fatalf("REST error for a request naming 0.3 %s: no top-level code", b)
	}

	own := TaskNotFound("t")
	if b := marshalJSONRPCError(own, now); !strings.Contains(string(b), `"data":[`) {
		t.Fatalf("own JSON-RPC error %s: data is not the array", b)
	}
	if b := marshalStatus(own, 404, now); !strings.HasPrefix(string(b), `{"error":`) {
		t.Fatalf("own REST error %s: not the Status document alone", b)
	}
	if typ := restErrorEventType(&VersionAdapter{Version: "0.3"}); typ != "" {
		t.Fatalf("event type %q without RESTErrorCode", typ)
	}

	rec := httptest.NewRecorder()
	w := newSSEWriter(rec)
	if err := w.writeTypedEvent(restErrorEventType(a), []byte(`{"code":-32001}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Body.String(), "event: error\ndata: {\"code\":-32001}\n\n"; got != want {
		t.Fatalf("error event %q, want %q", got, want)
	}
}
