package a2av03_test

import (
	"strings"
	"testing"
)

// TestV03IntegerOutOfRange: a number a v0.3 integer field cannot hold (2^40
// as historyLength, 1.5) is -32602 saying which range it must be in, not
// "must be a JSON number, got number".
func TestV03IntegerOutOfRange(t *testing.T) {
	d := newDual(t)
	for _, c := range []struct {
		method string
		params any
		want   string
	}{
		{"tasks/get", map[string]any{"id": "t", "historyLength": 1 << 40},
			"historyLength: must be a whole number from -2147483648 to 2147483647, got 1099511627776"},
		{"tasks/get", map[string]any{"id": "t", "historyLength": 1.5}, "historyLength: must be a whole number"},
		{"message/send", map[string]any{"message": userMessage03("hi"), "configuration": map[string]any{"historyLength": 1 << 40}},
			"configuration.historyLength: must be a whole number from -2147483648 to 2147483647, got 1099511627776"},
		{"tasks/get", map[string]any{"id": "t", "historyLength": "3"}, "historyLength: must be a JSON number, got string"},
	} {
		r := call(t, d.jsonrpc, c.method, c.params)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message+string(r.Error.Data), c.want) {
			t.Errorf("v0.3 %s %v: %+v; want -32602 with %q", c.method, c.params, r.Error, c.want)
		}
	}
	// The same on HTTP+JSON, where the number is a query parameter.
	for _, q := range []string{"1099511627776", "1.5"} {
		status, body := restCall(t, "GET", d.rest+"/v1/tasks/t?historyLength="+q, nil)
		if want := `historyLength: must be a whole number from -2147483648 to 2147483647, got \"` + q; status != 400 || !strings.Contains(string(body), want) {
			t.Errorf("v0.3 GET /v1/tasks/t?historyLength=%s = %d %s; want 400 with %s", q, status, body, want)
		}
	}
}
