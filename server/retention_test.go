package server_test

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
)

// callMarker is a value carried by a caller's context, to see whether the
// server still holds the context once the call has returned.
type callMarker struct{ _ [64]byte }

type callMarkerKey struct{}

// TestFinishedTaskKeepsNoCall: once a send's task has finished and the
// call has returned, the task the store keeps does not keep the call (its
// context, the first turn's run, handoff and subscription) reachable —
// the task's copy of the message is not part of the first turn's block.
func TestFinishedTaskKeepsNoCall(t *testing.T) {
	srv, err := server.New(echo.Card(), &echo.Agent{ChunkInterval: -1}, server.WithLogger(discardLogger()))
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}()
	marker := weak.Make(sendWithMarker(t, srv))
	for range 10 {
		runtime.GC()
		if marker.Value() == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the call's context is still reachable after its task finished")
}

// sendWithMarker sends a blocking message whose context carries a new
// callMarker and returns the marker once the task has completed.
func sendWithMarker(t *testing.T, srv *server.Server) *callMarker {
	m := new(callMarker)
	ctx := context.WithValue(context.Background(), callMarkerKey{}, m)
	resp, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMsg("hello")})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if st := resp.GetTask().GetStatus().GetState(); st != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("task %v, want COMPLETED", st)
	}
	return m
}
