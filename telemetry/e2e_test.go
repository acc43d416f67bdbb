package telemetry_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/telemetry"
)

const (
	sendMessage   = "lf.a2a.v1.A2AService/SendMessage"
	sendStreaming = "lf.a2a.v1.A2AService/SendStreamingMessage"
	getTask       = "lf.a2a.v1.A2AService/GetTask"
)

// agent is the echo agent on the default server, instrumented, with its
// webhooks allowed on loopback.
func agent(t *testing.T, k *telemetryKit) *server.Server {
	t.Helper()
	opts := append(telemetry.ServerOptions(k.options()...), server.WithPushOptions(push.AllowPrivateNetworks()),
		server.WithLogger(slog.New(slog.DiscardHandler)))
	srv, err := server.New(echo.Card(), &echo.Agent{ChunkInterval: -1}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return srv
}

// TestTracesAcrossBindings: a generated client → server call on every
// binding makes a client span (child of the caller's span) and a server
// span (child of the client span, in the same trace) with the RPC and A2A
// attributes; stream events become span events on both sides; an A2A
// error is recorded with its code; the webhook request of a push
// notification continues the trace of the call that produced the event.
func TestTracesAcrossBindings(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			k := newKit(t)
			logs := &logBuffer{}
			addr := b.serve(t, agent(t, k), runtime.WithInterceptors(
				telemetry.Tracing(k.options()...), telemetry.Metrics(k.options()...), telemetry.RequestLog(logs.logger())))
			c := b.dial(t, addr, runtime.WithClientInterceptors(telemetry.Tracing(k.options()...), telemetry.Metrics(k.options()...)))
			hook := newWebhook(t)

			ctx, root := k.tp.Tracer("test").Start(context.Background(), "caller")
			resp, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{
				Message: &a2av1.Message{MessageId: "m1", ContextId: "ctx-1", Role: a2av1.Role_ROLE_USER,
					Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}},
				Configuration: &a2av1.SendMessageConfiguration{
					TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "hook", Url: hook.url}},
			})
			if err != nil {
				t.Fatal(err)
			}
			taskID := resp.GetTask().GetId()
			n := 0
			for _, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m2", Role: a2av1.Role_ROLE_USER,
				Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "stream 3"}}}}}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "no-such-task"}); !errors.Is(err, runtime.ErrTaskNotFound) {
				t.Fatalf("GetTask of a missing task: %v", err)
			}
			root.End()
			rootSC := root.SpanContext()

			// The unary call: caller → client span → server span.
			cs := k.waitFor(t, sendMessage, trace.SpanKindClient, 1)[0]
			ss := k.waitFor(t, sendMessage, trace.SpanKindServer, 1)[0]
			if cs.Parent.SpanID() != rootSC.SpanID() || cs.SpanContext.TraceID() != rootSC.TraceID() {
				t.Errorf("client span's parent = %v, want the caller's span %v", cs.Parent, rootSC)
			}
			if ss.Parent.SpanID() != cs.SpanContext.SpanID() || ss.SpanContext.TraceID() != rootSC.TraceID() || !ss.Parent.IsRemote() {
				t.Errorf("server span's parent = %v, want the client span %v (remote)", ss.Parent, cs.SpanContext)
			}
			for _, s := range []struct {
				what  string
				attrs []attribute.KeyValue
			}{{"client span", cs.Attributes}, {"server span", ss.Attributes}} {
				wantAttrs(t, s.what, s.attrs, map[attribute.Key]string{
					semconv.RPCSystemNameKey: b.system,
					semconv.RPCMethodKey:     sendMessage,
					telemetry.AttrBinding:    b.name,
					telemetry.AttrVersion:    "1.0",
					telemetry.AttrTaskID:     taskID,
					telemetry.AttrContextID:  "ctx-1",
				})
			}
			if got := attr(ss.Attributes, semconv.RPCResponseStatusCodeKey); got != "" {
				t.Errorf("server span of a successful call: rpc.response.status_code %q, want none", got)
			}
			if attr(ss.Attributes, semconv.NetworkPeerAddressKey) != "127.0.0.1" || attr(cs.Attributes, semconv.ServerAddressKey) != "127.0.0.1" {
				t.Errorf("peer attributes: server span %q, client span %q; want 127.0.0.1",
					attr(ss.Attributes, semconv.NetworkPeerAddressKey), attr(cs.Attributes, semconv.ServerAddressKey))
			}
			if !hasEvent(ss.Events, "a2a.task.transition") {
				t.Errorf("server span events %v: want the task's transitions", eventNames(ss.Events))
			}

			// The stream: every event on both spans, caller → client span →
			// server span as for the unary call.
			for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
				s := k.waitFor(t, sendStreaming, kind, 1)[0]
				if got := countEvents(s.Events, "a2a.stream.event"); got != n {
					t.Errorf("%v stream span: %d stream events, want %d", kind, got, n)
				}
				wantAttrs(t, kind.String()+" stream span", s.Attributes, map[attribute.Key]string{telemetry.AttrStreamEvents: itoa(n)})
				if s.SpanContext.TraceID() != rootSC.TraceID() {
					t.Errorf("%v stream span in another trace", kind)
				}
			}
			streamClient := k.waitFor(t, sendStreaming, trace.SpanKindClient, 1)[0]
			if streamClient.Parent.SpanID() != rootSC.SpanID() {
				t.Errorf("client stream span's parent = %v, want the caller's span %v", streamClient.Parent, rootSC)
			}
			if s := k.waitFor(t, sendStreaming, trace.SpanKindServer, 1)[0]; s.Parent.SpanID() != streamClient.SpanContext.SpanID() || !s.Parent.IsRemote() {
				t.Errorf("server stream span's parent = %v, want the client stream span %v (remote)", s.Parent, streamClient.SpanContext)
			}

			// The error: its code on both sides; an error of the caller is
			// not the server's fault.
			want := map[string]string{runtime.BindingGRPC: "NOT_FOUND", runtime.BindingJSONRPC: "-32001", runtime.BindingHTTPJSON: "404"}[b.name]
			for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
				s := k.waitFor(t, getTask, kind, 1)[0]
				wantAttrs(t, kind.String()+" GetTask span", s.Attributes, map[attribute.Key]string{
					semconv.ErrorTypeKey: "TASK_NOT_FOUND", semconv.RPCResponseStatusCodeKey: want, telemetry.AttrTaskID: "no-such-task"})
				wantStatus := codes.Unset
				if kind == trace.SpanKindClient {
					wantStatus = codes.Error
				}
				if s.Status.Code != wantStatus {
					t.Errorf("%v GetTask span status %v, want %v", kind, s.Status.Code, wantStatus)
				}
			}

			// The webhook: its traceparent continues the trace through the
			// push span, a child of the server span that wrote the events.
			for _, h := range hook.wait(t, 1) {
				got := propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(h))
				sc := trace.SpanContextFromContext(got)
				if sc.TraceID() != rootSC.TraceID() {
					t.Fatalf("webhook traceparent %q: trace %v, want the caller's %v", h.Get("Traceparent"), sc.TraceID(), rootSC.TraceID())
				}
				// The push span ends once the answer arrived: wait for it.
				p := k.waitForSpan(t, sc.SpanID())
				if p.Name != "POST" || p.SpanKind != trace.SpanKindClient {
					t.Errorf("the webhook request's span is %v %q, want a client span POST", p.SpanKind, p.Name)
				}
				wantAttrs(t, "push span", p.Attributes, map[attribute.Key]string{
					telemetry.AttrTaskID: taskID, telemetry.AttrPushConfigID: "hook", telemetry.AttrPushAttempt: "1",
					semconv.HTTPResponseStatusCodeKey: "204", telemetry.AttrPushDeliveryID: h.Get(push.IDHeader)})
				if p.Parent.SpanID() != ss.SpanContext.SpanID() {
					t.Errorf("push span's parent %v, want the SendMessage server span %v", p.Parent.SpanID(), ss.SpanContext.SpanID())
				}
			}

			// The request log: one line per call, with the trace.
			if lines := strings.Count(logs.String(), `"msg":"a2a call"`); lines != 3 {
				t.Errorf("%d request log lines, want 3:\n%s", lines, logs)
			}
			if !strings.Contains(logs.String(), `"traceId":"`+rootSC.TraceID().String()+`"`) {
				t.Errorf("the request log does not name the trace:\n%s", logs)
			}
		})
	}
}

func hasEvent(events []sdkEvent, name string) bool { return countEvents(events, name) > 0 }

func countEvents(events []sdkEvent, name string) int {
	n := 0
	for _, e := range events {
		if e.Name == name {
			n++
		}
	}
	return n
}

func eventNames(events []sdkEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Name)
	}
	return out
}

var _ = http.StatusOK
