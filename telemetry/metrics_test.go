package telemetry_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
	"github.com/a2agen/a2agen/telemetry"
)

func textMessage(id, text string) *a2av1.Message {
	return &a2av1.Message{MessageId: id, Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}
}

// TestMetrics: calls by operation, binding and outcome with their
// durations on both sides, open streams and their events, task
// transitions and push delivery attempts, on every binding.
func TestMetrics(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			k := newKit(t)
			addr := b.serve(t, agent(t, k), runtime.WithInterceptors(telemetry.Metrics(k.options()...)))
			c := b.dial(t, addr, runtime.WithClientInterceptors(telemetry.Metrics(k.options()...)))
			hook := newWebhook(t)
			ctx := context.Background()

			if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: textMessage("m1", "hello"),
				Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "hook", Url: hook.url}}}); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: textMessage("m2", "stream 3")}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			for range 2 {
				if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "no-such-task"}); !errors.Is(err, runtime.ErrTaskNotFound) {
					t.Fatalf("GetTask: %v", err)
				}
			}
			// The task event, the artifact and COMPLETED.
			hook.wait(t, 3)
			// The last attempt's measurement follows its answer, and the
			// last transition's count its event.
			rm := k.collectUntil(t, func(rm metricdata.ResourceMetrics) bool {
				return countOf(rm, telemetry.MetricPushDuration) >= 3 && countOf(rm, telemetry.MetricTaskTransitions) >= 5
			})

			sys := semconv.RPCSystemNameKey
			for _, name := range []string{telemetry.MetricServerDuration, telemetry.MetricClientDuration} {
				for _, tc := range []struct {
					method, errorType string
					want              uint64
				}{
					{sendMessage, "", 1},
					{sendStreaming, "", 1},
					{getTask, "TASK_NOT_FOUND", 2},
				} {
					want := map[attribute.Key]string{sys: b.system, semconv.RPCMethodKey: tc.method}
					if tc.errorType != "" {
						want[semconv.ErrorTypeKey] = tc.errorType
					}
					if got := histogramCount(t, rm, name, want); got != tc.want {
						t.Errorf("%s %v: count %d, want %d", name, want, got, tc.want)
					}
				}
			}
			streamAttrs := map[attribute.Key]string{sys: b.system, semconv.RPCMethodKey: sendStreaming}
			for _, tc := range []struct {
				name string
				want int64
			}{
				{telemetry.MetricServerStreams, 0}, {telemetry.MetricClientStreams, 0},
				{telemetry.MetricServerStreamEvents, int64(n)}, {telemetry.MetricClientStreamEvents, int64(n)},
			} {
				if got := sum(t, rm, tc.name, streamAttrs); got != tc.want {
					t.Errorf("%s = %d, want %d", tc.name, got, tc.want)
				}
			}
			for _, tc := range []struct {
				from, to string
				want     int64
			}{{"none", "submitted", 2}, {"submitted", "working", 1}, {"working", "completed", 1}, {"submitted", "completed", 1}} {
				want := map[attribute.Key]string{telemetry.AttrPreviousTaskState: tc.from, telemetry.AttrTaskState: tc.to}
				if got := sum(t, rm, telemetry.MetricTaskTransitions, want); got != tc.want {
					t.Errorf("%s %s → %s = %d, want %d", telemetry.MetricTaskTransitions, tc.from, tc.to, got, tc.want)
				}
			}
			if got := histogramCount(t, rm, telemetry.MetricPushDuration, map[attribute.Key]string{semconv.HTTPResponseStatusCodeKey: "204"}); got != 3 {
				t.Errorf("%s of delivered attempts: count %d, want 3", telemetry.MetricPushDuration, got)
			}
		})
	}
}

