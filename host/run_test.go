package host_test

import (
	"context"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
)

// TestRun: host.Run, the life of a program that does not use Main, serves
// the agent until its context ends, then shuts down and returns nil; the
// address is free again afterwards.
func TestRun(t *testing.T) {
	cfg, addr := plainConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- host.Run(ctx, cfg) }()
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + addr + "/")
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err = c.SendMessage(context.Background(), message("hi", "")); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("SendMessage while Run serves: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after its context ended: %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if _, err := c.SendMessage(context.Background(), message("late", "")); err == nil {
		t.Error("SendMessage after Run returned succeeded; want the agent gone")
	}
}

// TestRunRefusesBadConfig: Run returns Start's error without serving.
func TestRunRefusesBadConfig(t *testing.T) {
	cfg, _ := plainConfig(t)
	cfg.Bindings = nil
	if err := host.Run(context.Background(), cfg); err == nil {
		t.Fatal("Run without bindings returned nil")
	}
}
