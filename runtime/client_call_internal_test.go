package runtime

import (
	"context"
	"testing"

	"github.com/a2agen/a2agen/internal/respmeta"
)

type ignoringInterceptor struct{ InterceptorFuncs }

func (ignoringInterceptor) IgnoresResponseMetadata(respmeta.Unread) {}

func TestReadsResponseMetadata(t *testing.T) {
	unary := func(next UnaryFunc) UnaryFunc { return next }
	stream := func(next StreamFunc) StreamFunc { return next }
	reader := InterceptorFuncs{Unary: unary, Stream: stream}
	for _, tc := range []struct {
		name                string
		interceptors        []Interceptor
		wantUnary, wantStrm bool
	}{
		{"none", nil, false, false},
		{"empty funcs", []Interceptor{InterceptorFuncs{}}, false, false},
		{"unary funcs", []Interceptor{InterceptorFuncs{Unary: unary}}, true, false},
		{"stream funcs", []Interceptor{&InterceptorFuncs{Stream: stream}}, false, true},
		{"ignorer", []Interceptor{ignoringInterceptor{reader}}, false, false},
		{"ignorer and reader", []Interceptor{ignoringInterceptor{reader}, reader}, true, true},
		{"other", []Interceptor{otherInterceptor{}}, true, true},
	} {
		if got := readsResponseMetadata(tc.interceptors, false); got != tc.wantUnary {
			t.Errorf("%s: unary = %v, want %v", tc.name, got, tc.wantUnary)
		}
		if got := readsResponseMetadata(tc.interceptors, true); got != tc.wantStrm {
			t.Errorf("%s: stream = %v, want %v", tc.name, got, tc.wantStrm)
		}
	}
}

type otherInterceptor struct{}

func (otherInterceptor) WrapUnary(next UnaryFunc) UnaryFunc    { return next }
func (otherInterceptor) WrapStream(next StreamFunc) StreamFunc { return next }

// The context of an intercepted client call carries its CallInfo and
// passes everything else on to its parent.
func TestClientCallContext(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	cfg := newClientConfig([]ClientOption{WithHeader("X-A", "1"), WithHeader("X-A", "2"), WithClientInterceptors(InterceptorFuncs{})})
	ch := cfg.newClientChains(BindingGRPC, "peer", nil, nil)
	cc := cfg.newCall(parent, ch, &Operation{Name: "Op"}, nil)
	if clientCallFrom(cc) != &cc.call || cc.Value(key{}) != "v" {
		t.Fatal("values not found")
	}
	// Appending to one header must not overwrite another, nor the template.
	cc.call.Header["X-A"] = append(cc.call.Header["X-A"], "3")
	cc.call.Header["X-A"][0] = "changed"
	if got := ch.header.get("X-A"); len(got) != 2 || got[0] != "1" {
		t.Errorf("template changed: %q", got)
	}
	if got := cc.call.Header.Get(canonicalVersion); got != cfg.protocolVersion {
		t.Errorf("version header %q", got)
	}
	cancel()
	if cc.Err() == nil {
		t.Error("not canceled with its parent")
	}
}
