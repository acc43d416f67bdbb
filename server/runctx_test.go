package server

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type runCtxKey struct{}

// A run's contexts keep the request's values but not its cancellation: the
// execution's is canceled by Shutdown (with its cause) and by the run, the
// store's never.
func TestRunContexts(t *testing.T) {
	base, stop := context.WithCancelCause(context.Background())
	x := &executions{base: base, writer: &taskWriter{}}
	req, cancelReq := context.WithCancel(context.WithValue(context.Background(), runCtxKey{}, "v"))
	r := x.newRun(&call{ctx: req}, taskKey{"", "t"})
	defer r.release()

	for name, ctx := range map[string]context.Context{"execution": r.ctx, "store": r.storeCtx} {
		if got := ctx.Value(runCtxKey{}); got != "v" {
			t.Errorf("%s context: value %v, want the request's", name, got)
		}
	}
	cancelReq()
	if r.ctx.Err() != nil || r.storeCtx.Err() != nil {
		t.Fatalf("the request's cancel reached the run: %v, %v", r.ctx.Err(), r.storeCtx.Err())
	}
	stop(ErrShutdown)
	<-r.ctx.Done()
	if !errors.Is(context.Cause(r.ctx), ErrShutdown) || !errors.Is(r.ctx.Err(), context.Canceled) {
		t.Errorf("after Shutdown: err %v, cause %v; want Canceled, ErrShutdown", r.ctx.Err(), context.Cause(r.ctx))
	}
	if r.storeCtx.Err() != nil || r.storeCtx.Done() != nil || context.Cause(r.storeCtx) != nil {
		t.Errorf("the store's context was canceled: %v, cause %v", r.storeCtx.Err(), context.Cause(r.storeCtx))
	}
	if _, ok := r.ctx.Deadline(); ok {
		t.Error("the execution context has a deadline")
	}
}

// The run's own cancel (CancelTask) reaches its execution with its cause.
func TestRunContextCanceledByRun(t *testing.T) {
	base, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	x := &executions{base: base, writer: &taskWriter{}}
	r := x.newRun(&call{ctx: context.Background()}, taskKey{"", "t"})
	r.cancel(ErrCanceled)
	if !errors.Is(context.Cause(r.ctx), ErrCanceled) {
		t.Errorf("cause %v, want ErrCanceled", context.Cause(r.ctx))
	}
	if base.Err() != nil {
		t.Error("the run's cancel reached the server")
	}
}

func TestNewIDPair(t *testing.T) {
	a, b := newIDPair()
	for _, id := range []string{a, b} {
		if !isUUIDv7(id) {
			t.Errorf("id %q is not a UUIDv7", id)
		}
	}
	if a == b {
		t.Errorf("the pair is one id twice: %q", a)
	}
}

func isUUIDv7(id string) bool {
	if len(id) != 36 || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) {
		return false
	}
	for i, c := range id {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