// TestPushFailureMetrics: a refused delivery is a failed attempt with its
// status as error.type, and a notification given up.
func TestPushFailureMetrics(t *testing.T) {
	k := newKit(t)
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadRequest) }))
	t.Cleanup(refuse.Close)
	opts := append(telemetry.PushOptions(k.options()...), push.AllowPrivateNetworks())
	s := push.NewSender(opts...)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	err := s.Post(context.Background(), push.Notification{ID: "d1",
		Config: &a2av1.TaskPushNotificationConfig{TaskId: "t", Id: "c", Url: refuse.URL},
		Event:  &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t"}}}})
	var se *push.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest {
		t.Fatalf("Post = %v, want a 400 StatusError", err)
	}
	rm := k.collect(t)
	if got := histogramCount(t, rm, telemetry.MetricPushDuration, map[attribute.Key]string{semconv.ErrorTypeKey: "400", semconv.HTTPResponseStatusCodeKey: "400"}); got != 1 {
		t.Errorf("failed attempts = %d, want 1", got)
	}
	p := k.waitFor(t, "POST", trace.SpanKindClient, 1)[0]
	wantAttrs(t, "push span", p.Attributes, map[attribute.Key]string{semconv.ErrorTypeKey: "400", telemetry.AttrPushDeliveryID: "d1"})

	// The dispatcher gives a refused notification up at once: the three
	// events of an echoed task.
	srv := agent(t, k)
	if _, err := srv.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: textMessage("m", "hello"),
		Configuration: &a2av1.SendMessageConfiguration{TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "c", Url: refuse.URL}}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		rm := k.collect(t)
		if metricData(rm, telemetry.MetricPushGivenUp) != nil && sum(t, rm, telemetry.MetricPushGivenUp, nil) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached 3", telemetry.MetricPushGivenUp)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestActiveStreams: an open stream counts in the active streams of both
// sides while it is open, and no longer once it ended, on every binding.
func TestActiveStreams(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			k := newKit(t)
			release := make(chan struct{})
			exec := server.ExecutorFunc(func(ctx context.Context, _ *server.Request, ev *server.Events) error {
				if err := ev.Working(); err != nil {
					return err
				}
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
				return ev.Complete(nil)
			})
			srv, err := server.New(echo.Card(), exec, server.WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
			addr := b.serve(t, srv, runtime.WithInterceptors(telemetry.Metrics(k.options()...)))
			c := b.dial(t, addr, runtime.WithClientInterceptors(telemetry.Metrics(k.options()...)))
			attrs := map[attribute.Key]string{semconv.RPCSystemNameKey: b.system, semconv.RPCMethodKey: sendStreaming}
			open := func(t *testing.T, want int64) {
				t.Helper()
				rm := k.collect(t)
				for _, name := range []string{telemetry.MetricServerStreams, telemetry.MetricClientStreams} {
					if got := sum(t, rm, name, attrs); got != want {
						t.Errorf("%s = %d, want %d", name, got, want)
					}
				}
			}
			first := true
			for _, err := range c.SendStreamingMessage(context.Background(), &a2av1.SendMessageRequest{Message: textMessage("m1", "wait")}) {
				if err != nil {
					t.Fatal(err)
				}
				if first { // the executor waits: the stream is open on both sides
					open(t, 1)
					close(release)
					first = false
				}
			}
			open(t, 0)
		})
	}
}

// collectUntil collects the metrics until done says they are complete (at
// most the 10 s the span waits allow; the checks then report what is
// missing).
func (k *telemetryKit) collectUntil(t *testing.T, done func(metricdata.ResourceMetrics) bool) metricdata.ResourceMetrics {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rm := k.collect(t)
		if done(rm) || time.Now().After(deadline) {
			return rm
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countOf is the number of measurements of a histogram, or the total of
// an int64 sum, over all attributes (0 when the metric is absent).
func countOf(rm metricdata.ResourceMetrics, name string) int64 {
	var n int64
	switch d := metricData(rm, name).(type) {
	case metricdata.Histogram[float64]:
		for _, dp := range d.DataPoints {
			n += int64(dp.Count)
		}
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			n += dp.Value
		}
	}
	return n
}
