package runtime

import (
	"context"
	"testing"
)

type attachTestKey struct{}

// attach: the context it returns carries the CallInfo and everything of
// its parent (values, cancellation, cause), as WithCallInfo's does; a
// second attach of the same CallInfo leaves the first context as it was.
func TestCallInfoAttach(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), attachTestKey{}, "first"))
	info := &CallInfo{Version: "1.0"}
	ctx := info.attach(parent)
	if got, ok := CallInfoFromContext(ctx); !ok || got != info {
		t.Fatalf("CallInfoFromContext = %v, %v; want the attached CallInfo", got, ok)
	}
	if got := ctx.Value(attachTestKey{}); got != "first" {
		t.Errorf("parent's value = %v, want first", got)
	}
	child, stop := context.WithCancel(ctx)
	defer stop()
	second := info.attach(context.WithValue(context.Background(), attachTestKey{}, "second"))
	if got, _ := CallInfoFromContext(second); got != info || second.Value(attachTestKey{}) != "second" {
		t.Errorf("second attach: CallInfo %v, value %v", got, second.Value(attachTestKey{}))
	}
	if got := ctx.Value(attachTestKey{}); got != "first" {
		t.Errorf("after a second attach, the first context's value = %v, want first", got)
	}
	errCause := context.Canceled
	cancel(errCause)
	// A context derived from it is canceled with the parent, at once (the
	// parent's cancelCtx is found through Value, as through WithValue's).
	if ctx.Err() == nil || child.Err() == nil || context.Cause(child) != errCause {
		t.Errorf("Err %v, Cause %v; want canceled with the parent's cause", ctx.Err(), context.Cause(child))
	}
	if allocs := testing.AllocsPerRun(100, func() { (&CallInfo{}).attach(parent) }); allocs > 1 {
		t.Errorf("attach allocates %v times beyond its CallInfo, want none", allocs-1)
	}
}
