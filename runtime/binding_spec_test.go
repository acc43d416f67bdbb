package runtime

import "testing"

// TestBindingSpecs: the table has one spec per binding of Bindings, in its
// order, each complete: a transport, the wire status of errors, an HTTP
// handler exactly for the HTTP bindings.
func TestBindingSpecs(t *testing.T) {
	specs := BindingSpecs()
	if len(specs) != len(Bindings()) {
		t.Fatalf("%d specs for %d bindings", len(specs), len(Bindings()))
	}
	want := map[Binding]struct{ system, notFound, ok string }{
		BindingJSONRPC:  {"jsonrpc", "-32001", ""},
		BindingHTTPJSON: {"http", "404", ""},
		BindingGRPC:     {"grpc", "NOT_FOUND", "OK"},
	}
	for i, b := range Bindings() {
		s, ok := BindingSpecOf(b)
		if !ok || s.Binding != b || specs[i].Binding != b {
			t.Fatalf("BindingSpecOf(%s) = %v, %v; specs[%d] is %s", b, s.Binding, ok, i, specs[i].Binding)
		}
		w := want[b]
		if s.RPCSystem != w.system || s.ErrorStatus(CodeTaskNotFound) != w.notFound || s.OKStatus != w.ok {
			t.Errorf("%s: rpc system %q, TaskNotFound %q, OK %q; want %q, %q, %q", b, s.RPCSystem, s.ErrorStatus(CodeTaskNotFound), s.OKStatus, w.system, w.notFound, w.ok)
		}
		if s.NewTransport == nil || (s.HTTPHandler != nil) != b.IsHTTP() {
			t.Errorf("%s: NewTransport set %v, HTTPHandler set %v; want a transport, and a handler for HTTP bindings only", b, s.NewTransport != nil, s.HTTPHandler != nil)
		}
	}
	if _, ok := BindingSpecOf("https://example.com/custom-binding"); ok {
		t.Error("a custom binding URI has a spec")
	}
}

// TestBindingSpecHTTPPatterns: JSON-RPC answers at its path only (the root
// path is the root, not every path), HTTP+JSON serves the tree below its
// path.
func TestBindingSpecHTTPPatterns(t *testing.T) {
	svc := newTestService(nil)
	for _, tc := range []struct {
		b          Binding
		path, want string
	}{
		{BindingJSONRPC, "/", "/{$}"},
		{BindingJSONRPC, "/a2a", "/a2a"},
		{BindingHTTPJSON, "/", "/"},
		{BindingHTTPJSON, "/a2a/rest", "/a2a/rest/"},
	} {
		s, _ := BindingSpecOf(tc.b)
		pattern, h := s.HTTPHandler(svc, tc.path)
		if pattern != tc.want || h == nil {
			t.Errorf("%s at %q: pattern %q (handler %v), want %q", tc.b, tc.path, pattern, h != nil, tc.want)
		}
	}
}
