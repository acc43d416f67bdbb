package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// RunProcesses runs the conformance tests of store.Processes and of Ping:
// a store that says it is shared carries signals to the receivers of the
// runner they are sent to; one that is not accepts signals and delivers
// none; Ping answers until Close.
func RunProcesses(t *testing.T, newStore func(t *testing.T) store.Store) {
	suite[store.Store]{
		{"Signals", testSignals},
		{"Ping", testPing},
	}.run(t, newStore)
}

func testSignals(t *testing.T, s store.Store) {
	ctx := context.Background()
	ch, stop := s.ReceiveSignals("runner-a")
	defer stop()
	sig := store.Signal{Kind: store.SignalFollowUp, Tenant: "T", TaskID: "t1", MessageID: "m1"}
	if err := s.SendSignal(ctx, "runner-a", sig); err != nil {
		t.Fatalf("SendSignal = %v, want nil (shared: %v)", err, s.Shared())
	}
	if !s.Shared() {
		select {
		case got, ok := <-ch:
			if ok {
				t.Fatalf("a store not shared by processes delivered signal %+v", got)
			}
		case <-time.After(50 * time.Millisecond):
		}
		stop()
		return
	}
	select {
	case got := <-ch:
		if got != sig {
			t.Fatalf("received signal %+v, want %+v", got, sig)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a shared store did not deliver a signal to its runner's receiver within 10s")
	}
	stop()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("a signal arrived after stop")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the signal channel was not closed by stop")
	}
}

func testPing(t *testing.T, s store.Store) {
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping of an open store = %v, want nil", err)
	}
	must(t, s.Close(), "Close")
	if err := s.Ping(context.Background()); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Ping after Close = %v, want ErrClosed", err)
	}
}
