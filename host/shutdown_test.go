package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestShutdownReportsCanceledExecutions: Shutdown's error says when
// executions had to be canceled at the end of the grace period
// (ErrExecutionsCanceled), and the executor saw server.ErrShutdown.
func TestShutdownReportsCanceledExecutions(t *testing.T) {
	causes := make(chan error, 1)
	started := make(chan struct{})
	skill := func(ctx context.Context, _ *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		close(started)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return context.Cause(ctx)
	}
	b := host.Binding{Protocol: runtime.BindingJSONRPC, Address: "a:1", Path: "/"}
	a := hosttest.Start(t, host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: skill}},
		Bindings: []host.Binding{b}, ShutdownGrace: 50 * time.Millisecond})
	req := message("x", "")
	req.Configuration = &a2av1.SendMessageConfiguration{ReturnImmediately: true}
	if _, err := a.ClientWith(t, b).SendMessage(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	<-started
	err := a.Shutdown(context.Background())
	if !errors.Is(err, host.ErrExecutionsCanceled) {
		t.Errorf("Shutdown = %v, want ErrExecutionsCanceled", err)
	}
	if c := <-causes; !errors.Is(c, server.ErrShutdown) {
		t.Errorf("the executor saw %v, want server.ErrShutdown", c)
	}
	if again := a.Shutdown(context.Background()); again != err {
		t.Errorf("a second Shutdown = %v, want the first one's result", again)
	}
}
