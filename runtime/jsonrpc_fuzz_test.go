package runtime

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzService is the fixture without Block, whose handler waits for a
// context that a ResponseRecorder never cancels. Block is the last endpoint;
// its method answers MethodNotFound here.
func fuzzService() *Service {
	svc := newTestService(nil)
	return NewService(svc.Desc, svc.Endpoints[:len(svc.Endpoints)-1]...)
}

// FuzzJSONRPCRequest feeds arbitrary bytes to the handler as a request body:
// it must never panic and must always answer a well-formed JSON-RPC response
// (or SSE stream of them) with a documented status.
func FuzzJSONRPCRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"text":"hi"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"Send","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"Stream","params":{"count":3,"fail":"TaskNotFound","failAfter":1}}`,
		`{"jsonrpc":"2.0","id":null,"method":"Fail","params":{"fail":"panic"}}`,
		`{"jsonrpc":"2.0","method":"Delete"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"Echo"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"Echo"}`,
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":[]}`,
		`{"jsonrpc":"2.0","id":"\u0000\"","method":"Ech\u006f","params":{"count":"1"}}`,
		`{"jsonrpc":"2.0","id":1,"id":2}`,
		`{"a":"\\"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"Echo\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"Stream\",\"params\":{\"count\":2}}",
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 300) + `","method":"Stream","params":{"count":2}}`,
		`{"jsonrpc":"2.0","id":` + strings.Repeat("1", 300) + `,"method":"Echo"}`,
		`{"jsonrpc":"2.0","id":1,"method":"Send","params":{"metadata":{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"Echo","params":{"x":"` + strings.Repeat("[", 70) + `"}}`,
		`"`, `{`, `}`, ``, `null`, `0`, "\xff",
	} {
		f.Add([]byte(s))
	}
	h := NewJSONRPCHandler(fuzzService(), WithLogger(slogDiscard()), WithMaxBodyBytes(1<<14))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
		if !jsonDepthWithin(body, MaxJSONDepth+1) && !bytes.Contains(rec.Body.Bytes(), []byte(`"code":-32600`)) {
			t.Fatalf("a body nested more than MaxJSONDepth+1 levels was not refused with -32600: %q", rec.Body.Bytes())
		}
		switch ct := rec.Header().Get("Content-Type"); ct {
		case "application/json":
			checkFuzzResponse(t, rec.Body.Bytes())
		case "text/event-stream":
			r := newSSEReader(rec.Body, 1<<20)
			for {
				data, err := r.next()
				if err != nil {
					break
				}
				checkFuzzResponse(t, data)
			}
		default:
			t.Fatalf("Content-Type %q", ct)
		}
	})
}

func checkFuzzResponse(t *testing.T, b []byte) {
	t.Helper()
	var w struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if !utf8.Valid(b) { // json.Unmarshal accepts invalid UTF-8; JSON does not
		t.Fatalf("response is not valid UTF-8: %q", b)
	}
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatalf("response is not JSON: %v\n%q", err, b)
	}
	if w.JSONRPC != "2.0" {
		t.Fatalf("jsonrpc %q in %q", w.JSONRPC, b)
	}
	if (w.Result == nil) == (w.Error == nil) {
		t.Fatalf("want exactly one of result and error: %q", b)
	}
	if !validID(w.ID) {
		t.Fatalf("id %q is not a string, number or null", w.ID)
	}
	if len(w.ID) > MaxJSONRPCIDBytes {
		t.Fatalf("id of %d bytes echoed, over MaxJSONRPCIDBytes", len(w.ID))
	}
}

// FuzzScanEnvelope checks the envelope scanner on valid JSON objects: it
// must not fail, and every member it returns must itself be valid JSON.
func FuzzScanEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"x","params":{"a":"}\"{"},"result":[1,{"b":[]}],"error":null,"jsonrpc":"2.0"}`,
		`{ "i\u0064" : "x" , "id" : 2 }`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) || len(bytes.TrimSpace(doc)) == 0 || bytes.TrimSpace(doc)[0] != '{' {
			return
		}
		env, err := scanEnvelope(doc)
		if err != nil {
			t.Fatalf("valid object %q: %v", doc, err)
		}
		for _, v := range [][]byte{env.jsonrpc, env.id, env.method, env.params, env.result, env.error} {
			if v != nil && !json.Valid(v) {
				t.Fatalf("member %q of %q is not valid JSON", v, doc)
			}
		}
	})
}
