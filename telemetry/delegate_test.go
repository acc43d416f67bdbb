package telemetry_test

import (
	"context"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel/trace"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/telemetry"
)

// TestSkillCallContinuesTheTrace: an executor that calls another agent
// with a generated client instrumented by telemetry.Tracing continues the
// trace of the call it serves, on every binding: the other agent's server
// span is a child of the executor's client span, itself a child of the
// first agent's server span.
func TestSkillCallContinuesTheTrace(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			k := newKit(t)
			downstream := b.serve(t, agent(t, k), runtime.WithInterceptors(telemetry.Tracing(k.options()...)))
			other := b.dial(t, downstream, runtime.WithClientInterceptors(telemetry.Tracing(k.options()...)))
			delegate := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
				resp, err := other.SendMessage(ctx, &a2av1.SendMessageRequest{Message: textMessage("d-"+req.Message.GetMessageId(), "message hi")})
				if err != nil {
					return err
				}
				return ev.Reply(server.AgentMessage("via the other agent: " + server.MessageText(resp.GetMessage())))
			})
			srv, err := server.New(echo.Card(), delegate, append(telemetry.ServerOptions(k.options()...), server.WithLogger(slog.New(slog.DiscardHandler)))...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
			c := b.dial(t, b.serve(t, srv, runtime.WithInterceptors(telemetry.Tracing(k.options()...))))

			resp, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: textMessage("m1", "hello")})
			if err != nil || server.MessageText(resp.GetMessage()) != "via the other agent: Echo: message hi" {
				t.Fatalf("SendMessage: %v, %v", resp, err)
			}
			servers := k.waitFor(t, sendMessage, trace.SpanKindServer, 2)
			client := k.waitFor(t, sendMessage, trace.SpanKindClient, 1)[0]
			first, second := servers[0], servers[1]
			if first.Parent.SpanID() == client.SpanContext.SpanID() {
				first, second = second, first
			}
			if client.Parent.SpanID() != first.SpanContext.SpanID() || client.SpanContext.TraceID() != first.SpanContext.TraceID() {
				t.Errorf("the executor's client span has parent %v, want the server span of the call it serves %v", client.Parent, first.SpanContext)
			}
			if second.Parent.SpanID() != client.SpanContext.SpanID() || second.SpanContext.TraceID() != first.SpanContext.TraceID() || !second.Parent.IsRemote() {
				t.Errorf("the other agent's server span has parent %v, want the executor's client span %v", second.Parent, client.SpanContext)
			}
		})
	}
}
