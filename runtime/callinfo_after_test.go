package runtime

import (
	"context"
	"testing"
)

// TestAfterResponse: outside a served call AfterResponse reports false (the
// caller releases at once) — also in a CallInfo a test made itself, which
// no binding finishes; inside one, what it registered runs once when the
// binding finishes the call, in the order registered, and nothing
// registered after that is kept.
func TestAfterResponse(t *testing.T) {
	if AfterResponse(context.Background(), func() {}) {
		t.Error("AfterResponse outside a call reported true")
	}
	client := &CallInfo{Client: true}
	if AfterResponse(WithCallInfo(context.Background(), client), func() {}) {
		t.Error("AfterResponse in a client's call reported true")
	}
	if AfterResponse(WithCallInfo(context.Background(), &CallInfo{}), func() {}) {
		t.Error("AfterResponse in a CallInfo no binding serves reported true")
	}
	info := &CallInfo{}
	info.track()
	ctx := WithCallInfo(context.Background(), info)
	var ran []int
	for i := range 2 {
		if !AfterResponse(ctx, func() { ran = append(ran, i) }) {
			t.Fatal("AfterResponse in a served call reported false")
		}
	}
	if len(ran) != 0 {
		t.Fatalf("ran %v before the call finished", ran)
	}
	info.finish()
	info.finish()
	if len(ran) != 2 || ran[0] != 0 || ran[1] != 1 {
		t.Errorf("ran %v, want [0 1] once", ran)
	}
	if AfterResponse(ctx, func() {}) {
		t.Error("AfterResponse after the call finished reported true")
	}
	var none *CallInfo
	none.track() // bindings track and finish a CallInfo that may be nil
	none.finish()
}
