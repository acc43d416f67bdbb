package host

import (
	"strings"
	"testing"

	"github.com/a2agen/a2agen/runtime"
)

func TestStartRefusesGRPCSharingAnAddress(t *testing.T) {
	for _, bs := range [][]Binding{
		{{Protocol: runtime.BindingJSONRPC, Address: "127.0.0.1:0", Path: "/"}, {Protocol: runtime.BindingGRPC, Address: "127.0.0.1:0"}},
		{{Protocol: runtime.BindingGRPC, Address: "127.0.0.1:0"}, {Protocol: runtime.BindingHTTPJSON, Address: "127.0.0.1:0", Path: "/rest"}},
		{{Protocol: runtime.BindingGRPC, Address: "127.0.0.1:0"}, {Protocol: runtime.BindingGRPC, Address: "127.0.0.1:0"}},
	} {
		err := checkListeners(bs)
		if err == nil || !strings.Contains(err.Error(), "gRPC needs an address of its own") {
			t.Errorf("checkListeners(%v) = %v, want a refusal", bs, err)
		}
	}
	ok := []Binding{{Protocol: runtime.BindingJSONRPC, Address: "127.0.0.1:0", Path: "/"}, {Protocol: runtime.BindingHTTPJSON, Address: "127.0.0.1:0", Path: "/rest"}, {Protocol: runtime.BindingGRPC, Address: "127.0.0.1:1"}}
	if err := checkListeners(ok); err != nil {
		t.Errorf("checkListeners(two HTTP bindings on one address, gRPC on another) = %v", err)
	}
}

// TestStartRefusesAnUnknownBinding: a Protocol that is none of the three
// would silently not be served; the refusal names the constants, and what
// ParseBinding makes of an alias.
func TestStartRefusesAnUnknownBinding(t *testing.T) {
	for p, want := range map[runtime.Binding]string{
		"rest": `host: Config.Bindings[0].Protocol "rest" is not a binding (runtime.ParseBinding reads it as HTTP+JSON); use runtime.BindingJSONRPC, runtime.BindingHTTPJSON or runtime.BindingGRPC`,
		"":     `host: Config.Bindings[0].Protocol "" is not a binding; use runtime.BindingJSONRPC, runtime.BindingHTTPJSON or runtime.BindingGRPC`,
	} {
		err := checkListeners([]Binding{{Protocol: p, Address: "127.0.0.1:0", Path: "/"}})
		if err == nil || err.Error() != want {
			t.Errorf("checkListeners(Protocol %q) = %v, want %s", p, err, want)
		}
	}
}

// TestListenFlagMovesEachAddress: -listen rules keep every binding on the
// listener of its own agent.yaml address, so two addresses moved to port 0
// get two ports (gRPC is not served on the HTTP listener), and an address
// moved onto another one's fails to listen.
func TestListenFlagMovesEachAddress(t *testing.T) {
	l := listenFlag{"127.0.0.1:18080": "127.0.0.1:0", "127.0.0.1:19090": "127.0.0.1:0"}
	bs := []Binding{{Protocol: runtime.BindingJSONRPC, Address: "127.0.0.1:18080", Path: "/"}, {Protocol: runtime.BindingGRPC, Address: "127.0.0.1:19090"}}
	if err := l.check(bs); err != nil {
		t.Fatal(err)
	}
	listen := l.wrap(nil)
	a, err := listen("tcp", "127.0.0.1:18080")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := listen("tcp", "127.0.0.1:19090")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Addr().String() == b.Addr().String() {
		t.Fatalf("both addresses moved to the same listener %s", a.Addr())
	}
	onto := listenFlag{"127.0.0.1:19090": a.Addr().String()}
	if c, err := onto.wrap(nil)("tcp", "127.0.0.1:19090"); err == nil {
		c.Close()
		t.Fatalf("moving an address onto a listening one succeeded")
	}
	if err := (listenFlag{"127.0.0.1:1": "127.0.0.1:0"}).check(bs); err == nil || !strings.Contains(err.Error(), "no binding listens on 127.0.0.1:1") {
		t.Fatalf("check of an unknown FROM = %v", err)
	}
}
