package telemetry_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/telemetry"
)

const sendLive = "lf.a2a.v1.A2AService/SendLiveMessage"

// chatAgent answers each message of its task, the first and every
// follow-up, with an artifact "got: <text>", and completes after "bye".
func chatAgent() server.Executor {
	return server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if err := ev.Working(); err != nil {
			return err
		}
		text := req.Text()
		for {
			if err := ev.Artifact(server.TextArtifact("", "got: "+text)); err != nil {
				return err
			}
			if text == "bye" {
				return ev.Complete(nil)
			}
			select {
			case m := <-req.FollowUps():
				text = server.MessageText(m)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
}

// TestLiveCallTelemetry: a live call (SendLiveMessage, A2A 1.1, a
// bidirectional rpc) over loopback gRPC against the default server is
// recorded with the requests the client streamed as well as the events it
// got back: on both spans an a2a.stream.request event per request and
// a2a.stream.requests = N, the task's id from its first event; the
// request counters of both sides N; the request log line requests=N.
// Through the server-stream fallback the interceptors saw no request.
func TestLiveCallTelemetry(t *testing.T) {
	k := newKit(t)
	logs := &logBuffer{}
	opts := append(telemetry.ServerOptions(k.options()...), server.WithLogger(slog.New(slog.DiscardHandler)))
	srv, err := server.New(echo.Card(), chatAgent(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	grpcB := bindings[2]
	addr := grpcB.serve(t, srv, runtime.WithSupportedVersions("1.1", "1.0"), runtime.WithInterceptors(
		telemetry.Tracing(k.options()...), telemetry.Metrics(k.options()...), telemetry.RequestLog(logs.logger())))
	c := grpcB.dial(t, addr, runtime.WithProtocolVersion("1.1"),
		runtime.WithClientInterceptors(telemetry.Tracing(k.options()...), telemetry.Metrics(k.options()...)))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in := make(chan *a2av1.StreamRequest)
	out := make(chan *a2av1.StreamResponse, 64)
	done := make(chan error, 1)
	go func() {
		defer close(out)
		for ev, err := range c.SendLiveMessage(ctx, runtime.Requests(in)) {
			if err != nil {
				done <- err
				return
			}
			out <- ev
		}
		done <- nil
	}()
	texts := []string{"hi", "a", "b", "bye"}
	n, taskID := 0, ""
	for _, text := range texts {
		in <- &a2av1.StreamRequest{Payload: &a2av1.StreamRequest_Message{Message: &a2av1.Message{
			MessageId: "m-" + text, Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}}}
		for got := false; !got; {
			ev, ok := <-out
			if !ok {
				t.Fatalf("the live call ended after %d events: %v", n, <-done)
			}
			n++
			if id := ev.GetTask().GetId(); id != "" && taskID == "" {
				taskID = id
			}
			parts := ev.GetArtifactUpdate().GetArtifact().GetParts()
			got = len(parts) == 1 && parts[0].GetText() == "got: "+text
		}
	}
	close(in)
	for range out {
		n++
	}
	if err := <-done; err != nil {
		t.Fatalf("the live call ended with %v, want nil", err)
	}
	if taskID == "" {
		t.Fatal("no task among the live call's events")
	}
	requests := len(texts)

	for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
		s := k.waitFor(t, sendLive, kind, 1)[0]
		if got := countEvents(s.Events, "a2a.stream.request"); got != requests {
			t.Errorf("%v live span: %d a2a.stream.request events, want %d (one per request)", kind, got, requests)
		}
		if got := countEvents(s.Events, "a2a.stream.event"); got != n {
			t.Errorf("%v live span: %d a2a.stream.event events, want %d", kind, got, n)
		}
		wantAttrs(t, kind.String()+" live span", s.Attributes, map[attribute.Key]string{
			telemetry.AttrStreamRequests: strconv.Itoa(requests),
			telemetry.AttrStreamEvents:   strconv.Itoa(n),
			telemetry.AttrTaskID:         taskID,
			telemetry.AttrVersion:        "1.1",
			telemetry.AttrBinding:        runtime.BindingGRPC,
		})
		var indexes []string
		for _, e := range s.Events {
			if e.Name == "a2a.stream.request" {
				indexes = append(indexes, attr(e.Attributes, telemetry.AttrRequestIndex))
			}
		}
		if got := strings.Join(indexes, ","); got != "0,1,2,3" {
			t.Errorf("%v live span: request indexes %s, want 0,1,2,3", kind, got)
		}
	}

	rm := k.collect(t)
	live := map[attribute.Key]string{semconv.RPCMethodKey: sendLive}
	for _, m := range []struct {
		name string
		want int
	}{
		{telemetry.MetricServerStreamRequests, requests},
		{telemetry.MetricClientStreamRequests, requests},
		{telemetry.MetricServerStreamEvents, n},
		{telemetry.MetricClientStreamEvents, n},
	} {
		if got := sum(t, rm, m.name, live); got != int64(m.want) {
			t.Errorf("%s of SendLiveMessage = %d, want %d", m.name, got, m.want)
		}
	}
	if got := histogramCount(t, rm, telemetry.MetricServerDuration, live); got != 1 {
		t.Errorf("%s count of SendLiveMessage = %d, want 1", telemetry.MetricServerDuration, got)
	}

	want := `"method":"SendLiveMessage"`
	var line string
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, want) {
			line = l
		}
	}
	if !strings.Contains(line, `"requests":`+strconv.Itoa(requests)) || !strings.Contains(line, `"events":`+strconv.Itoa(n)) || !strings.Contains(line, `"taskId":"`+taskID+`"`) {
		t.Errorf("request log line of the live call %q: want requests=%d, events=%d, taskId=%s", line, requests, n, taskID)
	}
}
