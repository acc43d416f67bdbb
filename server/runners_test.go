package server_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
)

// TestRunnersLeaveWhenIdle: the goroutines runs went on wait a moment for
// the next run, then leave, with the server still up (runners.go).
func TestRunnersLeaveWhenIdle(t *testing.T) {
	srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: -1}, server.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	before := goleak.IgnoreCurrent()
	for range 3 {
		if _, err := srv.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("hello")}); err != nil {
			t.Fatal(err)
		}
	}
	goleak.VerifyNone(t, before)
}
