package host_test

import (
	"context"
	"errors"
	"net"
	goruntime "runtime"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// TestShutdownReportsCanceledExecutions: Shutdown's error says when
// executions had to be canceled at the end of the grace period
// (ErrExecutionsCanceled), and the executor saw server.ErrShutdown.
func TestShutdownReportsCanceledExecutions(t *testing.T) {
	skill, started, causes := waitingSkill()
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

// waitingSkill returns a skill that reports WORKING, closes started, waits
// for its context to end and sends the context's cause to causes (for one
// execution).
func waitingSkill() (skill func(context.Context, *server.Request, *server.Events) error, started chan struct{}, causes chan error) {
	causes = make(chan error, 1)
	started = make(chan struct{})
	skill = func(ctx context.Context, _ *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		close(started)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return context.Cause(ctx)
	}
	return skill, started, causes
}

// TestShutdownCancelThroughReplica: during the grace period a task running
// on a shutting-down agent can still be canceled through another replica
// sharing its store (docs/operating.md, Shutdown step 2), on every binding:
// the cancel reaches the execution (its cause is server.ErrCanceled, not
// ErrShutdown), the task ends CANCELED, and the shutdown needs to cancel
// nothing.
func TestShutdownCancelThroughReplica(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.Protocol.String(), func(t *testing.T) {
			skill, started, causes := waitingSkill()
			cfg := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: skill}},
				Bindings: []host.Binding{b}, Store: store.NewMemory(), ShutdownGrace: time.Hour}
			a, other := hosttest.Start(t, cfg), hosttest.Start(t, cfg)
			req := message("x", "")
			req.Configuration = &a2av1.SendMessageConfiguration{ReturnImmediately: true}
			resp, err := a.ClientWith(t, b).SendMessage(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			<-started
			addr := a.Addr(b).String()
			done := make(chan error, 1)
			go func() { done <- a.Shutdown(context.Background()) }()
			for { // until the listener is closed
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					break
				}
				_ = conn.Close()
				goruntime.Gosched()
			}
			task, err := other.ClientWith(t, b).CancelTask(context.Background(), &a2av1.CancelTaskRequest{Id: resp.GetTask().GetId()})
			if err != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
				t.Fatalf("CancelTask through the other replica: %v, %v; want the task CANCELED", task.GetStatus().GetState(), err)
			}
			if c := <-causes; !errors.Is(c, server.ErrCanceled) {
				t.Errorf("the execution saw %v, want server.ErrCanceled", c)
			}
			if err := <-done; err != nil {
				t.Errorf("Shutdown = %v, want nil: the cancel ended the only execution", err)
			}
		})
	}
}
