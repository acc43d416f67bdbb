package server_test

import (
	"context"
	"slices"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestExecutorActivatesExtension: an extension an executor activates
// (runtime.ActivateExtension with its ctx) before its first event reaches
// the caller's ResponseMetadata on every binding: for a direct reply and a
// task, for SendMessage and, from the first event, SendStreamingMessage.
func TestExecutorActivatesExtension(t *testing.T) {
	const uri = "https://ext.example/x"
	forEachBinding(t, func(t *testing.T, b binding) {
		exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
			runtime.ActivateExtension(ctx, uri)
			if req.Text() == "reply" {
				return ev.Reply(server.AgentMessage("hi"))
			}
			if err := ev.Working(); err != nil {
				return err
			}
			return ev.Complete(nil)
		})
		e := newEnv(t, b, exec, nil)
		for _, text := range []string{"reply", "task"} {
			ctx, md := runtime.WithResponseMetadata(ctxT(t))
			if _, err := e.c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: userMsg(text)}); err != nil {
				t.Fatal(err)
			}
			if got := md.Extensions(); !slices.Equal(got, []string{uri}) {
				t.Errorf("SendMessage(%s): activated extensions %q, want %q", text, got, uri)
			}
			ctx, md = runtime.WithResponseMetadata(ctxT(t))
			n := 0
			for _, err := range e.c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: userMsg(text)}) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 1 {
					if got := md.Extensions(); !slices.Equal(got, []string{uri}) {
						t.Errorf("SendStreamingMessage(%s): activated extensions %q at the first event, want %q", text, got, uri)
					}
				}
			}
		}
	})
}
